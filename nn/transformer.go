package nn

import (
	"fmt"
	"math/rand/v2"
)

// Transformer layers (Vaswani et al. 2017) in the form BERT uses (Devlin et
// al. 2019): multi-head self-attention and a position-wise feed-forward
// block, each wrapped in a residual connection and layer normalisation.
// Every layer works on a batch of sequences packed as one [B·T, D] matrix
// (see AttentionMask), so its projections are single GEMMs over all tokens.

// MultiHeadAttention is the attention sub-layer: a fused input projection
// QKV (W [D, 3D]: columns [0, D) give the queries, [D, 2D) the keys, [2D,
// 3D) the values), attention over Heads heads, and the output projection
// Out [D, D]. Parameters: name.qkv.weight/bias, name.out.weight/bias.
type MultiHeadAttention[T Float] struct {
	QKV, Out *Linear[T]
	Heads    int
	// Dropout is the probability of dropping an attention weight in
	// training (BERT: attention_probs_dropout_prob).
	Dropout float64
}

// NewMultiHeadAttention creates a Glorot-initialised attention layer of
// width d; d must be a multiple of heads.
func NewMultiHeadAttention[T Float](ps *Params[T], name string, d, heads int, rng *rand.Rand) *MultiHeadAttention[T] {
	if heads <= 0 || d%heads != 0 {
		panic(fmt.Sprintf("nn: NewMultiHeadAttention: width %d is not a multiple of %d heads", d, heads))
	}
	a := &MultiHeadAttention[T]{
		QKV:   &Linear[T]{W: ps.New(name+".qkv.weight", d, 3*d), B: ps.New(name+".qkv.bias", 3*d)},
		Out:   NewLinear(ps, name+".out", d, d, true, rng),
		Heads: heads,
	}
	// Glorot per projection (fan-out d), not over the fused 3d columns.
	GlorotUniform(a.QKV.W.Value, d, d, rng)
	return a
}

// Forward is self-attention over x [B·T, D]: one GEMM for the queries,
// keys and values of every token, then attention and the output
// projection.
func (a *MultiHeadAttention[T]) Forward(tp *Tape[T], x *Var[T], mask AttentionMask) *Var[T] {
	qkv := a.QKV.Forward(tp, x)
	return a.Out.Forward(tp, tp.SelfAttentionQKV(qkv, a.Heads, mask, a.Dropout))
}

// Cross is attention from the queries x [B·Tq, D] to a memory [B·Tk, D]
// (an encoder's output, in an encoder–decoder): the queries are projected
// from x, keys and values from mem, with the same weights' column blocks.
func (a *MultiHeadAttention[T]) Cross(tp *Tape[T], x, mem *Var[T], mask AttentionMask) *Var[T] {
	w, b := tp.Param(a.QKV.W), tp.Param(a.QKV.B)
	d := a.QKV.W.Value.Shape[0]
	q := tp.linearCols(x, w, b, 0, d)
	kv := tp.linearCols(mem, w, b, d, 3*d)
	ctx := tp.mha(colView[T]{q, 0, d}, colView[T]{kv, 0, 2 * d}, colView[T]{kv, d, 2 * d}, d, a.Heads, mask, a.Dropout)
	return a.Out.Forward(tp, ctx)
}

// linearCols is Linear with the column block [from, to) of w [in, out] and
// b [out]: x·w[:, from:to] + b[from:to], read in place.
func (tp *Tape[T]) linearCols(x, w, b *Var[T], from, to int) *Var[T] {
	m, in := x.Value.Dims()
	win, out := mustMatrix("linearCols", w)
	if in != win || from < 0 || to > out || from >= to || b.Value.Len() != out {
		panic(fmt.Sprintf("nn: linearCols: x %v, w %v, columns [%d, %d)", x.Value.Shape, w.Value.Shape, from, to))
	}
	n := to - from
	y := tp.outDirty(anyGrad(x, w, b), m, n)
	for i := 0; i < m; i++ {
		copy(y.Value.Data[i*n:(i+1)*n], b.Value.Data[from:to])
	}
	gemm(false, false, m, n, in, 1, x.Value.Data, in, w.Value.Data[from:], out, 1, y.Value.Data, n)
	if y.Grad != nil {
		tp.record(func() {
			dy := y.Grad.Data
			if x.Grad != nil {
				gemm(false, true, m, in, n, 1, dy, n, w.Value.Data[from:], out, 1, x.Grad.Data, in)
			}
			if w.Grad != nil {
				gemm(true, false, in, n, m, 1, x.Value.Data, in, dy, n, 1, w.Grad.Data[from:], out)
			}
			if b.Grad != nil {
				for i := 0; i < m; i++ {
					addTo(b.Grad.Data[from:to], dy[i*n:(i+1)*n])
				}
			}
		})
	}
	return y
}

// FeedForward is the position-wise feed-forward block, Linear → activation
// → Linear (Vaswani et al. 2017, eq. 2, with GELU for BERT). Parameters:
// name.in.weight/bias [D, H], name.out.weight/bias [H, D].
type FeedForward[T Float] struct {
	In, Out *Linear[T]
	Act     Activation
}

// NewFeedForward creates a Glorot-initialised block of width d and hidden
// width hidden.
func NewFeedForward[T Float](ps *Params[T], name string, d, hidden int, act Activation, rng *rand.Rand) *FeedForward[T] {
	return &FeedForward[T]{
		In:  NewLinear(ps, name+".in", d, hidden, true, rng),
		Out: NewLinear(ps, name+".out", hidden, d, true, rng),
		Act: act,
	}
}

