package distilbert

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/nn"
)

// expected.json and the tiny checkpoint are written by
// scripts/reference/distilbert-electra-reference.py (a plain-PyTorch
// forward pass).
type expected struct {
	Models map[string]struct {
		Texts []struct {
			Text string `json:"text"`
			IDs  []int  `json:"ids"`
		} `json:"texts"`
		Pairs []struct {
			A           string    `json:"a"`
			B           string    `json:"b"`
			IDs         []int     `json:"ids"`
			Types       []int     `json:"types"`
			Logits      []float64 `json:"logits"`
			StatesFirst []float64 `json:"states_first"`
			StatesLast  []float64 `json:"states_last"`
		} `json:"pairs"`
	} `json:"models"`
}

const (
	tol  = 1e-4
	tiny = "tiny-distilbert"
)

func readExpected(t testing.TB) expected {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func near(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= tol) {
			t.Fatalf("%s[%d] = %v, want %v (diff %.2g > %g)", what, i, got[i], want[i], d, tol)
		}
	}
}

// logits applies the head (BERT's pooler and classifier layout, with the
// head's activation) to the [CLS] state, in float64.
func logits(hd *bert.Head, cls []float32) []float32 {
	h := len(cls)
	pooled := make([]float64, h)
	for o := 0; o < h; o++ {
		s := float64(hd.PoolerB.Data[o])
		for i := 0; i < h; i++ {
			s += float64(cls[i]) * float64(hd.PoolerW.Data[i*h+o])
		}
		switch hd.Act {
		case bert.HeadReLU:
			pooled[o] = math.Max(s, 0)
		case bert.HeadGELU:
			pooled[o] = 0.5 * s * (1 + math.Erf(s/math.Sqrt2))
		default:
			pooled[o] = math.Tanh(s)
		}
	}
	n := hd.ClassifierB.Shape[0]
	out := make([]float32, n)
	for o := 0; o < n; o++ {
		s := float64(hd.ClassifierB.Data[o])
		for i := 0; i < h; i++ {
			s += pooled[i] * float64(hd.ClassifierW.Data[i*n+o])
		}
		out[o] = float32(s)
	}
	return out
}

// The tiny checkpoint tokenizes, encodes and classifies as the PyTorch
// reference does.
func TestConformance(t *testing.T) {
	exp := readExpected(t).Models[tiny]
	e, err := Load(filepath.Join("testdata", tiny))
	if err != nil {
		t.Fatal(err)
	}
	if e.Head() == nil || e.Head().ClassifierW == nil || e.Head().Act != bert.HeadReLU {
		t.Fatalf("head %+v, want pre_classifier, ReLU and classifier", e.Head())
	}
	if len(exp.Texts) == 0 || len(exp.Pairs) == 0 {
		t.Fatal("no fixtures")
	}
	for _, x := range exp.Texts {
		if got := e.Tokenize(x.Text).IDs; !slices.Equal(got, x.IDs) {
			t.Errorf("Tokenize(%q) = %v, want %v", x.Text, got, x.IDs)
		}
	}
	var seqs []encoder.Sequence
	for _, p := range exp.Pairs {
		seq := e.Pair(e.Tokenize(p.A), e.Tokenize(p.B))
		if !slices.Equal(seq.IDs, p.IDs) {
			t.Fatalf("Pair(%q, %q) ids %v, want %v", p.A, p.B, seq.IDs, p.IDs)
		}
		if seq.Types != nil {
			t.Errorf("token types %v for a model without token types", seq.Types)
		}
		seqs = append(seqs, seq)
	}
	// One padded batch: padding must not change the real rows.
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	x, T := e.EncodeBatch(tp, seqs)
	h := e.Dim()
	for b, p := range exp.Pairs {
		rows := x.Value.Data[b*T*h : (b*T+len(p.IDs))*h]
		first, last := rows[:h], rows[len(rows)-h:]
		near(t, p.A+": states[0]", first, p.StatesFirst)
		near(t, p.A+": states[-1]", last, p.StatesLast)
		near(t, p.A+": logits", logits(e.Head(), first), p.Logits)
	}
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

// copyCheckpoint copies the tiny checkpoint into a temporary folder with
// config.json edited.
func copyCheckpoint(t *testing.T, old, new string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", tiny)
	for _, f := range []string{"config.json", "model.safetensors", "vocab.txt"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "config.json" {
			if !strings.Contains(string(data), old) {
				t.Fatalf("config.json has no %s", old)
			}
			data = []byte(strings.Replace(string(data), old, new, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A checkpoint whose tensors do not match its config.json, or of an
// architecture as2 does not read, is an error that names it.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"shape", `"hidden_dim": 64`, `"hidden_dim": 48`, `"distilbert.transformer.layer.0.ffn.lin1.weight" has shape [64 32], want [48 32]`},
		{"architecture", `"DistilBertForSequenceClassification"`, `"DistilBertForQuestionAnswering"`, `architecture "DistilBertForQuestionAnswering"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(copyCheckpoint(t, tc.old, tc.new))
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
