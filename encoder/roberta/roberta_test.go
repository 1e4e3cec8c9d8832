package roberta

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
)

// expected.json and the tiny checkpoints are written by
// scripts/reference/roberta-reference.py (a plain-PyTorch forward pass).
type expected map[string]struct {
	Pairs []struct {
		A           string    `json:"a"`
		B           string    `json:"b"`
		IDs         []int     `json:"ids"`
		Logits      []float64 `json:"logits"`
		StatesFirst []float64 `json:"states_first"`
		StatesLast  []float64 `json:"states_last"`
	} `json:"pairs"`
}

const tol = 1e-4

func readExpected(t *testing.T) expected {
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

// logits applies the head (BERT's pooler and classifier layout) to the
// <s> state, as RobertaClassificationHead does.
func logits(e *Encoder, cls []float32) []float32 {
	hd := e.Head()
	h := len(cls)
	pooled := make([]float32, h)
	for o := 0; o < h; o++ {
		s := float64(hd.PoolerB.Data[o])
		for i := 0; i < h; i++ {
			s += float64(cls[i]) * float64(hd.PoolerW.Data[i*h+o])
		}
		pooled[o] = float32(math.Tanh(s))
	}
	n := hd.ClassifierB.Shape[0]
	out := make([]float32, n)
	for o := 0; o < n; o++ {
		s := float64(hd.ClassifierB.Data[o])
		for i := 0; i < h; i++ {
			s += float64(pooled[i]) * float64(hd.ClassifierW.Data[i*n+o])
		}
		out[o] = float32(s)
	}
	return out
}

func TestConformance(t *testing.T) {
	exp := readExpected(t)
	for _, dir := range []string{"tiny-roberta", "tiny-xlm-roberta"} {
		t.Run(dir, func(t *testing.T) {
			e, err := Load(filepath.Join("testdata", dir))
			if err != nil {
				t.Fatal(err)
			}
			if e.Head() == nil || e.Head().ClassifierW == nil {
				t.Fatal("no classification head")
			}
			pairs := exp[dir].Pairs
			if len(pairs) == 0 {
				t.Fatal("no fixtures")
			}
			var seqs []encoder.Sequence
			for _, p := range pairs {
				seq := e.Pair(e.Tokenize(p.A), e.Tokenize(p.B))
				if !slices.Equal(seq.IDs, p.IDs) {
					t.Fatalf("Pair(%q, %q) ids %v, want %v", p.A, p.B, seq.IDs, p.IDs)
				}
				if seq.Types != nil {
					t.Errorf("token types %v for a one-type model", seq.Types)
				}
				seqs = append(seqs, seq)
			}
			// One padded batch: padding must not change the real rows.
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			x, T := e.EncodeBatch(tp, seqs)
			h := e.Dim()
			for b, p := range pairs {
				rows := x.Value.Data[b*T*h : (b*T+len(p.IDs))*h]
				first, last := rows[:h], rows[len(rows)-h:]
				near(t, p.A+": states[0]", first, p.StatesFirst)
				near(t, p.A+": states[-1]", last, p.StatesLast)
				near(t, p.A+": logits", logits(e, first), p.Logits)
			}
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
	dir := t.TempDir()
	src := filepath.Join("testdata", "tiny-roberta")
	for _, f := range []string{"model.safetensors", "tokenizer.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = []byte(strings.Replace(string(cfg), `"intermediate_size": 64`, `"intermediate_size": 48`, 1))
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(dir)
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
