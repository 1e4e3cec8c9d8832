package nn_test

import (
	"math/rand/v2"
	"testing"

	. "github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

func TestGradLayers(t *testing.T) {
	seqCase := func(name string, mk func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64]) nntest.Case {
		return nntest.Case{Name: name, Inputs: [][]int{{4, 3}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			l := mk(ps, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return l.Forward(tp, in[0]) }
		}}
	}
	nntest.Run(t, []nntest.Case{
		{Name: "LinearLayer", Inputs: [][]int{{2, 3}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			l := NewLinear(ps, "lin", 3, 4, true, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return l.Forward(tp, in[0]) }
		}},
		{Name: "Conv1DLayerMaxPool", Inputs: [][]int{{6, 3}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			c := NewConv1D(ps, "conv", 3, 5, 5, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				return tp.MaxPool(tp.ReLU(c.Forward(tp, in[0])))
			}
		}},
		{Name: "EmbeddingLayer", Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			e := NewEmbedding(ps, "emb", 6, 3, false, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return e.Forward(tp, []int{1, 4, 1, -1}) }
		}},
		seqCase("RNN", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewRNN(ps, "rnn", 3, 4, rng) }),
		seqCase("GRU", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewGRU(ps, "gru", 3, 4, rng) }),
		seqCase("LSTM", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewLSTM(ps, "lstm", 3, 4, rng) }),
		seqCase("BiRNN", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewBiRNN(ps, "birnn", 3, 4, rng) }),
		seqCase("BiGRU", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewBiGRU(ps, "bigru", 3, 2, rng) }),
		seqCase("BiLSTM", func(ps *Params[float64], rng *rand.Rand) SeqLayer[float64] { return NewBiLSTM(ps, "bilstm", 3, 2, rng) }),
		{Name: "Cells", Inputs: [][]int{{3}, {3}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			r, g, l := NewRNN(ps, "rnn", 3, 2, rng), NewGRU(ps, "gru", 3, 2, rng), NewLSTM(ps, "lstm", 3, 2, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				h := r.Cell(tp, in[1], r.Cell(tp, in[0], nil))
				hg := g.Cell(tp, in[1], g.Cell(tp, in[0], nil))
				hl, cl := l.Cell(tp, in[0], nil, nil)
				hl, cl = l.Cell(tp, in[1], hl, cl)
				return tp.Concat(h, hg, hl, cl)
			}
		}},
		{Name: "LayerNorm", Inputs: [][]int{{3, 5}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			l := NewLayerNorm(ps, "ln", 5)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return l.Forward(tp, in[0]) }
		}},
		{Name: "LayerNormBare", Inputs: [][]int{{2, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.LayerNorm(in[0], nil, nil, 1e-5)
		})},
	})
}

func TestGradAttention(t *testing.T) {
	nntest.Run(t, []nntest.Case{
		{Name: "RowNormalize", Inputs: [][]int{{3, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.RowNormalize(in[0])
		})},
		{Name: "CosineSim", Inputs: [][]int{{3, 4}, {5, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.CosineSim(in[0], in[1])
		})},
		{Name: "CosineRowMax", Inputs: [][]int{{3, 4}, {5, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			s := tp.CosineSim(in[0], in[1])
			return tp.Concat(tp.RowMax(s), tp.RowMax(tp.Transpose(s)))
		})},
		{Name: "Attention", Inputs: [][]int{{3, 4}, {5, 4}, {5, 2}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			out, _ := tp.Attention(in[0], in[1], in[2], 0)
			return out
		})},
		{Name: "SelfAttentionProjected", Inputs: [][]int{{4, 3}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
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
