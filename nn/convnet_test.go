package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// convNet is a small network of the engine's usual pieces (convolution,
// max pooling, a BiRNN over the items, a linear scorer), used to test their
// composition end to end, in either precision.
type convNet[T Float] struct {
	convQ, convC *Conv1D[T]
	rnn          *Bidirectional[T]
	out          *Linear[T]
}

func newConvNet[T Float](ps *Params[T], d, filters, hidden int, rng *rand.Rand) *convNet[T] {
	return &convNet[T]{
		convQ: NewConv1D(ps, "conv_q", d, filters, 3, rng),
		convC: NewConv1D(ps, "conv_c", d, filters, 3, rng),
		rnn:   NewBiRNN(ps, "birnn", 2*filters, hidden, rng),
		out:   NewLinear(ps, "out", 2*hidden, 1, true, rng),
	}
}

// scores maps a question [Tq, d] and candidates [Tc_i, d] to one score each.
func (m *convNet[T]) scores(tp *Tape[T], q *Var[T], cands []*Var[T]) *Var[T] {
	// ReLU after the max pool: same result as before it, T times cheaper.
	qe := tp.ReLU(tp.MaxPool(m.convQ.Forward(tp, q)))
	pairs := make([]*Var[T], len(cands))
	for i, c := range cands {
		ce := tp.ReLU(tp.MaxPool(m.convC.Forward(tp, c)))
		pairs[i] = tp.Concat(tp.Mul(qe, ce), tp.Sub(qe, ce))
	}
	h := m.rnn.Forward(tp, tp.Stack(pairs...))
	return tp.Reshape(m.out.Forward(tp, h), len(cands))
}

func randomSeq(rng *rand.Rand, steps, d int) *Tensor[float64] {
	x := NewTensor[float64](steps, d)
	Normal(x, 1, rng)
	return x
}

// Float32 and float64 runs of the same model agree to float32 precision.
func TestFloat32MatchesFloat64(t *testing.T) {
	rng := NewRNG(3)
	ps64 := NewParams[float64]()
	m64 := newConvNet(ps64, 8, 16, 6, rng)
	ps32 := NewParams[float32]()
	m32 := newConvNet(ps32, 8, 16, 6, NewRNG(99))
	if err := CopyParams(ps32, ps64); err != nil {
		t.Fatal(err)
	}
	q := randomSeq(rng, 5, 8)
	cs := []*Tensor[float64]{randomSeq(rng, 7, 8), randomSeq(rng, 2, 8), randomSeq(rng, 9, 8)}
	gold := []float64{0, 1, 1}

	g64 := ps64.NewGrads()
	tp64 := NewTape(g64, 0)
	var c64 []*Var[float64]
	for _, c := range cs {
		c64 = append(c64, tp64.Const(c))
	}
	s64 := m64.scores(tp64, tp64.Const(q), c64)
	l64 := tp64.KLDiv(s64, gold)
	tp64.Backward(l64)

	g32 := ps32.NewGrads()
	tp32 := NewTape(g32, 0)
	var c32 []*Var[float32]
	for _, c := range cs {
		c32 = append(c32, tp32.Const(Convert[float32](c)))
	}
	s32 := m32.scores(tp32, tp32.Const(Convert[float32](q)), c32)
	l32 := tp32.KLDiv(s32, []float32{0, 1, 1})
	tp32.Backward(l32)

	close := func(what string, a []float32, b []float64) {
		t.Helper()
		for i := range b {
			if d := math.Abs(float64(a[i]) - b[i]); d > 1e-4*max(1, math.Abs(b[i])) {
				t.Fatalf("%s[%d]: float32 %g, float64 %g", what, i, a[i], b[i])
			}
		}
	}
	close("scores", s32.Value.Data, s64.Value.Data)
	close("loss", l32.Value.Data, l64.Value.Data)
	for _, p := range ps64.All() {
		close("grad "+p.Name, g32.Of(ps32.Get(p.Name)).Data, g64.Of(p).Data)
	}
}
