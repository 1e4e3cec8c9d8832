package has

import (
	"math/rand/v2"
	"testing"

	"github.com/as2/as2/internal/testkit/tinydata"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

// TestGradLayers checks the hashing layer (equation 1, with the paper's
// derivative β(1 − B²)), the binary constraint (equation 2) and the
// composition layer against finite differences.
func TestGradLayers(t *testing.T) {
	code := nn.FromSlice([]float64{1, -1, 1, 1, -1, -1, 1, -1, 1, 1, -1, 1}, 3, 4)
	nntest.Run(t, []nntest.Case{
		{Name: "HashLayerBeta1", Inputs: [][]int{{3, 4}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			return hashLayer(tp, in[0], 1)
		})},
		{Name: "HashLayerBeta5", Inputs: [][]int{{3, 4}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			return hashLayer(tp, tp.Scale(in[0], 0.1), 5) // inside tanh's slope at β = 5
		})},
		{Name: "BinaryConstraint", Inputs: [][]int{{3, 4}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			return binaryConstraint(tp, hashLayer(tp, in[0], 2), code)
		})},
		{Name: "Attention", Inputs: [][]int{{5, 4}, {4}}, Build: func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
			n := &net[float64]{hyper: Hyper{AttnHidden: 3}}
			n.w1 = nn.NewLinear(ps, "w1", 4, 3, false, rng)
			n.w2 = nn.NewLinear(ps, "w2", 4, 3, false, rng)
			n.m = nn.NewLinear(ps, "m", 3, 1, false, rng)
			return func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
				return n.attend(tp, in[0], n.w2.Forward(tp, in[1]))
			}
		}},
	})
}

// TestGradients checks the gradients of the real code, at float64, against
// finite differences, for every mode: the BiLSTM, the hashing layer and its
// constraint (δ large enough to matter), the attention and the cosine, under
// a smooth loss (listwise; the hinge has kinks). Word dropout stays on:
// both passes draw the same masks.
func TestGradients(t *testing.T) {
	for name, h := range tinyHypers() {
		h.Delta = 0.05
		n, err := newNet(h, tinydata.Static[float64](t), 3)
		if err != nil {
			t.Fatal(err)
		}
		in := n.prepare(tinydata.Question())
		nntest.CheckParams(t, name, n.ps, func(tp *nn.Tape[float64]) *nn.Var[float64] {
			return n.loss(tp, in, func(s *nn.Var[float64]) *nn.Var[float64] { return tp.KLDiv(s, []float64{0, 1, 0, 0}) })
		})
	}
}
