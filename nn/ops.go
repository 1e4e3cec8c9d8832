package nn

import (
	"fmt"
	"slices"

	"github.com/as2/as2/kernel"
)

// Every op is a Tape method: it computes its result now and, when an input
// needs a gradient, records how to push the result's gradient back. Backward
// closures always accumulate (+=) into input gradients, so a Var may feed
// any number of ops.

func mustSameShape[T Float](op string, a, b *Var[T]) {
	if !slices.Equal(a.Value.Shape, b.Value.Shape) {
		panic(fmt.Sprintf("nn: %s: shapes %v and %v differ", op, a.Value.Shape, b.Value.Shape))
	}
}

func mustMatrix[T Float](op string, v *Var[T]) (rows, cols int) {
	if len(v.Value.Shape) != 2 {
		panic(fmt.Sprintf("nn: %s: want a matrix, got shape %v", op, v.Value.Shape))
	}
	return v.Value.Shape[0], v.Value.Shape[1]
}

// rowShape is the shape of an m×n result whose left operand was a (a vector
// input gives a vector output).
func rowShape[T Float](a *Var[T], m, n int) []int {
	if len(a.Value.Shape) == 1 {
		return []int{n}
	}
	return []int{m, n}
}

// MatMul returns a·b for a [m,k] (or a vector [k]) and b [k,n].
func (tp *Tape[T]) MatMul(a, b *Var[T]) *Var[T] {
	m, k := a.Value.Dims()
	kb, n := mustMatrix("MatMul", b)
	if k != kb {
		panic(fmt.Sprintf("nn: MatMul: shapes %v and %v", a.Value.Shape, b.Value.Shape))
	}
	y := tp.out(anyGrad(a, b), rowShape(a, m, n)...)
	gemm(false, false, m, n, k, 1, a.Value.Data, k, b.Value.Data, n, 0, y.Value.Data, n)
	if y.Grad != nil {
		tp.record(func() {
			if a.Grad != nil { // da += dy·bᵀ
				gemm(false, true, m, k, n, 1, y.Grad.Data, n, b.Value.Data, n, 1, a.Grad.Data, k)
			}
			if b.Grad != nil { // db += aᵀ·dy
				gemm(true, false, k, n, m, 1, a.Value.Data, k, y.Grad.Data, n, 1, b.Grad.Data, n)
			}
		})
	}
	return y
}

// MatMulT returns a·bᵀ for a [m,k] (or [k]) and b [n,k]: the score matrix
// Q·Kᵀ of attention, or similarities between two sequences.
func (tp *Tape[T]) MatMulT(a, b *Var[T]) *Var[T] {
	m, k := a.Value.Dims()
	n, kb := b.Value.Dims()
	if k != kb {
		panic(fmt.Sprintf("nn: MatMulT: shapes %v and %v", a.Value.Shape, b.Value.Shape))
	}
	y := tp.out(anyGrad(a, b), rowShape(a, m, n)...)
	gemm(false, true, m, n, k, 1, a.Value.Data, k, b.Value.Data, k, 0, y.Value.Data, n)
	if y.Grad != nil {
		tp.record(func() {
			if a.Grad != nil { // da += dy·b
				gemm(false, false, m, k, n, 1, y.Grad.Data, n, b.Value.Data, k, 1, a.Grad.Data, k)
			}
			if b.Grad != nil { // db += dyᵀ·a
				gemm(true, false, n, k, m, 1, y.Grad.Data, n, a.Value.Data, k, 1, b.Grad.Data, k)
			}
		})
	}
	return y
}

// linearInt8 is Linear's inference pass with int8 weights w: x·w + b by
// kernel.GemmInt8, which quantises x per row; float32 only (see
// Linear.QuantizeInt8), and no gradient flows through it.
func (tp *Tape[T]) linearInt8(x *Var[T], w *kernel.Int8Matrix, b *Var[T], relu bool) *Var[T] {
	m, in := x.Value.Dims()
	out, win := w.Dims()
	if in != win || (b != nil && b.Value.Len() != out) {
		panic(fmt.Sprintf("nn: Linear (int8): x %v, w %d×%d", x.Value.Shape, win, out))
	}
	y := tp.outDirty(false, rowShape(x, m, out)...) // beta 0: GemmInt8 writes all of y
	var bias []float32
	if b != nil {
		bias = asF32(b.Value.Data)
	}
	kernel.GemmInt8(m, asF32(x.Value.Data), in, w, bias, 0, relu, asF32(y.Value.Data), out)
	return y
}

