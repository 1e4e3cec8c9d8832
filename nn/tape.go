package nn

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// Var is a node of the computation: a value and, when a gradient flows to
// it, a gradient buffer of the same shape. Grad is nil for constants and for
// results that depend on no trainable input, so ops can skip that work.
type Var[T Float] struct {
	Value *Tensor[T]
	Grad  *Tensor[T]
}

// Shape returns the value's shape.
func (v *Var[T]) Shape() []int { return v.Value.Shape }

// NeedsGrad reports whether a gradient flows to v.
func (v *Var[T]) NeedsGrad() bool { return v.Grad != nil }

// Scalar returns the single value of a one-element Var (e.g. a loss).
func (v *Var[T]) Scalar() float64 {
	if v.Value.Len() != 1 {
		panic(fmt.Sprintf("nn: Scalar of shape %v", v.Value.Shape))
	}
	return float64(v.Value.Data[0])
}

// Tape records a define-by-run computation: every op computes its output at
// once and, if any input needs a gradient, appends a closure that
// propagates the output's gradient to its inputs. Backward runs the closures
// in reverse order, which is a valid topological order because an op can
// only consume Vars that already exist.
//
// A Tape belongs to one goroutine. It accumulates parameter gradients into
// the Grads it was created with; values and gradients of intermediate Vars
// live in an arena that Reset recycles, so a training loop that reuses its
// Tape allocates almost nothing for tensor data in the steady state. Vars
// from a Tape are invalid after its Reset, and parameters must not change
// between Resets (the tape memoises products of them).
type Tape[T Float] struct {
	grads *Grads[T]
	back  []func()
	arena arena[T]
	train bool
	rng   *rand.Rand
	// transposes memoises transposed weights until Reset: parameters do
	// not change during one pass, and an op called per candidate (Conv1d
	// over a few feature channels) would otherwise transpose them each time.
	transposes map[*Tensor[T]][]T
	// ctx, when set, is the context of the request an inference pass
	// serves: StackRows checks it between candidates (see
	// TapePool.ScoresContext).
	ctx context.Context
}

// NewTape returns a tape that accumulates parameter gradients into grads
// (which may be nil for inference). It starts in training mode; seed drives
// dropout.
func NewTape[T Float](grads *Grads[T], seed uint64) *Tape[T] {
	return &Tape[T]{grads: grads, train: true, rng: NewRNG(seed)}
}

// Grads returns the gradient buffers this tape accumulates into.
func (tp *Tape[T]) Grads() *Grads[T] { return tp.grads }

// SetTrain switches training mode (dropout active) on or off. A tape in
// evaluation mode also records no backward closures for parameters.
func (tp *Tape[T]) SetTrain(on bool) { tp.train = on }

// Training reports whether the tape is in training mode.
func (tp *Tape[T]) Training() bool { return tp.train }

// RNG is the tape's random source (dropout), seeded at NewTape.
func (tp *Tape[T]) RNG() *rand.Rand { return tp.rng }

// Reseed restarts the tape's random source from seed, so that a pass run
// again after Reset draws the same dropout masks (recomputation: a model
// that drops a pass's activations and runs it again for the backward).
func (tp *Tape[T]) Reseed(seed uint64) { tp.rng = NewRNG(seed) }

// Reset forgets the recorded computation and recycles its memory.
func (tp *Tape[T]) Reset() {
	tp.ctx = nil
	clear(tp.back)
	tp.back = tp.back[:0]
	tp.arena.reset()
	clear(tp.transposes)
}

// transposed returns the transpose of the matrix w [r, c] as [c, r] data
// on the arena, computed once per pass (see Tape.transposes).
func (tp *Tape[T]) transposed(w *Tensor[T]) []T {
	if t, ok := tp.transposes[w]; ok {
		return t
	}
	r, c := w.Shape[0], w.Shape[1]
	t := tp.arena.allocDirty(r * c)
	for i := 0; i < r; i++ {
		for j, v := range w.Data[i*c : (i+1)*c] {
			t[j*r+i] = v
		}
	}
	if tp.transposes == nil {
		tp.transposes = map[*Tensor[T]][]T{}
	}
	tp.transposes[w] = t
	return t
}

// Const wraps a tensor that needs no gradient (inputs, frozen embeddings).
func (tp *Tape[T]) Const(t *Tensor[T]) *Var[T] { return &Var[T]{Value: t} }

