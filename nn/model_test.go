package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGradLayers(t *testing.T) {
	seqCase := func(name string, mk func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64]) gradCase {
		return gradCase{name: name, inputs: [][]int{{4, 3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			l := mk(ps, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return l.Forward(tp, in[0]) }
		}}
	}
	runGradChecks(t, []gradCase{
		{name: "LinearLayer", inputs: [][]int{{2, 3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			l := NewLinear(ps, "lin", 3, 4, true, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return l.Forward(tp, in[0]) }
		}},
		{name: "Conv1DLayerMaxPool", inputs: [][]int{{6, 3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			c := NewConv1D(ps, "conv", 3, 5, 5, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				return tp.MaxPool(tp.ReLU(c.Forward(tp, in[0])))
			}
		}},
		{name: "EmbeddingLayer", build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			e := NewEmbedding(ps, "emb", 6, 3, false, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return e.Forward(tp, []int{1, 4, 1, -1}) }
		}},
		seqCase("RNN", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewRNN(ps, "rnn", 3, 4, rng) }),
		seqCase("GRU", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewGRU(ps, "gru", 3, 4, rng) }),
		seqCase("LSTM", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewLSTM(ps, "lstm", 3, 4, rng) }),
		seqCase("BiRNN", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewBiRNN(ps, "birnn", 3, 4, rng) }),
		seqCase("BiGRU", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewBiGRU(ps, "bigru", 3, 2, rng) }),
		seqCase("BiLSTM", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewBiLSTM(ps, "bilstm", 3, 2, rng) }),
		{name: "Cells", inputs: [][]int{{3}, {3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			r, g, l := NewRNN(ps, "rnn", 3, 2, rng), NewGRU(ps, "gru", 3, 2, rng), NewLSTM(ps, "lstm", 3, 2, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				h := r.Cell(tp, in[1], r.Cell(tp, in[0], nil))
				hg := g.Cell(tp, in[1], g.Cell(tp, in[0], nil))
				hl, cl := l.Cell(tp, in[0], nil, nil)
				hl, cl = l.Cell(tp, in[1], hl, cl)
				return tp.Concat(h, hg, hl, cl)
			}
		}},
		{name: "LayerNorm", inputs: [][]int{{3, 5}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			l := NewLayerNorm(ps, "ln", 5)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return l.Forward(tp, in[0]) }
		}},
		{name: "LayerNormBare", inputs: [][]int{{2, 4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.LayerNorm(in[0], nil, nil, 1e-5)
		})},
	})
}

func TestGradAttention(t *testing.T) {
	runGradChecks(t, []gradCase{
		{name: "RowNormalize", inputs: [][]int{{3, 4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.RowNormalize(in[0])
		})},
		{name: "CosineSim", inputs: [][]int{{3, 4}, {5, 4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.CosineSim(in[0], in[1])
		})},
		{name: "CosineRowMax", inputs: [][]int{{3, 4}, {5, 4}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			s := tp.CosineSim(in[0], in[1])
			return tp.Concat(tp.RowMax(s), tp.RowMax(tp.Transpose(s)))
		})},
		{name: "Attention", inputs: [][]int{{3, 4}, {5, 4}, {5, 2}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			out, _ := tp.Attention(in[0], in[1], in[2], 0)
			return out
		})},
		{name: "ClipAttentionKMax", inputs: [][]int{{4, 3}, {6, 3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			wk := NewLinear(ps, "key", 3, 3, true, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				return tp.ClipAttention(in[0], in[1], wk.Forward(tp, in[1]), 2, 0)
			}
		}},
		{name: "ClipAttentionThreshold", inputs: [][]int{{4, 3}, {6, 3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			wk := NewLinear(ps, "key", 3, 3, true, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				return tp.ClipAttention(in[0], in[1], tp.Scale(wk.Forward(tp, in[1]), 3), 0, 0.15)
			}
		}},
		{name: "ClipAttentionSoftmax", inputs: [][]int{{2, 3}, {5, 3}, {5, 3}}, build: op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ClipAttention(in[0], in[1], in[2], 0, 0)
		})},
		{name: "LatentClusters", inputs: [][]int{{5, 3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			lc := NewLatentClusters(ps, "lc", 3, 4, 6, 3, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				return lc.Forward(tp, tp.MeanPool(in[0]))
			}
		}},
		{name: "SelfAttentionProjected", inputs: [][]int{{4, 3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			wq, wk, wv := NewLinear(ps, "q", 3, 2, false, rng), NewLinear(ps, "k", 3, 2, false, rng), NewLinear(ps, "v", 3, 3, true, rng)
			ln := NewLayerNorm(ps, "ln", 3)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				x := in[0]
				a, w := tp.Attention(wq.Forward(tp, x), wk.Forward(tp, x), wv.Forward(tp, x), 1)
				return tp.Concat(ln.Forward(tp, tp.Add(x, a)), w)
			}
		}},
	})
}

