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

// The RoBERTa-family checkpoints rank as their PyTorch reference scores
// them (scripts/reference/roberta-reference.py): the logit of one label,
// or logit1 − logit0 of two, and so does the model file as2 import hf
// writes from them.
func TestLoadHFRoBERTaFamily(t *testing.T) {
	data, err := os.ReadFile("../../encoder/roberta/testdata/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var exp map[string]struct {
		Pairs []struct {
			A, B   string
			Logits []float64
		}
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tiny-roberta", "tiny-xlm-roberta"} {
		t.Run(name, func(t *testing.T) {
			m, err := LoadHF(filepath.Join("../../encoder/roberta/testdata", name))
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
			pairs := exp[name].Pairs
			if len(pairs) == 0 {
				t.Fatal("no fixtures")
			}
			for _, p := range pairs {
				want := p.Logits[len(p.Logits)-1]
				if len(p.Logits) == 2 {
					want -= p.Logits[0]
				}
				q := &dataset.Question{ID: "q", Text: p.A, Candidates: []dataset.Candidate{{ID: "0", Text: p.B}}}
				for what, r := range map[string]model.Model{"LoadHF": m, "saved": saved} {
					got, err := r.Score(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(got[0]-want) > 1e-4 {
						t.Errorf("%s: score(%q, %q) = %v, want %v", what, p.A, p.B, got[0], want)
					}
				}
			}
		})
	}
}

func TestLoadHFUnknownFamily(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2"}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHF(dir); err == nil || !strings.Contains(err.Error(), `model_type "gpt2"`) || !strings.Contains(err.Error(), "GPT2LMHeadModel") {
		t.Errorf("error %v, want one naming the model type and architecture", err)
	}
}
