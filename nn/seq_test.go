package nn_test

import (
	"math/rand/v2"
	"testing"

	. "github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

func TestGradSequenceOps(t *testing.T) {
	conv := func(k, pad int, bias bool, pool string) func(*Params[float64], *rand.Rand) nntest.Forward {
		return nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			var b *Var[float64]
			if bias {
				b = in[2]
			}
			y := tp.Conv1d(in[0], in[1], b, k, pad)
			switch pool {
			case "max": // sparse weight-gradient path
				return tp.MaxPool(tp.ReLU(y))
			case "kmax":
				return tp.KMaxPool(tp.Tanh(y), 2)
			}
			return y // dense path
		})
	}
	nntest.Run(t, []nntest.Case{
		{Name: "Embedding", Inputs: [][]int{{5, 3}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Embedding(in[0], []int{2, 0, -1, 2})
		})},
		{Name: "Conv1dSame", Inputs: [][]int{{4, 3}, {5, 9}, {5}}, Build: conv(3, 1, true, "")},
		{Name: "Conv1dValidNoBias", Inputs: [][]int{{6, 2}, {4, 6}}, Build: conv(3, 0, false, "")},
		{Name: "Conv1dFull", Inputs: [][]int{{3, 2}, {4, 8}, {4}}, Build: conv(4, 3, true, "")},
		{Name: "Conv1dLen1", Inputs: [][]int{{1, 3}, {4, 15}, {4}}, Build: conv(5, 2, true, "")},
		{Name: "Conv1dMaxPoolSparse", Inputs: [][]int{{7, 3}, {6, 15}, {6}}, Build: conv(5, 2, true, "max")},
		{Name: "Conv1dKMaxPool", Inputs: [][]int{{5, 2}, {3, 6}, {3}}, Build: conv(3, 1, true, "kmax")},
		{Name: "MaxPool", Inputs: [][]int{{5, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MaxPool(in[0])
		})},
		{Name: "MeanPool", Inputs: [][]int{{5, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MeanPool(in[0])
		})},
		{Name: "KMaxPool", Inputs: [][]int{{6, 3}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.KMaxPool(in[0], 3)
		})},
		{Name: "KMaxPoolShort", Inputs: [][]int{{2, 3}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.KMaxPool(in[0], 3)
		})},
	})
}

// The sparse and dense weight-gradient paths of Conv1d must agree.
func TestConv1dSparseMatchesDense(t *testing.T) {
	rng := NewRNG(1)
	x := NewTensor[float64](9, 4)
	w := NewTensor[float64](8, 12)
	Normal(x, 1, rng)
	Normal(w, 1, rng)
	grad := func(dense bool) (*Tensor[float64], *Tensor[float64]) {
		tp := NewTape[float64](nil, 0)
		xv, wv := tp.Leaf(x), tp.Leaf(w)
		y := tp.Conv1d(xv, wv, nil, 3, 1)
		loss := tp.Sum(tp.MaxPool(y))
		if dense { // a negligible term everywhere makes dy dense
			loss = tp.Add(loss, tp.Scale(tp.Sum(y), 1e-300))
		}
		tp.Backward(loss)
		return xv.Grad, wv.Grad
	}
	xs, ws := grad(false)
	xd, wd := grad(true)
	for i := range ws.Data {
		if d := ws.Data[i] - wd.Data[i]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("dW[%d]: sparse %g, dense %g", i, ws.Data[i], wd.Data[i])
		}
	}
	for i := range xs.Data {
		if d := xs.Data[i] - xd.Data[i]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("dx[%d]: sparse %g, dense %g", i, xs.Data[i], xd.Data[i])
		}
	}
}
