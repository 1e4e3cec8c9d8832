package electra

import (
	"math"
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
const tiny = "tiny-electra"

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
		Formula: encodertest.HFHead{Act: bert.HeadGELU},
		Types:   true,
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
			s.Config = []byte(strings.Replace(string(s.Config), `"intermediate_size":64`, `"intermediate_size":48`, 1))
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

// int8 inference runs the embedding projection and every layer's four
// linear layers.
func TestLinears(t *testing.T) {
	e, err := Load(filepath.Join("testdata", tiny))
	if err != nil {
		t.Fatal(err)
	}
	if e.Config().BERT.EmbeddingSize == 0 {
		t.Fatal("the tiny checkpoint's embeddings are as wide as its layers")
	}
	if got, want := len(e.Linears()), 1+4*e.Config().BERT.NumHiddenLayers; got != want {
		t.Errorf("%d linear layers, want %d", got, want)
	}
}

func TestConfigErrors(t *testing.T) {
	base := `"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 10`
	for _, tc := range []struct {
		name, json, want string
		embedding        int // the config's EmbeddingSize when it is accepted
	}{
		{"ok", `{"architectures": ["ElectraForSequenceClassification"], "model_type": "electra", "embedding_size": 4, "num_labels": 1, ` + base + `}`, "", 4},
		{"embedding size of hidden size", `{"model_type": "electra", "embedding_size": 8, ` + base + `}`, "", 0},
		{"default embedding size", `{"model_type": "electra", ` + base + `}`, "", 128},
		{"unknown architecture", `{"architectures": ["ElectraForPreTraining"], "model_type": "electra", ` + base + `}`, `architecture "ElectraForPreTraining"`, 0},
		{"model type", `{"architectures": ["BertModel"], "model_type": "bert", ` + base + `}`, `model_type "bert"`, 0},
		{"no model type", `{"architectures": ["ElectraModel"], ` + base + `}`, "model_type is missing", 0},
		{"embedding size", `{"model_type": "electra", "embedding_size": 0, ` + base + `}`, "embedding_size = 0", 0},
		{"heads", `{"model_type": "electra", "vocab_size": 50, "hidden_size": 9, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 10}`, "num_attention_heads", 0},
		{"positions", `{"model_type": "electra", "position_embedding_type": "relative_key", ` + base + `}`, "position_embedding_type", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.json))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if b := c.BERT; b.HiddenSize != 8 || b.EmbeddingSize != tc.embedding || b.TypeVocabSize != 2 {
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
		{"shape", `"intermediate_size": 64`, `"intermediate_size": 48`, `"electra.encoder.layer.0.intermediate.dense.weight" has shape [64 32], want [48 32]`},
		{"embedding size", `"embedding_size": 16`, `"embedding_size": 8`, `"electra.embeddings.word_embeddings.weight" has shape [`},
		{"needless projection", `"embedding_size": 16`, `"embedding_size": 32`, `"electra.embeddings_project.weight" projects embeddings of embedding_size 32 to hidden_size 32`},
		{"architecture", `"ElectraForSequenceClassification"`, `"ElectraForMaskedLM"`, `architecture "ElectraForMaskedLM"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(encodertest.CopyCheckpoint(t, filepath.Join("testdata", tiny), []string{"config.json", "model.safetensors", "tokenizer.json"}, encodertest.Replace(t, tc.old, tc.new)))
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
	f.Add([]byte(`{"model_type": "electra", "hidden_size": 0}`))
	f.Add([]byte(`{"model_type": "electra", "vocab_size": 5, "hidden_size": 4, "embedding_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8, "max_position_embeddings": 4, "id2label": {"x": "y"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		b := c.BERT
		if b.HiddenSize < 1 || b.NumAttentionHeads < 1 || b.HiddenSize%b.NumAttentionHeads != 0 || b.NumHiddenLayers < 1 ||
			b.VocabSize < 1 || b.MaxPositionEmbeddings < 1 || b.TypeVocabSize < 0 || b.EmbeddingSize < 0 || b.EmbeddingSize == b.HiddenSize {
			t.Fatalf("accepted %+v", c)
		}
	})
}

// Fine-tuning: on a training tape the states' gradient reaches the
// narrow embeddings through their projection.
func TestTrainingGradients(t *testing.T) {
	e, err := Load(filepath.Join("testdata", tiny))
	if err != nil {
		t.Fatal(err)
	}
	ps := e.Params()
	grads := ps.NewGrads()
	tp := nn.NewTape(grads, 1)
	seq := e.Pair(e.Tokenize("Who wrote War and Peace?"), e.Tokenize("Leo Tolstoy."))
	x, _ := e.EncodeBatch(tp, []encoder.Sequence{seq})
	tp.Backward(tp.Sum(x))
	if err := grads.CheckFinite(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"embeddings.word_embeddings.weight", "embeddings.token_type_embeddings.weight",
		"embeddings.norm.gain", "embeddings.project.weight", "embeddings.project.bias", "encoder.layer.0.attn.qkv.weight"} {
		p := ps.Get(name)
		if p == nil {
			t.Fatalf("no parameter %s", name)
		}
		var s float64
		for _, g := range grads.Of(p).Data {
			s += math.Abs(float64(g))
		}
		if s == 0 {
			t.Errorf("%s: zero gradient", name)
		}
	}
}
