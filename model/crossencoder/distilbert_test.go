package crossencoder

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/quant"
)

const distilbertTestdata = "../../encoder/distilbert/testdata"

// The DistilBERT checkpoint ranks as its PyTorch reference scores it
// (scripts/reference/distilbert-electra-reference.py): the logit of one label,
// or logit1 − logit0 of two; and the model file as2 import hf writes from
// them (LoadHF, model.Save, model.Load) scores the same.
func TestLoadHFDistilBERT(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(distilbertTestdata, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Models map[string]struct {
			Pairs []struct {
				A, B   string
				Logits []float64
			}
		}
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tiny-distilbert"} {
		t.Run(name, func(t *testing.T) {
			m, err := LoadHF(filepath.Join(distilbertTestdata, name))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.as2")
			if err := model.Save(path, m); err != nil {
				t.Fatal(err)
			}
			saved, err := model.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			pairs := exp.Models[name].Pairs
			if len(pairs) == 0 {
				t.Fatal("no fixtures")
			}
			q := &dataset.Question{ID: "q", Text: pairs[0].A}
			for i, p := range pairs {
				q.Candidates = append(q.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: p.B})
			}
			for what, r := range map[string]model.Model{"LoadHF": m, "saved": saved} {
				for _, p := range pairs {
					want := p.Logits[len(p.Logits)-1]
					if len(p.Logits) == 2 {
						want -= p.Logits[0]
					}
					one := &dataset.Question{ID: "q", Text: p.A, Candidates: []dataset.Candidate{{ID: "0", Text: p.B}}}
					got, err := r.Score(context.Background(), one)
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(got[0]-want) > 1e-4 {
						t.Errorf("%s: score(%q, %q) = %v, want %v", what, p.A, p.B, got[0], want)
					}
				}
			}
			checkInt8(t, path, saved, q)
			// The imported and the reloaded model agree on a batch of
			// candidates of different lengths (padded together).
			a, err := m.Score(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			b, err := saved.Score(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			for i := range a {
				if a[i] != b[i] {
					t.Errorf("candidate %d: %v imported, %v saved and loaded", i, a[i], b[i])
				}
			}
		})
	}
}

// A DistilBERT checkpoint of an architecture or a shape as2 does not read is
// an error that names it.
func TestLoadHFDistilBERTErrors(t *testing.T) {
	src := filepath.Join(distilbertTestdata, "tiny-distilbert")
	for _, tc := range []struct{ name, old, new, want string }{
		{"architecture", `"DistilBertForSequenceClassification"`, `"DistilBertForMaskedLM"`, `architecture "DistilBertForMaskedLM"`},
		{"shape", `"hidden_dim": 64`, `"hidden_dim": 48`, `"distilbert.transformer.layer.0.ffn.lin1.weight" has shape [64 32], want [48 32]`},
		{"sinusoidal", `"sinusoidal_pos_embds": false`, `"sinusoidal_pos_embds": true`, "sinusoidal_pos_embds"},
		{"bare model", `"DistilBertForSequenceClassification"`, `"DistilBertModel"`, "has no sequence classifier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"config.json", "model.safetensors", "vocab.txt"} {
				data, err := os.ReadFile(filepath.Join(src, f))
				if err != nil {
					t.Fatal(err)
				}
				if f == "config.json" {
					if !strings.Contains(string(data), tc.old) {
						t.Fatalf("config.json has no %s", tc.old)
					}
					data = []byte(strings.Replace(string(data), tc.old, tc.new, 1))
				}
				if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := LoadHF(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// checkInt8 loads a saved model file with int8 inference, as as2 rank
// --int8 does: where the CPU runs int8 (quant.Supported), every linear
// layer the encoder lists (ELECTRA's embedding projection with the
// layers') runs int8 and the scores stay within int8's rounding of the
// float32 ones; elsewhere the model stays float32 and scores the same.
func checkInt8(t *testing.T, path string, float model.Model, q *dataset.Question) {
	t.Helper()
	i8, err := quant.Load(path, true)
	if err != nil {
		t.Fatal(err)
	}
	ls := i8.(quant.Linearer).Linears()
	if len(ls) == 0 {
		t.Fatal("no linear layers for int8")
	}
	for _, l := range ls {
		if (l.Int8 != nil) != quant.Supported() {
			t.Errorf("%s: int8 weights %v, int8 supported %v", l.W.Name, l.Int8 != nil, quant.Supported())
		}
	}
	want, err := float.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := i8.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	scale := 1.0
	for _, v := range want {
		scale = max(scale, math.Abs(v))
	}
	for i := range want {
		d := math.Abs(got[i]-want[i]) / scale
		if !quant.Supported() && d != 0 || d > 0.05 {
			t.Errorf("candidate %d: %v with int8 inference, %v float32", i, got[i], want[i])
		}
	}
}
