package has

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
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
		n, err := newNet(h, encodertest.Static[float64](t), 3)
		if err != nil {
			t.Fatal(err)
		}
		in := n.prepare(encodertest.Question())
		nntest.CheckParams(t, name, n.ps, func(tp *nn.Tape[float64]) *nn.Var[float64] {
			return n.loss(tp, in, func(s *nn.Var[float64]) *nn.Var[float64] { return tp.KLDiv(s, []float64{0, 1, 0, 0}) })
		})
	}
}

// TestGradientsFineTune checks the gradients with layer none and a
// fine-tuned encoder (the paper's setting over BERT), the encoder's own
// weights (adopted as encoder.*) among them, for every mode.
func TestGradientsFineTune(t *testing.T) {
	for name, h := range tinyHypers() {
		h.Delta, h.Layer, h.FineTune = 0.05, LayerNone, true
		n, err := newNet(h, encodertest.NewProjected[float64](t), 3)
		if err != nil {
			t.Fatal(name, err)
		}
		if n.ps.Get(encoder.TensorPrefix+"proj.weight") == nil {
			t.Fatalf("%s: the encoder's weights were not adopted", name)
		}
		in := n.prepare(encodertest.Question())
		if in.Text.States != nil {
			t.Fatalf("%s: a fine-tuned encoder's states were frozen", name)
		}
		nntest.CheckParams(t, name, n.ps, func(tp *nn.Tape[float64]) *nn.Var[float64] {
			return n.loss(tp, in, func(s *nn.Var[float64]) *nn.Var[float64] { return tp.KLDiv(s, []float64{0, 1, 0, 0}) })
		})
	}
}

// TestHashSTE checks the straight-through hashing layer, which has no
// finite-difference gradient (sgn is flat): forward it gives sgn(V), as
// the test-time layer does, and backward exactly what the tanh layer
// passes back for the same output gradient.
func TestHashSTE(t *testing.T) {
	v := nn.FromSlice([]float64{0.3, -0.02, 0, -1.5, 0.07, 2}, 2, 3)
	g := []float64{0.5, -1, 2, 0.25, -0.75, 1}
	backward := func(layer func(tp *nn.Tape[float64], x *nn.Var[float64], beta float64) *nn.Var[float64]) (out, grad []float64) {
		tp := nn.NewTape[float64](nil, 1)
		x := tp.Leaf(v)
		y := layer(tp, x, 5)
		tp.BackwardFrom(y, g)
		return y.Value.Data, x.Grad.Data
	}
	out, grad := backward(hashSTE[float64])
	_, want := backward(hashLayer[float64])
	if got, signs := out, signs(v).Data; !slices.Equal(got, signs) {
		t.Errorf("forward: got %v, want sgn(V) %v", got, signs)
	}
	for i := range want {
		if math.Abs(grad[i]-want[i]) > 1e-12 {
			t.Errorf("gradient %d: got %v, the tanh layer's %v", i, grad[i], want[i])
		}
	}
	if slices.Equal(grad, make([]float64, len(grad))) {
		t.Error("no gradient passed back")
	}
}

// TestHashSTEHyper checks that the straight-through form trains (a step
// lowers nothing to NaN) and refuses a binary constraint it would make 0.
func TestHashSTEHyper(t *testing.T) {
	h := tinyHypers()[Hash]
	h.HashTrain = HashSTE
	if _, err := New(h, encodertest.Static[float32](t), 1); err == nil || !strings.Contains(err.Error(), "δ") {
		t.Errorf("ste with δ %v: got error %v, want one about δ", h.Delta, err)
	}
	h.Delta = 0
	n, err := newNet(h, encodertest.Static[float64](t), 3)
	if err != nil {
		t.Fatal(err)
	}
	in := n.prepare(encodertest.Question())
	grads := n.ps.NewGrads()
	tp := nn.NewTape(grads, 1)
	l := n.loss(tp, in, func(s *nn.Var[float64]) *nn.Var[float64] { return tp.KLDiv(s, []float64{0, 1, 0, 0}) })
	tp.Backward(l)
	if norm := grads.Norm(); !(norm > 0) || math.IsInf(norm, 0) {
		t.Errorf("gradient norm %v, want finite and positive", norm)
	}
	h.Mode = Attention
	if _, err := New(h, encodertest.Static[float32](t), 1); err == nil || !strings.Contains(err.Error(), "hashing layer") {
		t.Errorf("ste in mode attention: got error %v, want one saying it has no hashing layer", err)
	}
	h.Mode, h.HashTrain = Hash, "sign"
	if _, err := New(h, encodertest.Static[float32](t), 1); err == nil {
		t.Error("hash training \"sign\": no error")
	}
}
