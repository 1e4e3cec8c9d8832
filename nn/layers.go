package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/as2/as2/kernel"
)

// Layers bundle parameters with a forward function built from Tape ops, so
// their gradients come from the ops' backward passes. Parameter names are
// "<name>.weight", "<name>.bias" etc., the keys of model files.

// Linear is y = x·W + b with W [in, out].
type Linear[T Float] struct {
	W, B *Param[T] // B is nil without bias
	// Int8, when set (QuantizeInt8, SetInt8), holds W as int8 and serves
	// float32 forward passes that need no gradients through the layer
	// (inference) with kernel.GemmInt8; training still uses W.
	Int8 *kernel.Int8Matrix
}

// QuantizeInt8 sets l.Int8 from W, with one scale per output (column of
// W), as PyTorch's dynamic quantisation does. It is for float32 layers;
// change W afterwards and Int8 is stale (call it again, or set Int8 nil).
func (l *Linear[T]) QuantizeInt8() error {
	if !is32[T]() {
		return fmt.Errorf("nn: Linear %v: int8 inference is for float32 layers", l.W.Value.Shape)
	}
	in, out := l.W.Value.Shape[0], l.W.Value.Shape[1]
	wt := make([]float32, in*out) // [out, in]: a row per output
	for r, v := range asF32(l.W.Value.Data) {
		wt[(r%out)*in+r/out] = v
	}
	m, err := kernel.QuantizeInt8Matrix(wt, out, in)
	if err != nil {
		return fmt.Errorf("nn: Linear %v: %w", l.W.Value.Shape, err)
	}
	l.Int8 = m
	return nil
}

// QuantizeInt8Linears calls QuantizeInt8 on each layer, stopping at the
// first error: int8 for a model's Linears in one call, whatever the kernel
// path, as the encoders' tests and benchmarks compare it with float32.
// (model/quant's load option packs every layer before setting any, and
// uses a file's stored int8 weights.)
func QuantizeInt8Linears[T Float](ls ...*Linear[T]) error {
	for _, l := range ls {
		if err := l.QuantizeInt8(); err != nil {
			return err
		}
	}
	return nil
}

// SetInt8 sets l.Int8 to m, which must have W's shape (m's n outputs by k
// inputs for W [k, n]): for weights stored as int8, as model files store
// them (kernel.NewInt8MatrixT takes their layout).
func (l *Linear[T]) SetInt8(m *kernel.Int8Matrix) error {
	n, k := m.Dims()
	if !is32[T]() || len(l.W.Value.Shape) != 2 || k != l.W.Value.Shape[0] || n != l.W.Value.Shape[1] {
		return fmt.Errorf("nn: Linear %v: int8 matrix of %d outputs by %d inputs", l.W.Value.Shape, n, k)
	}
	l.Int8 = m
	return nil
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
func (l *Linear[T]) Forward(tp *Tape[T], x *Var[T]) *Var[T] { return l.forward(tp, x, false) }

// ForwardReLU is ReLU(Forward(x)): a feed-forward layer's first half.
// int8 inference does both in one pass over the output.
func (l *Linear[T]) ForwardReLU(tp *Tape[T], x *Var[T]) *Var[T] { return l.forward(tp, x, true) }

func (l *Linear[T]) forward(tp *Tape[T], x *Var[T], relu bool) *Var[T] {
	var b *Var[T]
	if l.B != nil {
		b = tp.Param(l.B)
	}
	w := tp.Param(l.W)
	if l.Int8 != nil && is32[T]() && !anyGrad(x, w, b) {
		return tp.linearInt8(x, l.Int8, b, relu)
	}
	if relu {
		return tp.ReLU(tp.Linear(x, w, b))
	}
	return tp.Linear(x, w, b)
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
