package crossencoder

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
)

const modernbertData = "../../encoder/modernbert/testdata"

// The ModernBERT checkpoints rank as their PyTorch reference scores them
// (scripts/reference/modernbert-reference.py): the logit of one label, or
// logit1 − logit0 of two, through head.dense, its GELU and head.norm over
// [CLS] or the mean of the states; and so does the model file saved from
// them and loaded back.
func TestLoadHFModernBERT(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(modernbertData, "expected.json"))
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
	for _, name := range []string{"tiny-modernbert", "tiny-modernbert-mean"} {
		t.Run(name, func(t *testing.T) {
			m, err := LoadHF(filepath.Join(modernbertData, name))
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
			// Candidates of different lengths scored in one padded batch
			// score as each alone.
			batch := &dataset.Question{ID: "q", Text: pairs[0].A}
			for i, p := range pairs {
				batch.Candidates = append(batch.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: p.B})
			}
			together, err := m.Score(context.Background(), batch)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range batch.Candidates {
				alone, err := m.Score(context.Background(), &dataset.Question{ID: "q", Text: batch.Text, Candidates: []dataset.Candidate{c}})
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(alone[0]-together[i]) > 1e-5 {
					t.Errorf("candidate %d scores %v in a batch, %v alone", i, together[i], alone[0])
				}
			}
			for _, p := range pairs {
				want := p.Logits[len(p.Logits)-1]
				if len(p.Logits) == 2 {
					want -= p.Logits[0]
				}
				q := &dataset.Question{ID: "q", Text: p.A, Candidates: []dataset.Candidate{{ID: "0", Text: p.B}}}
				var scores [2]float64
				for i, r := range []model.Model{m, saved} {
					got, err := r.Score(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					scores[i] = got[0]
					if math.Abs(got[0]-want) > 1e-4 {
						t.Errorf("model %d: score(%q, %q) = %v, want %v", i, p.A, p.B, got[0], want)
					}
				}
				if math.Abs(scores[0]-scores[1]) > 1e-5 {
					t.Errorf("score(%q, %q): %v after LoadHF, %v after Save and Load", p.A, p.B, scores[0], scores[1])
				}
			}
		})
	}
}

func TestLoadHFModernBERTUnknownArchitecture(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json"} {
		data, err := os.ReadFile(filepath.Join(modernbertData, "tiny-modernbert", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "config.json" {
			data = []byte(strings.Replace(string(data), "ModernBertForSequenceClassification", "ModernBertForTokenClassification", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LoadHF(dir); err == nil || !strings.Contains(err.Error(), `architecture "ModernBertForTokenClassification"`) {
		t.Errorf("error %v, want one naming the architecture", err)
	}
}

// Fine-tuning a ModernBERT checkpoint: the listwise loss's gradients reach
// every parameter, the encoder's (rotary, local and global attention,
// GeGLU) and the head's (pooler, its norm, the score), and agree with
// finite differences.
func TestModernBERTGradients(t *testing.T) {
	for _, name := range []string{"tiny-modernbert", "tiny-modernbert-mean"} {
		t.Run(name, func(t *testing.T) {
			m, err := LoadHF(filepath.Join(modernbertData, name))
			if err != nil {
				t.Fatal(err)
			}
			m.hyper.Dropout = 0
			q := &dataset.Question{ID: "q", Text: "Where is the Eiffel Tower?", Candidates: []dataset.Candidate{
				{ID: "a", Text: "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."},
				{ID: "b", Text: "Water boils at 100 degrees."},
				{ID: "c", Text: ""},
			}}
			in := m.prepare(q)
			loss := func(g *nn.Grads[float32]) float64 {
				tp := nn.NewTape(g, 0)
				l := tp.KLDiv(m.forward(tp, in, false), []float32{1, 0, 0})
				if g != nil {
					tp.Backward(l)
				}
				return l.Scalar()
			}
			g := m.Params().NewGrads()
			loss(g)
			for _, p := range m.Params().All() {
				if !slices.ContainsFunc(g.Of(p).Data, func(v float32) bool { return v != 0 }) {
					t.Errorf("no gradient reaches %s", p.Name)
				}
			}
			checkGradients(t, m, g, loss)
		})
	}
}
