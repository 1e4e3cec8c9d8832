package nn

import "math/rand/v2"

// Layers bundle parameters with a forward function built from Tape ops, so
// their gradients come from the ops' backward passes. Parameter names are
// "<name>.weight", "<name>.bias" etc., the keys of model files.

// Linear is y = x·W + b with W [in, out].
type Linear[T Float] struct {
	W, B *Param[T] // B is nil without bias
}

// NewLinear creates a Glorot-initialised linear layer with zero bias.
func NewLinear[T Float](ps *Params[T], name string, in, out int, bias bool, rng *rand.Rand) *Linear[T] {
	l := &Linear[T]{W: ps.New(name+".weight", in, out)}
	GlorotUniform(l.W.Value, in, out, rng)
	if bias {
		l.B = ps.New(name+".bias", out)
	}
	return l
}

// Forward applies the layer to x [m, in] or [in].
func (l *Linear[T]) Forward(tp *Tape[T], x *Var[T]) *Var[T] {
	var b *Var[T]
	if l.B != nil {
		b = tp.Param(l.B)
	}
	return tp.Linear(x, tp.Param(l.W), b)
}

// Conv1D is a 1-D convolution layer over [T, In] sequences (see
// Tape.Conv1d), with "same" padding K/2 by default.
type Conv1D[T Float] struct {
	W, B   *Param[T] // W [Filters, K·In], B [Filters]
	K, Pad int
}

// NewConv1D creates a Glorot-initialised convolution (fan-in K·in, fan-out
// K·filters) with zero bias and same padding.
func NewConv1D[T Float](ps *Params[T], name string, in, filters, k int, rng *rand.Rand) *Conv1D[T] {
	c := &Conv1D[T]{W: ps.New(name+".weight", filters, k*in), B: ps.New(name+".bias", filters), K: k, Pad: k / 2}
	GlorotUniform(c.W.Value, k*in, k*filters, rng)
	return c
}

// Forward convolves x [T, In] into [T+2·Pad−K+1, Filters].
func (c *Conv1D[T]) Forward(tp *Tape[T], x *Var[T]) *Var[T] {
	return tp.Conv1d(x, tp.Param(c.W), tp.Param(c.B), c.K, c.Pad)
}

// Embedding maps token ids to rows of a [vocab, dim] table. A Frozen table
// (static pre-trained vectors) takes part in the computation as a constant
// but is still a named parameter, so it is saved with the model.
type Embedding[T Float] struct {
	Table  *Param[T]
	Frozen bool
}

// NewEmbedding creates an N(0, 0.1²)-initialised embedding table; load
// pre-trained vectors with Table.SetFloat32s or by writing Table.Value.
func NewEmbedding[T Float](ps *Params[T], name string, vocab, dim int, frozen bool, rng *rand.Rand) *Embedding[T] {
	e := &Embedding[T]{Table: ps.New(name+".weight", vocab, dim), Frozen: frozen}
	Normal(e.Table.Value, 0.1, rng)
	return e
}

// Forward looks up ids, giving [len(ids), dim]; negative ids give zeros.
func (e *Embedding[T]) Forward(tp *Tape[T], ids []int) *Var[T] {
	table := tp.Const(e.Table.Value)
	if !e.Frozen {
		table = tp.Param(e.Table)
	}
	return tp.Embedding(table, ids)
}