// Linear returns x·w + b for x [m,in] (or [in]), w [in,out] and an optional
// bias b [out] (nil for none), fused into one GEMM.
func (tp *Tape[T]) Linear(x, w, b *Var[T]) *Var[T] {
	m, in := x.Value.Dims()
	win, out := mustMatrix("Linear", w)
	if in != win || (b != nil && b.Value.Len() != out) {
		panic(fmt.Sprintf("nn: Linear: x %v, w %v", x.Value.Shape, w.Value.Shape))
	}
	// The bias rows or the product with beta 0 write all of y.
	y := tp.outDirty(anyGrad(x, w, b), rowShape(x, m, out)...)
	beta := T(0)
	if b != nil {
		for i := 0; i < m; i++ {
			copy(y.Value.Data[i*out:(i+1)*out], b.Value.Data)
		}
		beta = 1
	}
	gemm(false, false, m, out, in, 1, x.Value.Data, in, w.Value.Data, out, beta, y.Value.Data, out)
	if y.Grad != nil {
		tp.record(func() {
			dy := y.Grad.Data
			if x.Grad != nil {
				gemm(false, true, m, in, out, 1, dy, out, w.Value.Data, out, 1, x.Grad.Data, in)
			}
			if w.Grad != nil {
				gemm(true, false, in, out, m, 1, x.Value.Data, in, dy, out, 1, w.Grad.Data, out)
			}
			if b != nil && b.Grad != nil {
				for i := 0; i < m; i++ {
					addTo(b.Grad.Data, dy[i*out:(i+1)*out])
				}
			}
		})
	}
	return y
}

// AddBias adds the vector b [n] to every row of x [m,n].
func (tp *Tape[T]) AddBias(x, b *Var[T]) *Var[T] {
	m, n := x.Value.Dims()
	if b.Value.Len() != n {
		panic(fmt.Sprintf("nn: AddBias: x %v, b %v", x.Value.Shape, b.Value.Shape))
	}
	y := tp.out(anyGrad(x, b), x.Value.Shape...)
	for i := 0; i < m; i++ {
		row := y.Value.Data[i*n : (i+1)*n]
		copy(row, x.Value.Data[i*n:(i+1)*n])
		addTo(row, b.Value.Data)
	}
	if y.Grad != nil {
		tp.record(func() {
			if x.Grad != nil {
				addTo(x.Grad.Data, y.Grad.Data)
			}
			if b.Grad != nil {
				for i := 0; i < m; i++ {
					addTo(b.Grad.Data, y.Grad.Data[i*n:(i+1)*n])
				}
			}
		})
	}
	return y
}

// Add returns a+b (same shapes).
func (tp *Tape[T]) Add(a, b *Var[T]) *Var[T] {
	mustSameShape("Add", a, b)
	y := tp.outDirty(anyGrad(a, b), a.Value.Shape...)
	add(y.Value.Data, a.Value.Data, b.Value.Data)
	if y.Grad != nil {
		tp.record(func() {
			if a.Grad != nil {
				addTo(a.Grad.Data, y.Grad.Data)
			}
			if b.Grad != nil {
				addTo(b.Grad.Data, y.Grad.Data)
			}
		})
	}
	return y
}

// Sub returns a−b (same shapes).
func (tp *Tape[T]) Sub(a, b *Var[T]) *Var[T] {
	mustSameShape("Sub", a, b)
	y := tp.outDirty(anyGrad(a, b), a.Value.Shape...)
	for i, v := range a.Value.Data {
		y.Value.Data[i] = v - b.Value.Data[i]
	}
	if y.Grad != nil {
		tp.record(func() {
			if a.Grad != nil {
				addTo(a.Grad.Data, y.Grad.Data)
			}
			if b.Grad != nil {
				axpy(-1, y.Grad.Data, b.Grad.Data)
			}
		})
	}
	return y
}

// Mul returns the element-wise product a⊙b (same shapes).
func (tp *Tape[T]) Mul(a, b *Var[T]) *Var[T] {
	mustSameShape("Mul", a, b)
	y := tp.outDirty(anyGrad(a, b), a.Value.Shape...)
	for i, v := range a.Value.Data {
		y.Value.Data[i] = v * b.Value.Data[i]
	}
	if y.Grad != nil {
		tp.record(func() {
			for i, g := range y.Grad.Data {
				if a.Grad != nil {
					a.Grad.Data[i] += g * b.Value.Data[i]
				}
				if b.Grad != nil {
					b.Grad.Data[i] += g * a.Value.Data[i]
				}
			}
		})
	}
	return y
}

// Scale returns s·x.
func (tp *Tape[T]) Scale(x *Var[T], s float64) *Var[T] {
	y := tp.out(anyGrad(x), x.Value.Shape...)
	for i, v := range x.Value.Data {
		y.Value.Data[i] = T(s) * v
	}
	if y.Grad != nil {
		tp.record(func() { axpy(T(s), y.Grad.Data, x.Grad.Data) })
	}
	return y
}

