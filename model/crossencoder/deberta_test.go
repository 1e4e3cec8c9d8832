package crossencoder

import (
	"path/filepath"
	"testing"
)

const debertaTestdata = "../../encoder/deberta/testdata"

// The DeBERTa-v2/v3 checkpoints rank as their PyTorch reference scores
// them (scripts/reference/deberta-reference.py), and so do their model
// files, and int8 inference stays close.
func TestLoadHFDeBERTa(t *testing.T) {
	checkLoadHF(t, debertaTestdata, []string{"tiny-deberta-v2", "tiny-deberta-v2-abs"}, true)
}

// A DeBERTa checkpoint of an architecture or a shape as2 does not read is
// an error that names it.
func TestLoadHFDeBERTaErrors(t *testing.T) {
	checkLoadHFErrors(t, filepath.Join(debertaTestdata, "tiny-deberta-v2"), []string{"config.json", "model.safetensors", "tokenizer.json"}, []hfEdit{
		{"architecture", `"DebertaV2ForSequenceClassification"`, `"DebertaV2ForMaskedLM"`, `architecture "DebertaV2ForMaskedLM"`},
		{"shape", `"intermediate_size": 64`, `"intermediate_size": 48`, `"deberta.encoder.layer.0.intermediate.dense.weight" has shape [64 32], want [48 32]`},
		{"conv", `"relative_attention": true`, `"relative_attention": true, "conv_kernel_size": 3`, "conv_kernel_size"},
	})
}
