package crossencoder

import (
	"path/filepath"
	"testing"
)

const electraTestdata = "../../encoder/electra/testdata"

// The ELECTRA checkpoint ranks as its PyTorch reference scores it
// (scripts/reference/distilbert-electra-reference.py), and so does its
// model file, with int8 inference too (the embedding projection with the
// layers).
func TestLoadHFELECTRA(t *testing.T) {
	checkLoadHF(t, electraTestdata, []string{"tiny-electra"}, true)
}

// An ELECTRA checkpoint of an architecture or a shape as2 does not read is
// an error that names it.
func TestLoadHFELECTRAErrors(t *testing.T) {
	checkLoadHFErrors(t, filepath.Join(electraTestdata, "tiny-electra"), []string{"config.json", "model.safetensors", "tokenizer.json"}, []hfEdit{
		{"architecture", `"ElectraForSequenceClassification"`, `"ElectraForMaskedLM"`, `architecture "ElectraForMaskedLM"`},
		{"shape", `"intermediate_size": 64`, `"intermediate_size": 48`, `"electra.encoder.layer.0.intermediate.dense.weight" has shape [64 32], want [48 32]`},
		{"embedding size", `"embedding_size": 16`, `"embedding_size": 8`, `"electra.embeddings.word_embeddings.weight" has shape [`},
		{"bare model", `"ElectraForSequenceClassification"`, `"ElectraModel"`, "has no sequence classifier"},
	})
}