// cosinet is a small Cosinet-like model (Bonadiman & Moschitti 2020) used to
// test the composition of every piece end to end, in either precision.
type cosinet[T Float] struct {
	convQ, convC *Conv1D[T]
	rnn          *Bidirectional[T]
	out          *Linear[T]
}

func newCosinet[T Float](ps *Params[T], d, filters, hidden int, rng *rand.Rand) *cosinet[T] {
	return &cosinet[T]{
		convQ: NewConv1D(ps, "conv_q", d, filters, 3, rng),
		convC: NewConv1D(ps, "conv_c", d, filters, 3, rng),
		rnn:   NewBiRNN(ps, "birnn", 2*filters, hidden, rng),
		out:   NewLinear(ps, "out", 2*hidden, 1, true, rng),
	}
}

// scores maps a question [Tq, d] and candidates [Tc_i, d] to one score each.
func (m *cosinet[T]) scores(tp *Tape[T], q *Var[T], cands []*Var[T]) *Var[T] {
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

func TestGradCosinet(t *testing.T) {
	runGradChecks(t, []gradCase{
		{name: "CosinetKL", inputs: [][]int{{3, 4}, {5, 4}, {1, 4}, {2, 4}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
			m := newCosinet(ps, 4, 3, 2, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				return tp.KLDiv(m.scores(tp, in[0], in[1:]), []float64{0, 1, 0})
			}
		}},
	})
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
	m64 := newCosinet(ps64, 8, 16, 6, rng)
	ps32 := NewParams[float32]()
	m32 := newCosinet(ps32, 8, 16, 6, NewRNG(99))
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

// TestGradCompareAggregate checks a small Comp-Clip with latent clustering
// (Comp-Clip paper, equations 1-6) end to end: context representation,
// clipped attention both ways, comparison, CNN aggregation with two widths,
// and the cluster vectors added to the pooled filters.
func TestGradCompareAggregate(t *testing.T) {
	runGradChecks(t, []gradCase{{name: "CompClipLC", inputs: [][]int{{4, 3}, {5, 3}, {3, 3}}, build: func(ps *Params[float64], rng *rand.Rand) fwd64 {
		gate, update := NewLinear(ps, "gate", 3, 4, true, rng), NewLinear(ps, "update", 3, 4, true, rng)
		keyQ, keyA := NewLinear(ps, "kq", 4, 4, true, rng), NewLinear(ps, "ka", 4, 4, true, rng)
		convA := []*Conv1D[float64]{NewConv1D(ps, "ca1", 4, 2, 1, rng), NewConv1D(ps, "ca2", 4, 2, 2, rng)}
		convQ := []*Conv1D[float64]{NewConv1D(ps, "cq1", 4, 2, 1, rng), NewConv1D(ps, "cq2", 4, 2, 2, rng)}
		lc := NewLatentClusters(ps, "lc", 4, 4, 5, 3, rng)
		toA, toQ := NewLinear(ps, "toa", 4, 4, false, rng), NewLinear(ps, "toq", 4, 4, false, rng)
		out := NewLinear(ps, "out", 8, 1, true, rng)
		ctx := func(tp *Tape[float64], x *Var[float64]) *Var[float64] {
			return tp.Mul(tp.Sigmoid(gate.Forward(tp, x)), tp.Tanh(update.Forward(tp, x)))
		}
		agg := func(tp *Tape[float64], convs []*Conv1D[float64], c *Var[float64]) *Var[float64] {
			return tp.Concat(tp.MaxPool(convs[0].Forward(tp, c)), tp.MaxPool(convs[1].Forward(tp, c)))
		}
		return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			q := ctx(tp, in[0])
			var pairs []*Var[float64]
			for _, c := range in[1:] {
				a := ctx(tp, c)
				ra := agg(tp, convA, tp.Mul(a, tp.ClipAttention(a, q, keyQ.Forward(tp, q), 2, 0)))
				ra = tp.ReLU(tp.Add(ra, toA.Forward(tp, lc.Forward(tp, tp.MeanPool(q)))))
				rq := agg(tp, convQ, tp.Mul(q, tp.ClipAttention(q, a, keyA.Forward(tp, a), 0, 0.2)))
				rq = tp.ReLU(tp.Add(rq, toQ.Forward(tp, lc.Forward(tp, tp.MeanPool(a)))))
				pairs = append(pairs, tp.Concat(rq, ra))
			}
			return tp.KLDiv(tp.Reshape(out.Forward(tp, tp.Stack(pairs...)), 2), []float64{1, 0})
		}
	}}})
}
