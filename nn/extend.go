package nn

// Ops defined outside nn. The engine knows no model: an architecture that
// needs an op of its own (a convolution over a frozen embedding table that
// reuses word projections, say) writes it in its own package the way nn's
// ops are written: compute the output now, and record a closure that
// accumulates the output's gradient into the inputs' gradients.

// Output returns a new op output of the given shape with a zeroed value,
// and a gradient buffer iff needGrad (see AnyGrad). It lives until Reset.
func (tp *Tape[T]) Output(needGrad bool, shape ...int) *Var[T] { return tp.out(needGrad, shape...) }

// OutputDirty is Output for ops that overwrite every element of their
// value: it is not zeroed first (the gradient buffer is).
func (tp *Tape[T]) OutputDirty(needGrad bool, shape ...int) *Var[T] {
	return tp.outDirty(needGrad, shape...)
}

// Alloc returns n zeroed elements of scratch memory that live until Reset.
func (tp *Tape[T]) Alloc(n int) []T { return tp.arena.alloc(n) }

// OnBackward records f, to be run by Backward after the closures of every
// op recorded later: f pushes an op's output gradient to its inputs.
func (tp *Tape[T]) OnBackward(f func()) { tp.record(f) }

// AnyGrad reports whether any of vs needs a gradient (nil Vars do not).
func AnyGrad[T Float](vs ...*Var[T]) bool { return anyGrad(vs...) }

// Gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices,
// where op(A) is m×k and op(B) is k×n, on the selected BLAS backend.
func Gemm[T Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Axpy adds alpha·x to y (len(x) == len(y)), on the fastest kernel.
func Axpy[T Float](alpha T, x, y []T) { axpy(alpha, x, y) }
