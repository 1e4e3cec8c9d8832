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
)

const electraTestdata = "../../encoder/electra/testdata"

// The ELECTRA checkpoint ranks as its PyTorch reference scores it
// (scripts/reference/distilbert-electra-reference.py): the logit of one label,
// or logit1 − logit0 of two; and the model file as2 import hf writes from
// them (LoadHF, model.Save, model.Load) scores the same.
func TestLoadHFELECTRA(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(electraTestdata, "expected.json"))
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
	for _, name := range []string{"tiny-electra"} {
		t.Run(name, func(t *testing.T) {
			m, err := LoadHF(filepath.Join(electraTestdata, name))
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

// A ELECTRA checkpoint of an architecture or a shape as2 does not read is
// an error that names it.
func TestLoadHFELECTRAErrors(t *testing.T) {
	src := filepath.Join(electraTestdata, "tiny-electra")
	for _, tc := range []struct{ name, old, new, want string }{
		{"architecture", `"ElectraForSequenceClassification"`, `"ElectraForMaskedLM"`, `architecture "ElectraForMaskedLM"`},
		{"shape", `"intermediate_size": 64`, `"intermediate_size": 48`, `"electra.encoder.layer.0.intermediate.dense.weight" has shape [64 32], want [48 32]`},
		{"embedding size", `"embedding_size": 16`, `"embedding_size": 8`, `"electra.embeddings.word_embeddings.weight" has shape [`},
		{"bare model", `"ElectraForSequenceClassification"`, `"ElectraModel"`, "has no sequence classifier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json"} {
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
