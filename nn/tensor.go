package nn

import (
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// Float is the element type of every tensor: training runs in float32,
// gradient checks in float64 (where finite differences are exact enough).
type Float interface{ ~float32 | ~float64 }

// Tensor is a dense row-major array. Most tensors are 1-D vectors or 2-D
// matrices; a sequence of T vectors of width D is a [T, D] matrix. A 1-D
// tensor of length n behaves as a 1×n row wherever a matrix is expected.
type Tensor[T Float] struct {
	Shape []int
	Data  []T
}

// NewTensor returns a zero tensor of the given shape.
func NewTensor[T Float](shape ...int) *Tensor[T] {
	return &Tensor[T]{Shape: append([]int(nil), shape...), Data: make([]T, numel(shape))}
}

// FromSlice wraps data (not copied) as a tensor of the given shape; with no
// shape it is a vector of len(data).
func FromSlice[T Float](data []T, shape ...int) *Tensor[T] {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	if numel(shape) != len(data) {
		panic(fmt.Sprintf("nn: FromSlice: %d values for shape %v", len(data), shape))
	}
	return &Tensor[T]{Shape: append([]int(nil), shape...), Data: data}
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			panic(fmt.Sprintf("nn: negative dimension in shape %v", shape))
		}
		n *= d
	}
	return n
}

// Len is the number of elements.
func (t *Tensor[T]) Len() int { return len(t.Data) }

// Dims returns the tensor viewed as a matrix: (1, n) for a vector, (rows,
// cols) for a matrix, and (product of leading dims, last dim) otherwise.
func (t *Tensor[T]) Dims() (rows, cols int) {
	switch len(t.Shape) {
	case 0:
		return 1, 1
	case 1:
		return 1, t.Shape[0]
	default:
		c := t.Shape[len(t.Shape)-1]
		if c == 0 {
			return numel(t.Shape[:len(t.Shape)-1]), 0
		}
		return len(t.Data) / c, c
	}
}

// Rows is the number of rows of the matrix view (1 for a vector).
func (t *Tensor[T]) Rows() int { r, _ := t.Dims(); return r }

// Cols is the size of the last dimension.
func (t *Tensor[T]) Cols() int { _, c := t.Dims(); return c }

// Row returns row i of the matrix view, sharing storage.
func (t *Tensor[T]) Row(i int) []T {
	_, c := t.Dims()
	return t.Data[i*c : (i+1)*c]
}

// At returns element (i, j) of the matrix view.
func (t *Tensor[T]) At(i, j int) T { return t.Data[i*t.Cols()+j] }

// Set sets element (i, j) of the matrix view.
func (t *Tensor[T]) Set(i, j int, v T) { t.Data[i*t.Cols()+j] = v }

// Clone returns a deep copy.
func (t *Tensor[T]) Clone() *Tensor[T] {
	return &Tensor[T]{Shape: append([]int(nil), t.Shape...), Data: append([]T(nil), t.Data...)}
}

// Zero sets every element to 0.
func (t *Tensor[T]) Zero() { clear(t.Data) }

// Fill sets every element to v.
func (t *Tensor[T]) Fill(v T) {
	for i := range t.Data {
		t.Data[i] = v
	}
}

// SameShape reports whether t and u have identical shapes.
func (t *Tensor[T]) SameShape(u *Tensor[T]) bool { return slices.Equal(t.Shape, u.Shape) }

func (t *Tensor[T]) String() string {
	return fmt.Sprintf("Tensor%v%v", t.Shape, t.Data)
}

// Convert copies a tensor into another element type (e.g. float64 → float32).
func Convert[D, S Float](t *Tensor[S]) *Tensor[D] {
	out := &Tensor[D]{Shape: append([]int(nil), t.Shape...), Data: make([]D, len(t.Data))}
	for i, v := range t.Data {
		out.Data[i] = D(v)
	}
	return out
}

// is32 reports whether T is a 32-bit float. The BLAS layer dispatches on it.
func is32[T Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

// asF32 / asF64 reinterpret a []T as the concrete slice type; T may be a named
// type such as `type F float32`, so a type switch on []float32 is not enough.
func asF32[T Float](s []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func asF64[T Float](s []T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func exp[T Float](x T) T  { return T(math.Exp(float64(x))) }
func log[T Float](x T) T  { return T(math.Log(float64(x))) }
func tanh[T Float](x T) T { return T(math.Tanh(float64(x))) }
func sqrt[T Float](x T) T { return T(math.Sqrt(float64(x))) }

// sigmoid is computed in a form that cannot overflow exp.
func sigmoid[T Float](x T) T {
	if x >= 0 {
		return 1 / (1 + exp(-x))
	}
	e := exp(x)
	return e / (1 + e)
}