// Leaf wraps a tensor whose gradient is wanted (tests, input saliency):
// the gradient buffer is allocated on the tape and read after Backward.
func (tp *Tape[T]) Leaf(t *Tensor[T]) *Var[T] {
	return &Var[T]{Value: t, Grad: tp.tensor(t.Shape...)}
}

// Param makes a parameter available to the computation. Its gradient is
// accumulated into the tape's Grads; without Grads, in evaluation mode, or
// when p belongs to another parameter set than the Grads' (a frozen
// sub-network, such as a pre-trained encoder a model does not fine-tune),
// the parameter behaves as a constant.
func (tp *Tape[T]) Param(p *Param[T]) *Var[T] {
	v := &Var[T]{Value: p.Value}
	if tp.grads != nil && tp.train && tp.grads.ps.owns(p) {
		v.Grad = tp.grads.Of(p)
	}
	return v
}

// Backward propagates gradients from a scalar loss (seeded with 1) through
// the recorded computation.
func (tp *Tape[T]) Backward(loss *Var[T]) {
	if loss.Value.Len() != 1 {
		panic(fmt.Sprintf("nn: Backward from non-scalar of shape %v", loss.Value.Shape))
	}
	tp.BackwardFrom(loss, []T{1})
}

// BackwardFrom propagates a given output gradient (same size as v).
func (tp *Tape[T]) BackwardFrom(v *Var[T], grad []T) {
	if v.Grad == nil {
		return // nothing trainable upstream
	}
	addTo(v.Grad.Data, grad)
	for i := len(tp.back) - 1; i >= 0; i-- {
		tp.back[i]()
	}
}

// tensor allocates a zero tensor on the arena.
func (tp *Tape[T]) tensor(shape ...int) *Tensor[T] {
	// Copy the shape: callers often pass another tensor's Shape.
	return &Tensor[T]{Shape: append([]int(nil), shape...), Data: tp.arena.alloc(numel(shape))}
}

// out creates an op's output Var; it gets a gradient buffer iff needGrad.
func (tp *Tape[T]) out(needGrad bool, shape ...int) *Var[T] {
	v := &Var[T]{Value: tp.tensor(shape...)}
	if needGrad {
		v.Grad = tp.tensor(shape...)
	}
	return v
}

// outDirty is out for ops that write every element of their output: the
// value is not zeroed first (the gradient buffer is).
func (tp *Tape[T]) outDirty(needGrad bool, shape ...int) *Var[T] {
	v := &Var[T]{Value: &Tensor[T]{Shape: append([]int(nil), shape...), Data: tp.arena.allocDirty(numel(shape))}}
	if needGrad {
		v.Grad = tp.tensor(shape...)
	}
	return v
}

// record appends a backward closure.
func (tp *Tape[T]) record(f func()) { tp.back = append(tp.back, f) }

// anyGrad reports whether any of vs needs a gradient.
func anyGrad[T Float](vs ...*Var[T]) bool {
	for _, v := range vs {
		if v != nil && v.Grad != nil {
			return true
		}
	}
	return false
}

// arena is a bump allocator over reusable chunks: alloc hands out zeroed
// slices, reset makes all of them available again.
type arena[T Float] struct {
	chunks [][]T
	cur    int // index of the chunk being filled
	off    int // first free element in chunks[cur]
}

const arenaChunk = 1 << 16

func (a *arena[T]) alloc(n int) []T {
	s := a.allocDirty(n)
	clear(s)
	return s
}

// allocDirty is alloc without the zeroing, for outputs an op overwrites
// whole: it holds whatever an earlier use of the arena left there.
func (a *arena[T]) allocDirty(n int) []T {
	if n == 0 {
		return nil
	}
	for {
		if a.cur == len(a.chunks) {
			a.chunks = append(a.chunks, make([]T, max(n, arenaChunk)))
		}
		c := a.chunks[a.cur]
		if a.off+n <= len(c) {
			s := c[a.off : a.off+n : a.off+n]
			a.off += n
			return s
		}
		if a.off == 0 {
			// An empty chunk too small for n: replace it by a larger one.
			a.chunks[a.cur] = make([]T, max(n, arenaChunk))
			continue
		}
		a.cur++
		a.off = 0
	}
}

func (a *arena[T]) reset() { a.cur, a.off = 0, 0 }
