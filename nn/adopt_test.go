package nn_test

import (
	"testing"

	"github.com/as2/as2/nn"
)

// A model that adopts a sub-network's parameters trains them: the
// sub-network's own layers receive gradients in the model's Grads, under
// the prefixed names.
func TestParamsAdopt(t *testing.T) {
	rng := nn.NewRNG(1)
	sub := nn.NewParams[float64]()
	lin := nn.NewLinear(sub, "lin", 3, 2, true, rng)
	ps := nn.NewParams[float64]()
	out := nn.NewLinear(ps, "out", 2, 1, true, rng)
	if err := ps.Adopt("encoder.", sub); err != nil {
		t.Fatal(err)
	}
	if len(sub.All()) != 0 {
		t.Errorf("the adopted set still holds %d parameters", len(sub.All()))
	}
	for _, name := range []string{"out.weight", "out.bias", "encoder.lin.weight", "encoder.lin.bias"} {
		if ps.Get(name) == nil {
			t.Errorf("no parameter %s after Adopt", name)
		}
	}
	if ps.Get("encoder.lin.weight") != lin.W {
		t.Error("Adopt copied the parameter instead of moving it")
	}
	g := ps.NewGrads()
	tp := nn.NewTape(g, 0)
	x := tp.Const(nn.FromSlice([]float64{1, 2, 3}, 1, 3))
	tp.Backward(tp.Sum(out.Forward(tp, lin.Forward(tp, x))))
	if g.Norm() == 0 || g.Of(lin.W).Data[0] == 0 {
		t.Error("the adopted parameters got no gradient")
	}

	// A clash is an error and changes nothing.
	other := nn.NewParams[float64]()
	other.New("lin.weight", 1)
	if err := ps.Adopt("encoder.", other); err == nil {
		t.Error("Adopt accepted a duplicate name")
	}
	if len(other.All()) != 1 || len(ps.All()) != 4 {
		t.Error("a failed Adopt changed the sets")
	}
	if err := ps.Adopt("", ps); err == nil {
		t.Error("a set adopted itself")
	}
}

// A parameter of another set is a constant on a tape whose Grads are not
// its set's: a frozen sub-network.
func TestParamOfAnotherSet(t *testing.T) {
	rng := nn.NewRNG(1)
	frozen := nn.NewParams[float64]()
	lin := nn.NewLinear(frozen, "lin", 3, 2, true, rng)
	ps := nn.NewParams[float64]()
	out := nn.NewLinear(ps, "out", 2, 1, true, rng)
	g := ps.NewGrads()
	tp := nn.NewTape(g, 0)
	x := tp.Const(nn.FromSlice([]float64{1, 2, 3}, 1, 3))
	tp.Backward(tp.Sum(out.Forward(tp, lin.Forward(tp, x))))
	if g.Of(out.W).Data[0] == 0 {
		t.Error("the model's own parameters got no gradient")
	}
}