// Forward applies the block to every row of x [N, D].
func (f *FeedForward[T]) Forward(tp *Tape[T], x *Var[T]) *Var[T] {
	return f.Out.Forward(tp, tp.Activate(f.In.Forward(tp, x), f.Act))
}

// EncoderLayerConfig describes a TransformerEncoderLayer.
type EncoderLayerConfig struct {
	D, Heads, FFN int        // model width, attention heads, feed-forward width
	Act           Activation // feed-forward activation
	// PreNorm normalises each sub-layer's input, x + F(LN(x)), instead of
	// its residual sum, LN(x + F(x)) (post-norm: Vaswani et al. 2017 and
	// BERT). Pre-norm trains more stably in deep stacks (Xiong et al. 2020).
	PreNorm bool
	// Eps is the layer-norm epsilon; 0 means BERT's 1e-12.
	Eps float64
	// Dropout applies to each sub-layer's output before the residual sum
	// (BERT: hidden_dropout_prob), AttnDropout to the attention weights.
	Dropout, AttnDropout float64
}

// TransformerEncoderLayer is one encoder block: self-attention and a
// feed-forward block, each with a residual connection and layer norm.
// Parameters: name.attn.*, name.norm1.*, name.ffn.*, name.norm2.*.
type TransformerEncoderLayer[T Float] struct {
	Config       EncoderLayerConfig
	Attn         *MultiHeadAttention[T]
	Norm1, Norm2 *LayerNormLayer[T]
	FFN          *FeedForward[T]
}

// Linears returns the layer's four linear maps (queries/keys/values,
// attention output, both feed-forward layers), those int8 inference runs
// as int8 (Linear.QuantizeInt8); attention's own products and LayerNorm
// stay float32.
func (l *TransformerEncoderLayer[T]) Linears() []*Linear[T] {
	return []*Linear[T]{l.Attn.QKV, l.Attn.Out, l.FFN.In, l.FFN.Out}
}

// NewTransformerEncoderLayer creates a randomly initialised layer.
func NewTransformerEncoderLayer[T Float](ps *Params[T], name string, cfg EncoderLayerConfig, rng *rand.Rand) *TransformerEncoderLayer[T] {
	if cfg.Eps == 0 {
		cfg.Eps = 1e-12
	}
	l := &TransformerEncoderLayer[T]{
		Config: cfg,
		Attn:   NewMultiHeadAttention(ps, name+".attn", cfg.D, cfg.Heads, rng),
		Norm1:  NewLayerNorm(ps, name+".norm1", cfg.D),
		FFN:    NewFeedForward(ps, name+".ffn", cfg.D, cfg.FFN, cfg.Act, rng),
		Norm2:  NewLayerNorm(ps, name+".norm2", cfg.D),
	}
	l.Attn.Dropout = cfg.AttnDropout
	l.Norm1.Eps, l.Norm2.Eps = cfg.Eps, cfg.Eps
	return l
}

// Forward maps x [B·T, D] to the layer's output of the same shape:
//
//	post-norm: h = LN₁(x + Attn(x)),      y = LN₂(h + FFN(h))
//	pre-norm:  h = x + Attn(LN₁(x)),      y = h + FFN(LN₂(h))
//
// with dropout on Attn and FFN outputs in training.
func (l *TransformerEncoderLayer[T]) Forward(tp *Tape[T], x *Var[T], mask AttentionMask) *Var[T] {
	p := l.Config.Dropout
	if l.Config.PreNorm {
		h := tp.Add(x, tp.Dropout(l.Attn.Forward(tp, l.Norm1.Forward(tp, x), mask), p))
		return tp.Add(h, tp.Dropout(l.FFN.Forward(tp, l.Norm2.Forward(tp, h)), p))
	}
	h := l.Norm1.Forward(tp, tp.Add(x, tp.Dropout(l.Attn.Forward(tp, x, mask), p)))
	return l.Norm2.Forward(tp, tp.Add(h, tp.Dropout(l.FFN.Forward(tp, h), p)))
}

// TransformerEncoder is a stack of encoder layers, with a final layer norm
// for pre-norm stacks (whose last residual sum is otherwise unnormalised).
type TransformerEncoder[T Float] struct {
	Layers []*TransformerEncoderLayer[T]
	Final  *LayerNormLayer[T] // nil for post-norm
}

// NewTransformerEncoder creates n layers name.0, name.1, … and, for
// pre-norm, name.norm.
func NewTransformerEncoder[T Float](ps *Params[T], name string, n int, cfg EncoderLayerConfig, rng *rand.Rand) *TransformerEncoder[T] {
	e := &TransformerEncoder[T]{}
	for i := 0; i < n; i++ {
		e.Layers = append(e.Layers, NewTransformerEncoderLayer(ps, fmt.Sprintf("%s.%d", name, i), cfg, rng))
	}
	if cfg.PreNorm {
		e.Final = NewLayerNorm(ps, name+".norm", cfg.D)
		if cfg.Eps != 0 {
			e.Final.Eps = cfg.Eps
		} else {
			e.Final.Eps = 1e-12
		}
	}
	return e
}

// Forward runs the stack over x [B·T, D].
func (e *TransformerEncoder[T]) Forward(tp *Tape[T], x *Var[T], mask AttentionMask) *Var[T] {
	for _, l := range e.Layers {
		x = l.Forward(tp, x, mask)
	}
	if e.Final != nil {
		x = e.Final.Forward(tp, x)
	}
	return x
}
