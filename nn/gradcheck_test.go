package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// fwd64 is a computation under test: it reads the leaf inputs and any
// parameters it captured, and returns an output of any shape.
type fwd64 func(tp *Tape[float64], in []*Var[float64]) *Var[float64]

// gradCase describes one finite-difference check: random inputs of the given
// shapes, and a builder that may create parameters before returning the
// computation.
type gradCase struct {
	name   string
	inputs [][]int
	build  func(ps *Params[float64], rng *rand.Rand) fwd64
	// positive makes inputs strictly positive (e.g. for ops defined there).
	positive bool
}

// op adapts a parameter-free computation.
func op(f fwd64) func(*Params[float64], *rand.Rand) fwd64 {
	return func(*Params[float64], *rand.Rand) fwd64 { return f }
}

// gradcheck compares the tape's gradients of L = Σ r⊙f(inputs, params),
// for a fixed random r, with central differences, for every input element
// and every parameter element. Using a random projection rather than a plain
// sum also tests gradients that a sum would cancel (e.g. softmax's).
func gradcheck(t *testing.T, c gradCase) {
	t.Helper()
	const eps, tol = 1e-6, 1e-6
	rng := NewRNG(42)
	ps := NewParams[float64]()
	f := c.build(ps, rng)
	for _, p := range ps.All() { // perturb so that zero biases are tested too
		for i := range p.Value.Data {
			p.Value.Data[i] += 0.1 * rng.NormFloat64()
		}
	}
	ins := make([]*Tensor[float64], len(c.inputs))
	for i, sh := range c.inputs {
		ins[i] = NewTensor[float64](sh...)
		for j := range ins[i].Data {
			v := rng.NormFloat64()
			if c.positive {
				v = 0.1 + math.Abs(v)
			}
			ins[i].Data[j] = v
		}
	}

	// Analytic gradients.
	grads := ps.NewGrads()
	tp := NewTape(grads, 7)
	vars := make([]*Var[float64], len(ins))
	for i, x := range ins {
		vars[i] = tp.Leaf(x)
	}
	y := f(tp, vars)
	r := make([]float64, y.Value.Len())
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	tp.BackwardFrom(y, r)

	loss := func() float64 {
		tp := NewTape[float64](nil, 7) // same seed: same dropout masks
		vs := make([]*Var[float64], len(ins))
		for i, x := range ins {
			vs[i] = tp.Const(x)
		}
		y := f(tp, vs)
		s := 0.0
		for i, v := range y.Value.Data {
			s += r[i] * v
		}
		return s
	}
	check := func(what string, data, grad []float64) {
		t.Helper()
		worst := 0.0
		for i := range data {
			old := data[i]
			data[i] = old + eps
			lp := loss()
			data[i] = old - eps
			lm := loss()
			data[i] = old
			num := (lp - lm) / (2 * eps)
			// Relative error, with an absolute floor of tol·1e-2 for
			// near-zero gradients, where rounding in the loss (~1e-16·|L|/eps)
			// dominates the difference quotient.
			den := max(math.Abs(num), math.Abs(grad[i]), 1e-2)
			rel := math.Abs(num-grad[i]) / den
			worst = max(worst, rel)
			if rel > tol {
				t.Errorf("%s: %s[%d]: analytic %.10g, numeric %.10g (rel %.2g)", c.name, what, i, grad[i], num, rel)
				return
			}
		}
		if testing.Verbose() {
			t.Logf("%s: %s: %d values, worst rel err %.2g", c.name, what, len(data), worst)
		}
	}
	for i, x := range ins {
		check(fmt.Sprintf("input%d", i), x.Data, vars[i].Grad.Data)
	}
	for _, p := range ps.All() {
		check(p.Name, p.Value.Data, grads.Of(p).Data)
	}
}

func runGradChecks(t *testing.T, cases []gradCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { gradcheck(t, c) })
	}
}