// ReLU returns max(x, 0).
func (tp *Tape[T]) ReLU(x *Var[T]) *Var[T] {
	y := tp.out(anyGrad(x), x.Value.Shape...)
	// y is zero: max(y, x) is ReLU, NaN and all, without a branch per
	// value that mispredicts on half of them (the vector kernel for
	// float32).
	maxInto(y.Value.Data, x.Value.Data)
	if y.Grad != nil {
		tp.record(func() {
			// Testing g first keeps the branch predictable when the
			// gradient is sparse (e.g. below a max pool).
			for i, g := range y.Grad.Data {
				if g != 0 && x.Value.Data[i] > 0 {
					x.Grad.Data[i] += g
				}
			}
		})
	}
	return y
}

// Tanh returns tanh(x).
func (tp *Tape[T]) Tanh(x *Var[T]) *Var[T] {
	y := tp.out(anyGrad(x), x.Value.Shape...)
	for i, v := range x.Value.Data {
		y.Value.Data[i] = tanh(v)
	}
	if y.Grad != nil {
		tp.record(func() {
			for i, g := range y.Grad.Data {
				t := y.Value.Data[i]
				x.Grad.Data[i] += g * (1 - t*t)
			}
		})
	}
	return y
}

// Sigmoid returns 1/(1+e^−x).
func (tp *Tape[T]) Sigmoid(x *Var[T]) *Var[T] {
	y := tp.out(anyGrad(x), x.Value.Shape...)
	for i, v := range x.Value.Data {
		y.Value.Data[i] = sigmoid(v)
	}
	if y.Grad != nil {
		tp.record(func() {
			for i, g := range y.Grad.Data {
				s := y.Value.Data[i]
				x.Grad.Data[i] += g * s * (1 - s)
			}
		})
	}
	return y
}

// Concat joins Vars along the last axis: rows must agree; the result is a
// vector when every input is a vector (e.g. [q⊙c; q−c]).
func (tp *Tape[T]) Concat(vs ...*Var[T]) *Var[T] {
	if len(vs) == 0 {
		panic("nn: Concat of nothing")
	}
	m, total, allVec := -1, 0, true
	for _, v := range vs {
		r, c := v.Value.Dims()
		if m >= 0 && r != m {
			panic(fmt.Sprintf("nn: Concat: row counts %d and %d", m, r))
		}
		m = r
		total += c
		allVec = allVec && len(v.Value.Shape) == 1
	}
	shape := []int{m, total}
	if allVec {
		shape = []int{total}
	}
	y := tp.out(anyGrad(vs...), shape...)
	off := 0
	for _, v := range vs {
		_, c := v.Value.Dims()
		for i := 0; i < m; i++ {
			copy(y.Value.Data[i*total+off:], v.Value.Data[i*c:(i+1)*c])
		}
		off += c
	}
	if y.Grad != nil {
		vs = slices.Clone(vs)
		tp.record(func() {
			off := 0
			for _, v := range vs {
				_, c := v.Value.Dims()
				if v.Grad != nil {
					for i := 0; i < m; i++ {
						addTo(v.Grad.Data[i*c:(i+1)*c], y.Grad.Data[i*total+off:i*total+off+c])
					}
				}
				off += c
			}
		})
	}
	return y
}

// Stack joins Vars along the first axis: vectors [n] become the rows of an
// [k,n] matrix, matrices [r_i,n] are stacked into [Σr_i, n].
func (tp *Tape[T]) Stack(vs ...*Var[T]) *Var[T] {
	if len(vs) == 0 {
		panic("nn: Stack of nothing")
	}
	rows, n := 0, -1
	for _, v := range vs {
		r, c := v.Value.Dims()
		if n >= 0 && c != n {
			panic(fmt.Sprintf("nn: Stack: widths %d and %d", n, c))
		}
		n = c
		rows += r
	}
	y := tp.out(anyGrad(vs...), rows, n)
	off := 0
	for _, v := range vs {
		copy(y.Value.Data[off:], v.Value.Data)
		off += v.Value.Len()
	}
	if y.Grad != nil {
		vs = slices.Clone(vs)
		tp.record(func() {
			off := 0
			for _, v := range vs {
				if v.Grad != nil {
					addTo(v.Grad.Data, y.Grad.Data[off:off+v.Value.Len()])
				}
				off += v.Value.Len()
			}
		})
	}
	return y
}

