package compagg

import (
	"math/rand/v2"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

// TestGradLayers checks the compare-aggregate layers against finite
// differences.
func TestGradLayers(t *testing.T) {
	nntest.Run(t, []nntest.Case{
		{Name: "ClipAttentionKMax", Inputs: [][]int{{4, 3}, {6, 3}}, Build: func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
			wk := nn.NewLinear(ps, "key", 3, 3, true, rng)
			return func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
				return clipAttention(tp, in[0], in[1], wk.Forward(tp, in[1]), 2, 0)
			}
		}},
		{Name: "ClipAttentionThreshold", Inputs: [][]int{{4, 3}, {6, 3}}, Build: func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
			wk := nn.NewLinear(ps, "key", 3, 3, true, rng)
			return func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
				return clipAttention(tp, in[0], in[1], tp.Scale(wk.Forward(tp, in[1]), 3), 0, 0.15)
			}
		}},
		{Name: "ClipAttentionSoftmax", Inputs: [][]int{{2, 3}, {5, 3}, {5, 3}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			return clipAttention(tp, in[0], in[1], in[2], 0, 0)
		})},
		{Name: "LatentClusters", Inputs: [][]int{{5, 3}}, Build: func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
			lc := newLatentClusters(ps, "lc", 3, 4, 6, 3, rng)
			return func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
				return lc.Forward(tp, tp.MeanPool(in[0]))
			}
		}},
	})
}

// TestGradients checks the gradients of the real code, instantiated at
// float64, against finite differences, for every variant of tinyHypers:
// context representation, clipped attention both ways, comparison, CNN
// aggregation, latent clustering, the RNN and the scorer, under the
// listwise loss. Dropout stays on: both passes draw the same masks.
func TestGradients(t *testing.T) {
	for name, h := range tinyHypers() {
		m, err := newNet(h, encodertest.Static[float64](t), 3)
		if err != nil {
			t.Fatal(err)
		}
		in := m.prepare(encodertest.Question())
		nntest.CheckParams(t, name, m.ps, func(tp *nn.Tape[float64]) *nn.Var[float64] {
			return tp.KLDiv(m.forward(tp, in, false), []float64{0, 1, 0, 0})
		})
	}
}