func TestGradBasicOps(t *testing.T) {
	runGradChecks(t, []gradCase{
		{name: "MatMul", inputs: [][]int{{3, 4}, {4, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MatMul(in[0], in[1])
		})},
		{name: "MatMulVec", inputs: [][]int{{4}, {4, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MatMul(in[0], in[1])
		})},
		{name: "MatMulT", inputs: [][]int{{3, 4}, {5, 4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MatMulT(in[0], in[1])
		})},
		{name: "MatMulSelf", inputs: [][]int{{3, 3}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MatMul(in[0], in[0]) // a Var used twice accumulates both paths
		})},
		{name: "Linear", inputs: [][]int{{3, 4}, {4, 2}, {2}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Linear(in[0], in[1], in[2])
		})},
		{name: "LinearNoBias", inputs: [][]int{{4}, {4, 2}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Linear(in[0], in[1], nil)
		})},
		{name: "AddBias", inputs: [][]int{{3, 4}, {4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.AddBias(in[0], in[1])
		})},
		{name: "AddSubMul", inputs: [][]int{{2, 3}, {2, 3}, {2, 3}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Mul(tp.Add(in[0], in[1]), tp.Sub(in[2], in[0]))
		})},
		{name: "Scale", inputs: [][]int{{5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Scale(in[0], -2.5)
		})},
		{name: "ReLU", inputs: [][]int{{4, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ReLU(in[0])
		})},
		{name: "Tanh", inputs: [][]int{{4, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Tanh(in[0])
		})},
		{name: "Sigmoid", inputs: [][]int{{4, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Sigmoid(in[0])
		})},
		{name: "ConcatVec", inputs: [][]int{{3}, {2}, {4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Concat(in[0], in[1], in[2])
		})},
		{name: "ConcatMat", inputs: [][]int{{3, 2}, {3, 4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Concat(in[0], in[1])
		})},
		{name: "Stack", inputs: [][]int{{3}, {2, 3}, {3}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Stack(in[0], in[1], in[2])
		})},
		{name: "RowsRowSliceCols", inputs: [][]int{{5, 4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Concat(tp.Row(in[0], 3), tp.SliceCols(tp.Row(in[0], 1), 1, 3),
				tp.SliceCols(tp.Reshape(tp.Rows(in[0], 1, 3), 8), 2, 7))
		})},
		{name: "SliceColsMat", inputs: [][]int{{3, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SliceCols(in[0], 1, 4)
		})},
		{name: "ReverseRows", inputs: [][]int{{4, 3}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ReverseRows(in[0])
		})},
		{name: "Reshape", inputs: [][]int{{2, 6}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Tanh(tp.Reshape(in[0], 3, 4))
		})},
		{name: "SumMean", inputs: [][]int{{3, 4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Concat(tp.Sum(in[0]), tp.Mean(tp.Tanh(in[0])))
		})},
		{name: "Dropout", inputs: [][]int{{6, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Dropout(in[0], 0.3)
		})},
	})
}

func TestGradSoftmaxLosses(t *testing.T) {
	runGradChecks(t, []gradCase{
		{name: "SoftmaxVec", inputs: [][]int{{6}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Softmax(in[0])
		})},
		{name: "SoftmaxRows", inputs: [][]int{{3, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Softmax(in[0])
		})},
		{name: "ClipSoftmaxKMax", inputs: [][]int{{3, 6}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ClipSoftmax(in[0], 3, 0)
		})},
		{name: "ClipSoftmaxThreshold", inputs: [][]int{{4, 6}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ClipSoftmax(tp.Scale(in[0], 2), 0, 0.1)
		})},
		{name: "ClipSoftmaxVecKMax", inputs: [][]int{{8}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ClipSoftmax(in[0], 4, 0)
		})},
		{name: "LogSoftmaxRows", inputs: [][]int{{3, 5}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.LogSoftmax(in[0])
		})},
		{name: "KLDiv", inputs: [][]int{{6}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.KLDiv(in[0], []float64{0, 1, 0, 0, 1, 0})
		})},
		{name: "KLDivSoft", inputs: [][]int{{4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.KLDiv(tp.Scale(in[0], 3), []float64{0.2, 0.5, 0.1, 0.2})
		})},
		{name: "BCEWithLogits", inputs: [][]int{{6}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.BCEWithLogits(tp.Scale(in[0], 4), []float64{0, 1, 0, 1, 0.5, 0})
		})},
		{name: "Hinge", inputs: [][]int{{6}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Hinge(in[0], []float64{0, 1, 0, 0, 1, 0}, 1)
		})},
	})
}
