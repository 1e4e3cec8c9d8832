package distilbert

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

// expected.json and the tiny checkpoint are written by
// scripts/reference/distilbert-electra-reference.py (a plain-PyTorch
// forward pass).
const tiny = "tiny-distilbert"

// The tiny checkpoint tokenizes, encodes and classifies as the PyTorch
// reference does.
func TestConformance(t *testing.T) {
	e, err := Load(filepath.Join("testdata", tiny))
	if err != nil {
		t.Fatal(err)
	}
	encodertest.CheckHF(t, encodertest.HFCase{
		Enc:     e,
		Fixture: encodertest.ReadHFExpected(t, filepath.Join("testdata", "expected.json"))[tiny],
		Head:    e.Head(),
		Formula: encodertest.HFHead{Act: bert.HeadReLU},
		Types:   false,
	})
}

// The encoder survives its spec and tensors, as a model file keeps it,
// and a file that does not match its configuration is an error.
func TestModelFile(t *testing.T) {
	e, err := Load(filepath.Join("testdata", tiny))
	if err != nil {
		t.Fatal(err)
	}
	if e.Spec().Kind != Kind {
		t.Fatalf("kind %q, want %q", e.Spec().Kind, Kind)
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
	if d.Spec().Identity != e.Spec().Identity {
		t.Errorf("identity %s after decoding, was %s", d.Spec().Identity, e.Spec().Identity)
	}
	for _, tc := range []struct {
		name string
		edit func(*encoder.Spec) int // the tensor to drop, or -1
		want string
	}{
		{"missing tensor", func(*encoder.Spec) int { return 1 }, "encoder values"},
		{"tokenizer", func(s *encoder.Spec) int { s.Tokenizer = "wordpiece:000000000000"; return -1 }, "corrupt"},
		{"config", func(s *encoder.Spec) int {
			s.Config = []byte(strings.Replace(string(s.Config), `"hidden_dim":64`, `"hidden_dim":48`, 1))
			return -1
		}, "encoder values"},
		{"bad json", func(s *encoder.Spec) int { s.Config = []byte(`{`); return -1 }, "configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, ts := e.Spec(), e.Tensors()
			if i := tc.edit(&spec); i >= 0 {
				ts = append(ts[:i:i], ts[i+1:]...)
			}
			if _, err := encoder.Decode(spec, ts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// int8 inference runs every layer's four linear layers.
func TestLinears(t *testing.T) {
	e, err := Load(filepath.Join("testdata", tiny))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(e.Linears()), 4*e.Config().BERT.NumHiddenLayers; got != want {
		t.Errorf("%d linear layers, want %d", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	base := `"vocab_size": 50, "dim": 8, "n_layers": 1, "n_heads": 2, "hidden_dim": 16, "max_position_embeddings": 10`
	for _, tc := range []struct{ name, json, want string }{
		{"ok", `{"architectures": ["DistilBertForSequenceClassification"], "model_type": "distilbert", "activation": "relu", "num_labels": 1, ` + base + `}`, ""},
		{"unknown architecture", `{"architectures": ["DistilBertForMaskedLM"], "model_type": "distilbert", ` + base + `}`, `architecture "DistilBertForMaskedLM"`},
		{"model type", `{"architectures": ["BertModel"], "model_type": "bert", ` + base + `}`, `model_type "bert"`},
		{"no model type", `{"architectures": ["DistilBertModel"], ` + base + `}`, "model_type is missing"},
		{"sinusoidal", `{"model_type": "distilbert", "sinusoidal_pos_embds": true, ` + base + `}`, "sinusoidal_pos_embds"},
		{"missing dim", `{"model_type": "distilbert", "vocab_size": 50, "n_layers": 1, "n_heads": 2, "hidden_dim": 16, "max_position_embeddings": 10}`, "dim is missing"},
		{"heads", `{"model_type": "distilbert", "vocab_size": 50, "dim": 9, "n_layers": 1, "n_heads": 2, "hidden_dim": 16, "max_position_embeddings": 10}`, "n_heads"},
		{"activation", `{"model_type": "distilbert", "activation": "swish", ` + base + `}`, `activation "swish"`},
		{"dropout", `{"model_type": "distilbert", "dropout": 1.5, ` + base + `}`, "dropout = 1.5"},
		{"labels", `{"model_type": "distilbert", "num_labels": 0, ` + base + `}`, "num_labels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.json))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				b := c.BERT
				if b.HiddenSize != 8 || b.IntermediateSize != 16 || b.TypeVocabSize != 0 || b.HiddenAct != nn.ActReLU ||
					b.LayerNormEps != eps || b.NumLabels != 1 || !c.Classifier() {
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

// A checkpoint whose tensors do not match its config.json, or of an
// architecture as2 does not read, is an error that names it.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"shape", `"hidden_dim": 64`, `"hidden_dim": 48`, `"distilbert.transformer.layer.0.ffn.lin1.weight" has shape [64 32], want [48 32]`},
		{"architecture", `"DistilBertForSequenceClassification"`, `"DistilBertForQuestionAnswering"`, `architecture "DistilBertForQuestionAnswering"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(encodertest.CopyCheckpoint(t, filepath.Join("testdata", tiny), []string{"config.json", "model.safetensors", "vocab.txt"}, encodertest.Replace(t, tc.old, tc.new)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func FuzzParseConfig(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", tiny, "config.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"model_type": "distilbert", "dim": 0}`))
	f.Add([]byte(`{"model_type": "distilbert", "vocab_size": 5, "dim": 4, "n_layers": 1, "n_heads": 2, "hidden_dim": 8, "max_position_embeddings": 4, "id2label": {"x": "y"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		b := c.BERT
		if b.HiddenSize < 1 || b.NumAttentionHeads < 1 || b.HiddenSize%b.NumAttentionHeads != 0 || b.NumHiddenLayers < 1 ||
			b.VocabSize < 1 || b.MaxPositionEmbeddings < 1 || b.TypeVocabSize != 0 || b.EmbeddingSize != 0 {
			t.Fatalf("accepted %+v", c)
		}
	})
}
