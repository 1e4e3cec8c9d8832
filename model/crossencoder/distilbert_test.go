package crossencoder

import (
	"path/filepath"
	"testing"
)

const distilbertTestdata = "../../encoder/distilbert/testdata"

// The DistilBERT checkpoint ranks as its PyTorch reference scores it
// (scripts/reference/distilbert-electra-reference.py), and so does its
// model file, with int8 inference too.
func TestLoadHFDistilBERT(t *testing.T) {
	checkLoadHF(t, distilbertTestdata, []string{"tiny-distilbert"}, true)
}

// A DistilBERT checkpoint of an architecture or a shape as2 does not read is
// an error that names it.
func TestLoadHFDistilBERTErrors(t *testing.T) {
	checkLoadHFErrors(t, filepath.Join(distilbertTestdata, "tiny-distilbert"), []string{"config.json", "model.safetensors", "vocab.txt"}, []hfEdit{
		{"architecture", `"DistilBertForSequenceClassification"`, `"DistilBertForMaskedLM"`, `architecture "DistilBertForMaskedLM"`},
		{"shape", `"hidden_dim": 64`, `"hidden_dim": 48`, `"distilbert.transformer.layer.0.ffn.lin1.weight" has shape [64 32], want [48 32]`},
		{"sinusoidal", `"sinusoidal_pos_embds": false`, `"sinusoidal_pos_embds": true`, "sinusoidal_pos_embds"},
		{"bare model", `"DistilBertForSequenceClassification"`, `"DistilBertModel"`, "has no sequence classifier"},
	})
}
