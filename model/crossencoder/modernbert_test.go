package crossencoder

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/nn"
)

const modernbertData = "../../encoder/modernbert/testdata"

// The ModernBERT checkpoints rank as their PyTorch reference scores them
// (scripts/reference/modernbert-reference.py), through head.dense, its
// GELU and head.norm over [CLS] or the mean of the states, and so do
// their model files.
func TestLoadHFModernBERT(t *testing.T) {
	checkLoadHF(t, modernbertData, []string{"tiny-modernbert", "tiny-modernbert-mean"}, true)
}

func TestLoadHFModernBERTUnknownArchitecture(t *testing.T) {
	checkLoadHFErrors(t, filepath.Join(modernbertData, "tiny-modernbert"), []string{"config.json", "model.safetensors", "tokenizer.json"}, []hfEdit{
		{"architecture", "ModernBertForSequenceClassification", "ModernBertForTokenClassification", `architecture "ModernBertForTokenClassification"`},
	})
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
