// Package nntest checks gradients for tests: the tape's gradients of a
// computation against central finite differences in float64, for every
// input and parameter element. nn's own ops and the architectures' real
// forward passes (instantiated at float64) are checked with it. Only tests
// import it.
package nntest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/as2/as2/nn"
)

// Forward is a computation under test: it reads the leaf inputs and any
// parameters it captured, and returns an output of any shape.
type Forward func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64]

// Case describes one finite-difference check: random inputs of the given
// shapes, and a builder that may create parameters before returning the
// computation.
type Case struct {
	Name   string
	Inputs [][]int
	Build  func(ps *nn.Params[float64], rng *rand.Rand) Forward
	// positive makes inputs strictly positive (e.g. for ops defined there).
	Positive bool
}

// op adapts a parameter-free computation.
func Op(f Forward) func(*nn.Params[float64], *rand.Rand) Forward {
	return func(*nn.Params[float64], *rand.Rand) Forward { return f }
}

// GradCheck compares the tape's gradients of L = Σ r⊙f(inputs, params),
// for a fixed random r, with central differences, for every input element
// and every parameter element. Using a random projection rather than a plain
// sum also tests gradients that a sum would cancel (e.g. softmax's).
func GradCheck(t *testing.T, c Case) {
	t.Helper()
	rng := nn.NewRNG(42)
	ps := nn.NewParams[float64]()
	f := c.Build(ps, rng)
	perturb(ps, rng)
	ins := make([]*nn.Tensor[float64], len(c.Inputs))
	for i, sh := range c.Inputs {
		ins[i] = nn.NewTensor[float64](sh...)
		for j := range ins[i].Data {
			v := rng.NormFloat64()
			if c.Positive {
				v = 0.1 + math.Abs(v)
			}
			ins[i].Data[j] = v
		}
	}
	check(t, c.Name, ps, ins, f, rng)
}

// CheckParams is GradCheck for a model's own parameters: f computes the
// model's output (e.g. its loss) from them alone, on the given tape. The
// parameters are perturbed first, as GradCheck does.
func CheckParams(t *testing.T, name string, ps *nn.Params[float64], f func(tp *nn.Tape[float64]) *nn.Var[float64]) {
	t.Helper()
	rng := nn.NewRNG(42)
	perturb(ps, rng)
	check(t, name, ps, nil, func(tp *nn.Tape[float64], _ []*nn.Var[float64]) *nn.Var[float64] { return f(tp) }, rng)
}

// perturb moves every parameter a little, so that zero-initialised biases
// are tested too, and no ReLU or max sits exactly on its kink (with zero
// biases, an all-zero input row gives exactly 0, where a central difference
// averages the two one-sided slopes).
func perturb(ps *nn.Params[float64], rng *rand.Rand) {
	for _, p := range ps.All() {
		for i := range p.Value.Data {
			p.Value.Data[i] += 0.1 * rng.NormFloat64()
		}
	}
}

func check(t *testing.T, name string, ps *nn.Params[float64], ins []*nn.Tensor[float64], f Forward, rng *rand.Rand) {
	t.Helper()
	const eps, tol = 1e-6, 1e-6
	// Analytic gradients.
	grads := ps.NewGrads()
	tp := nn.NewTape(grads, 7)
	vars := make([]*nn.Var[float64], len(ins))
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
		tp := nn.NewTape[float64](nil, 7) // same seed: same dropout masks
		vs := make([]*nn.Var[float64], len(ins))
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
				t.Errorf("%s: %s[%d]: analytic %.10g, numeric %.10g (rel %.2g)", name, what, i, grad[i], num, rel)
				return
			}
		}
		if testing.Verbose() {
			t.Logf("%s: %s: %d values, worst rel err %.2g", name, what, len(data), worst)
		}
	}
	for i, x := range ins {
		check(fmt.Sprintf("input%d", i), x.Data, vars[i].Grad.Data)
	}
	for _, p := range ps.All() {
		check(p.Name, p.Value.Data, grads.Of(p).Data)
	}
}

// Run checks each case in a subtest of its name.
func Run(t *testing.T, cases []Case) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { GradCheck(t, c) })
	}
}

// Close fails t unless got and want have the same length and every value
// of got is within tol of want's: for outputs compared with a reference
// implementation, or across two paths through the same model.
func Close[T nn.Float | float64](t testing.TB, what string, got, want []T, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - float64(want[i])); d > tol || math.IsNaN(d) {
			t.Fatalf("%s: value %d is %v, want %v (tolerance %g)", what, i, got[i], want[i], tol)
		}
	}
}
