package crossencoder

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/quant"
)

// checkLoadHF checks that the tiny checkpoints names of a family's
// testdata rank as their PyTorch reference (scripts/reference/*.py, its
// expected.json) scores them: the logit of one label, or logit1 − logit0
// of two; that the model file as2 import hf writes from them (LoadHF,
// model.Save, model.Load) scores the same; that candidates of different
// lengths, padded together in one batch, score as each alone; and, with
// int8, that int8 inference stays close (checkInt8).
func checkLoadHF(t *testing.T, testdata string, names []string, int8 bool) {
	exp := encodertest.ReadHFExpected(t, filepath.Join(testdata, "expected.json"))
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, err := LoadHF(filepath.Join(testdata, name))
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
			q := &dataset.Question{ID: "q", Text: pairs[0].A}
			for i, p := range pairs {
				q.Candidates = append(q.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: p.B})
			}
			a, err := m.Score(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			b, err := saved.Score(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range q.Candidates {
				if a[i] != b[i] {
					t.Errorf("candidate %d: %v imported, %v saved and loaded", i, a[i], b[i])
				}
				alone, err := m.Score(context.Background(), &dataset.Question{ID: "q", Text: q.Text, Candidates: []dataset.Candidate{c}})
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(alone[0]-a[i]) > 1e-5 {
					t.Errorf("candidate %d scores %v in a batch, %v alone", i, a[i], alone[0])
				}
			}
			if int8 {
				checkInt8(t, path, saved, q)
			}
		})
	}
}

// hfEdit is a change to a checkpoint's config.json (old to new) that
// LoadHF must refuse with an error containing want.
type hfEdit struct{ name, old, new, want string }

// checkLoadHFErrors copies the files of the checkpoint src, applying each
// edit to config.json, and checks that LoadHF names what it does not read.
func checkLoadHFErrors(t *testing.T, src string, files []string, edits []hfEdit) {
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			dir := encodertest.CopyCheckpoint(t, src, files, encodertest.Replace(t, tc.old, tc.new))
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
	if len(ls) < 4 { // the pooler's, and at least a layer's
		t.Fatalf("%d linear layers for int8: the encoder's are missing", len(ls))
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

// The RoBERTa-family checkpoints rank as their reference scores them
// (scripts/reference/roberta-reference.py).
func TestLoadHFRoBERTaFamily(t *testing.T) {
	checkLoadHF(t, "../../encoder/roberta/testdata", []string{"tiny-roberta", "tiny-xlm-roberta"}, true)
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