// Rows returns rows [from, to) of a matrix as a new [to−from, n] matrix.
func (tp *Tape[T]) Rows(x *Var[T], from, to int) *Var[T] {
	m, n := mustMatrix("Rows", x)
	if from < 0 || to > m || from > to {
		panic(fmt.Sprintf("nn: Rows(%d, %d) of shape %v", from, to, x.Value.Shape))
	}
	y := tp.out(anyGrad(x), to-from, n)
	copy(y.Value.Data, x.Value.Data[from*n:to*n])
	if y.Grad != nil {
		tp.record(func() { addTo(x.Grad.Data[from*n:to*n], y.Grad.Data) })
	}
	return y
}

// Row returns row i of a matrix as a vector [n].
func (tp *Tape[T]) Row(x *Var[T], i int) *Var[T] {
	r := tp.Rows(x, i, i+1)
	r.Value.Shape = r.Value.Shape[1:]
	if r.Grad != nil {
		r.Grad.Shape = r.Grad.Shape[1:]
	}
	return r
}

// SliceCols returns columns [from, to) of every row (of a vector: elements).
func (tp *Tape[T]) SliceCols(x *Var[T], from, to int) *Var[T] {
	m, n := x.Value.Dims()
	if from < 0 || to > n || from > to {
		panic(fmt.Sprintf("nn: SliceCols(%d, %d) of shape %v", from, to, x.Value.Shape))
	}
	w := to - from
	y := tp.out(anyGrad(x), rowShape(x, m, w)...)
	for i := 0; i < m; i++ {
		copy(y.Value.Data[i*w:(i+1)*w], x.Value.Data[i*n+from:i*n+to])
	}
	if y.Grad != nil {
		tp.record(func() {
			for i := 0; i < m; i++ {
				addTo(x.Grad.Data[i*n+from:i*n+to], y.Grad.Data[i*w:(i+1)*w])
			}
		})
	}
	return y
}

// ReverseRows reverses the order of the rows (time steps) of a matrix.
func (tp *Tape[T]) ReverseRows(x *Var[T]) *Var[T] {
	m, n := mustMatrix("ReverseRows", x)
	y := tp.out(anyGrad(x), m, n)
	for i := 0; i < m; i++ {
		copy(y.Value.Data[i*n:(i+1)*n], x.Value.Data[(m-1-i)*n:(m-i)*n])
	}
	if y.Grad != nil {
		tp.record(func() {
			for i := 0; i < m; i++ {
				addTo(x.Grad.Data[(m-1-i)*n:(m-i)*n], y.Grad.Data[i*n:(i+1)*n])
			}
		})
	}
	return y
}

// Reshape returns x with a new shape of the same size. It is a view: value
// and gradient share x's storage, so no backward step is needed.
func (tp *Tape[T]) Reshape(x *Var[T], shape ...int) *Var[T] {
	if numel(shape) != x.Value.Len() {
		panic(fmt.Sprintf("nn: Reshape %v to %v", x.Value.Shape, shape))
	}
	shape = slices.Clone(shape)
	y := &Var[T]{Value: &Tensor[T]{Shape: shape, Data: x.Value.Data}}
	if x.Grad != nil {
		y.Grad = &Tensor[T]{Shape: shape, Data: x.Grad.Data}
	}
	return y
}

// Sum returns the sum of all elements as a scalar [1].
func (tp *Tape[T]) Sum(x *Var[T]) *Var[T] {
	y := tp.out(anyGrad(x), 1)
	var s T
	for _, v := range x.Value.Data {
		s += v
	}
	y.Value.Data[0] = s
	if y.Grad != nil {
		tp.record(func() {
			g := y.Grad.Data[0]
			for i := range x.Grad.Data {
				x.Grad.Data[i] += g
			}
		})
	}
	return y
}

// Mean returns the mean of all elements as a scalar [1].
func (tp *Tape[T]) Mean(x *Var[T]) *Var[T] {
	return tp.Scale(tp.Sum(x), 1/float64(x.Value.Len()))
}

// Dropout zeroes each element with probability p and scales the survivors
// by 1/(1−p) (inverted dropout, Srivastava et al. 2014), so evaluation needs
// no rescaling. It is the identity in evaluation mode or when p == 0.
func (tp *Tape[T]) Dropout(x *Var[T], p float64) *Var[T] {
	if !tp.train || p <= 0 {
		return x
	}
	if p >= 1 {
		panic("nn: Dropout probability must be < 1")
	}
	y := tp.out(anyGrad(x), x.Value.Shape...)
	mask := tp.arena.alloc(x.Value.Len())
	scale := T(1 / (1 - p))
	for i, v := range x.Value.Data {
		if tp.rng.Float64() >= p {
			mask[i] = scale
			y.Value.Data[i] = v * scale
		}
	}
	if y.Grad != nil {
		tp.record(func() {
			for i, g := range y.Grad.Data {
				x.Grad.Data[i] += g * mask[i]
			}
		})
	}
	return y
}
