package roberta

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/nn"
)

// expected.json and the tiny checkpoints are written by
// scripts/reference/roberta-reference.py (a plain-PyTorch forward pass).
// The head is RobertaClassificationHead: BERT's pooler (tanh) and
// classifier layout on the <s> state.
func TestConformance(t *testing.T) {
	exp := encodertest.ReadHFExpected(t, filepath.Join("testdata", "expected.json"))
	for _, dir := range []string{"tiny-roberta", "tiny-xlm-roberta"} {
		t.Run(dir, func(t *testing.T) {
			e, err := Load(filepath.Join("testdata", dir))
			if err != nil {
				t.Fatal(err)
			}
			encodertest.CheckHF(t, encodertest.HFCase{
				Enc: e, Fixture: exp[dir], Head: e.Head(),
				Formula: encodertest.HFHead{Act: bert.HeadTanh},
			})
		})
	}
}

// TestModelFile checks the encoder survives its spec and tensors, as a
// model file keeps it.
func TestModelFile(t *testing.T) {
	e, err := Load(filepath.Join("testdata", "tiny-xlm-roberta"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := encoder.Decode(e.Spec(), e.Tensors())
	if err != nil {
		t.Fatal(err)
	}
	s := "Who wrote War and Peace?"
	if !slices.Equal(d.Tokenize(s).IDs, e.Tokenize(s).IDs) {
		t.Fatal("tokens differ after decoding")
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	a := slices.Clone(e.Encode(tp, e.Tokenize(s)).Value.Data)
	b := d.Encode(tp, d.Tokenize(s)).Value.Data
	if !slices.Equal(a, b) {
		t.Fatal("states differ after decoding")
	}
	spec := e.Spec()
	spec.Tokenizer = "hf-unigram:000000000000"
	if _, err := encoder.Decode(spec, e.Tensors()); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("a wrong tokenizer identity: %v", err)
	}
	if _, err := encoder.Decode(e.Spec(), e.Tensors()[1:]); err == nil {
		t.Error("a missing tensor decoded")
	}
}

func TestConfigErrors(t *testing.T) {
	base := `"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 10, "type_vocab_size": 1, "pad_token_id": 1`
	for _, tc := range []struct{ name, json, want string }{
		{"ok", `{"architectures": ["XLMRobertaForSequenceClassification"], "model_type": "xlm-roberta", ` + base + `}`, ""},
		{"unknown architecture", `{"architectures": ["RobertaForMaskedLM"], "model_type": "roberta", ` + base + `}`, `architecture "RobertaForMaskedLM"`},
		{"mixed family", `{"architectures": ["XLMRobertaModel"], "model_type": "roberta", ` + base + `}`, `architecture "XLMRobertaModel"`},
		{"model type", `{"architectures": ["DebertaV2Model"], "model_type": "deberta-v2", ` + base + `}`, `model_type "deberta-v2"`},
		{"no model type", `{"architectures": ["RobertaModel"], ` + base + `}`, "model_type is missing"},
		{"positions", `{"model_type": "roberta", "vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 2, "pad_token_id": 1}`, "leaves no position"},
		{"heads", `{"model_type": "roberta", "vocab_size": 50, "hidden_size": 9, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 10}`, "num_attention_heads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.json))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.BERT.MaxPositionEmbeddings != 8 || c.BERT.TypeVocabSize != 1 || !c.Classifier() {
					t.Errorf("config %+v", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestShapeError(t *testing.T) {
	dir := encodertest.CopyCheckpoint(t, filepath.Join("testdata", "tiny-roberta"), []string{"config.json", "model.safetensors", "tokenizer.json"},
		encodertest.Replace(t, `"intermediate_size": 64`, `"intermediate_size": 48`))
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), `"roberta.encoder.layer.0.intermediate.dense.weight" has shape [64 32], want [48 32]`) {
		t.Errorf("error %v, want one naming the misshapen tensor", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, d := range []string{"tiny-roberta", "tiny-xlm-roberta"} {
		data, err := os.ReadFile(filepath.Join("testdata", d, "config.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if c.BERT.MaxPositionEmbeddings < 1 || c.PaddingIdx < 0 || c.PaddingIdx >= c.BERT.VocabSize {
			t.Fatalf("accepted %+v", c)
		}
	})
}
