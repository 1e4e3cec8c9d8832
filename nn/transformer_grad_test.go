package nn_test

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

func TestGradTransformerOps(t *testing.T) {
	negInf := math.Inf(-1)
	nntest.Run(t, []nntest.Case{
		{Name: "GELU", Inputs: [][]int{{4, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.GELU(tp.Scale(in[0], 2))
		})},
		{Name: "GELUTanh", Inputs: [][]int{{4, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.GELUTanh(tp.Scale(in[0], 2))
		})},
		{Name: "ActivateReLU", Inputs: [][]int{{3, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Activate(in[0], ActReLU)
		})},
		{Name: "SoftmaxMaskedVec", Inputs: [][]int{{3, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SoftmaxMasked(in[0], FromSlice([]float64{0, negInf, 0.5, -1, negInf}))
		})},
		{Name: "SoftmaxMaskedFull", Inputs: [][]int{{3, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SoftmaxMasked(in[0], FromSlice([]float64{
				0, 0, negInf, 0,
				negInf, negInf, negInf, negInf, // every column masked: zeros
				-10000, 0, 1, 0,
			}, 3, 4))
		})},
		{Name: "SoftmaxKeyPadding", Inputs: [][]int{{6, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SoftmaxKeyPadding(in[0], []int{3, 0, 4})
		})},
		{Name: "MultiHeadAttention", Inputs: [][]int{{6, 4}, {8, 4}, {8, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MultiHeadAttention(in[0], in[1], in[2], 2, AttentionMask{Batch: 2, KeyLens: []int{3, 1}})
		})},
		{Name: "MultiHeadAttentionCausal", Inputs: [][]int{{4, 6}, {4, 6}, {4, 6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MultiHeadAttention(in[0], in[1], in[2], 3, AttentionMask{Causal: true})
		})},
		{Name: "MultiHeadAttentionEmptyKeys", Inputs: [][]int{{4, 4}, {4, 4}, {4, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MultiHeadAttention(in[0], in[1], in[2], 1, AttentionMask{Batch: 2, KeyLens: []int{0, 2}})
		})},
		{Name: "SelfAttentionQKV", Inputs: [][]int{{6, 12}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SelfAttentionQKV(in[0], 2, AttentionMask{Batch: 2, KeyLens: []int{2, 3}}, 0)
		})},
		{Name: "SelfAttentionQKVDropout", Inputs: [][]int{{5, 6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SelfAttentionQKV(in[0], 2, AttentionMask{}, 0.3)
		})},
		{Name: "AddPositions", Inputs: [][]int{{6, 3}, {4, 3}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.AddPositions(in[0], in[1], 3)
		})},
		{Name: "LinearCols", Inputs: [][]int{{3, 4}, {4, 6}, {6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.LinearColsForTest(in[0], in[1], in[2], 2, 5)
		})},
	})
}

func TestGradTransformerLayers(t *testing.T) {
	padded := AttentionMask{Batch: 2, KeyLens: []int{3, 2}}
	layer := func(cfg EncoderLayerConfig, mask AttentionMask) func(*Params[float64], *rand.Rand) nntest.Forward {
		return func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			l := NewTransformerEncoderLayer(ps, "enc", cfg, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return l.Forward(tp, in[0], mask) }
		}
	}
	base := EncoderLayerConfig{D: 4, Heads: 2, FFN: 6, Eps: 1e-5}
	pre := base
	pre.PreNorm, pre.Act = true, ActGELUTanh
	drop := base
	drop.Dropout, drop.AttnDropout = 0.2, 0.2
	relu := base
	relu.Act = ActReLU
	nntest.Run(t, []nntest.Case{
		{Name: "MultiHeadAttentionSelf", Inputs: [][]int{{6, 4}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			a := NewMultiHeadAttention(ps, "mha", 4, 2, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return a.Forward(tp, in[0], padded) }
		}},
		{Name: "MultiHeadAttentionCross", Inputs: [][]int{{4, 6}, {6, 6}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			a := NewMultiHeadAttention(ps, "mha", 6, 3, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
				return a.Cross(tp, in[0], in[1], AttentionMask{Batch: 2, KeyLens: []int{3, 1}})
			}
		}},
		{Name: "FeedForward", Inputs: [][]int{{3, 4}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			f := NewFeedForward(ps, "ffn", 4, 7, ActGELU, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return f.Forward(tp, in[0]) }
		}},
		{Name: "LearnedPositions", Inputs: [][]int{{6, 3}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			l := NewLearnedPositions(ps, "pos", 5, 3, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return l.Forward(tp, in[0], 2) }
		}},
		{Name: "EncoderLayerPostNorm", Inputs: [][]int{{6, 4}}, Build: layer(base, padded)},
		{Name: "EncoderLayerPreNorm", Inputs: [][]int{{6, 4}}, Build: layer(pre, padded)},
		{Name: "EncoderLayerDropout", Inputs: [][]int{{3, 4}}, Build: layer(drop, AttentionMask{})},
		{Name: "EncoderLayerReLU", Inputs: [][]int{{3, 4}}, Build: layer(relu, AttentionMask{})},
		{Name: "EncoderPreNormStack", Inputs: [][]int{{6, 4}}, Build: func(ps *Params[float64], rng *rand.Rand) nntest.Forward {
			e := NewTransformerEncoder(ps, "enc", 2, pre, rng)
			return func(tp *Tape[float64], in []*Var[float64]) *Var[float64] { return e.Forward(tp, in[0], padded) }
		}},
	})
}
