package nn

import (
	"fmt"
	"math"
	"slices"
)

// Param is a trainable tensor with a stable name (e.g. "conv_q.weight"),
// used as its key in model files.
type Param[T Float] struct {
	Name  string
	Value *Tensor[T]
	index int // position in its Params; the key into Grads and optimiser state
}

// Shape returns the parameter's shape.
func (p *Param[T]) Shape() []int { return p.Value.Shape }

// Float32s returns a copy of the values as float32 (the model-file dtype).
func (p *Param[T]) Float32s() []float32 {
	out := make([]float32, len(p.Value.Data))
	for i, v := range p.Value.Data {
		out[i] = float32(v)
	}
	return out
}

// SetFloat32s overwrites the values from float32 data of the same size.
func (p *Param[T]) SetFloat32s(data []float32) error {
	if len(data) != len(p.Value.Data) {
		return fmt.Errorf("nn: parameter %s: got %d values, want %d (shape %v)", p.Name, len(data), len(p.Value.Data), p.Value.Shape)
	}
	for i, v := range data {
		p.Value.Data[i] = T(v)
	}
	return nil
}

// Params is the ordered set of a model's parameters. Iteration order is
// creation order, which is deterministic for a given model definition.
type Params[T Float] struct {
	list   []*Param[T]
	byName map[string]*Param[T]
}

// NewParams returns an empty parameter set.
func NewParams[T Float]() *Params[T] {
	return &Params[T]{byName: map[string]*Param[T]{}}
}

// New creates a zero parameter. Names must be unique; a duplicate panics
// because it is always a bug in a model definition.
func (ps *Params[T]) New(name string, shape ...int) *Param[T] {
	if _, dup := ps.byName[name]; dup {
		panic("nn: duplicate parameter name " + name)
	}
	p := &Param[T]{Name: name, Value: NewTensor[T](shape...), index: len(ps.list)}
	ps.list = append(ps.list, p)
	ps.byName[name] = p
	return p
}

// Adopt moves every parameter of other into ps, renamed prefix+name, so
// that a model trains (and saves) a sub-network built with its own Params,
// such as a pre-trained encoder it fine-tunes. The *Param values stay the
// same, so the sub-network's layers keep working and their gradients now
// accumulate into ps's Grads; other is left empty (it owns nothing any
// more). A name clash is an error and leaves both sets unchanged.
func (ps *Params[T]) Adopt(prefix string, other *Params[T]) error {
	if other == ps {
		return fmt.Errorf("nn: Adopt: a parameter set cannot adopt itself")
	}
	for _, p := range other.list {
		if _, dup := ps.byName[prefix+p.Name]; dup {
			return fmt.Errorf("nn: Adopt: parameter %s already exists", prefix+p.Name)
		}
	}
	for _, p := range other.list {
		p.Name = prefix + p.Name
		p.index = len(ps.list)
		ps.list = append(ps.list, p)
		ps.byName[p.Name] = p
	}
	other.list, other.byName = nil, map[string]*Param[T]{}
	return nil
}

// owns reports whether p is one of ps's parameters.
func (ps *Params[T]) owns(p *Param[T]) bool {
	return p.index < len(ps.list) && ps.list[p.index] == p
}

// All returns the parameters in creation order.
func (ps *Params[T]) All() []*Param[T] { return ps.list }

// Get returns the named parameter, or nil.
func (ps *Params[T]) Get(name string) *Param[T] { return ps.byName[name] }

// Count is the total number of scalar parameters.
func (ps *Params[T]) Count() int {
	n := 0
	for _, p := range ps.list {
		n += p.Value.Len()
	}
	return n
}

// CopyParams copies values from another set with the same names and shapes
// (e.g. a float64 copy of a float32 model).
func CopyParams[D, S Float](dst *Params[D], src *Params[S]) error {
	for _, p := range dst.list {
		q := src.Get(p.Name)
		if q == nil || !slices.Equal(p.Value.Shape, q.Value.Shape) {
			return fmt.Errorf("nn: CopyParams: no parameter %s of shape %v in source", p.Name, p.Value.Shape)
		}
		for i, v := range q.Value.Data {
			p.Value.Data[i] = D(v)
		}
	}
	return nil
}

// CheckFinite returns an error naming the first parameter holding NaN/Inf.
func (ps *Params[T]) CheckFinite() error {
	for _, p := range ps.list {
		if err := CheckFinite("parameter "+p.Name, p.Value.Data); err != nil {
			return err
		}
	}
	return nil
}

// Grads holds one gradient buffer per parameter. Each worker of a data-
// parallel step owns one Grads (its Tape accumulates into it), so workers
// never write shared memory; the buffers are summed with Add before the
// optimiser step.
type Grads[T Float] struct {
	ps *Params[T]
	g  []*Tensor[T]
}

// NewGrads returns zero gradient buffers for every parameter of ps.
func (ps *Params[T]) NewGrads() *Grads[T] {
	g := &Grads[T]{ps: ps}
	g.grow()
	return g
}

func (g *Grads[T]) grow() {
	for len(g.g) < len(g.ps.list) {
		g.g = append(g.g, NewTensor[T](g.ps.list[len(g.g)].Value.Shape...))
	}
}

// Of returns the gradient buffer of p.
func (g *Grads[T]) Of(p *Param[T]) *Tensor[T] {
	if p.index >= len(g.g) {
		g.grow()
	}
	if g.ps.list[p.index] != p {
		panic("nn: parameter " + p.Name + " belongs to another Params")
	}
	return g.g[p.index]
}

// Zero clears every buffer.
func (g *Grads[T]) Zero() {
	for _, t := range g.g {
		t.Zero()
	}
}

// Add accumulates other into g.
func (g *Grads[T]) Add(other *Grads[T]) {
	g.grow()
	other.grow()
	for i, t := range other.g {
		axpy(1, t.Data, g.g[i].Data)
	}
}

// Scale multiplies every gradient by s (e.g. 1/batch size).
func (g *Grads[T]) Scale(s float64) {
	for _, t := range g.g {
		for i := range t.Data {
			t.Data[i] *= T(s)
		}
	}
}

// Norm is the global L2 norm over all gradients (accumulated in float64).
func (g *Grads[T]) Norm() float64 {
	var s float64
	for _, t := range g.g {
		for _, v := range t.Data {
			s += float64(v) * float64(v)
		}
	}
	return math.Sqrt(s)
}

// ClipNorm rescales the gradients so that their global norm is at most max
// (Pascanu et al. 2013) and returns the norm before clipping.
func (g *Grads[T]) ClipNorm(max float64) float64 {
	n := g.Norm()
	if n > max && n > 0 {
		g.Scale(max / n)
	}
	return n
}

// CheckFinite returns an error naming the first gradient holding NaN/Inf.
func (g *Grads[T]) CheckFinite() error {
	for i, t := range g.g {
		if err := CheckFinite("gradient of "+g.ps.list[i].Name, t.Data); err != nil {
			return err
		}
	}
	return nil
}

// CheckFinite returns nil when every value is finite, otherwise an error
// naming what (e.g. "gradient of conv_q.weight") and the first bad index, so
// that a training loop can stop with `fmt.Errorf("step %d: %w", step, err)`.
func CheckFinite[T Float](what string, data []T) error {
	for i, v := range data {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return &NonFiniteError{What: what, Index: i, Value: f}
		}
	}
	return nil
}

// NonFiniteError reports a NaN or Inf found by CheckFinite.
type NonFiniteError struct {
	What  string
	Index int
	Value float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("nn: %s has %v at index %d", e.What, e.Value, e.Index)
}
