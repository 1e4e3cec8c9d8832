package nn

import (
	"github.com/as2/as2/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// This file is the engine's only door to BLAS. Matrix products go through
// gemm, which calls sgemm/dgemm from the selected backend (blas_gonum.go by
// default, blas_openblas.go with -tags openblas). Level-1 helpers use our
// 8-wide AVX kernels for float32 (package kernel) where the CPU has them and
// gonum's 4-wide assembly otherwise: either beats a cgo call on short vectors.

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, where
// op(A) is m×k and op(B) is k×n.
func gemm[T Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 { // C may hold garbage (NaN·0 is NaN)
				clear(row)
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
		return
	}
	if is32[T]() {
		sgemm(tA, tB, m, n, k, float32(alpha), asF32(a), lda, asF32(b), ldb, float32(beta), asF32(c), ldc)
	} else {
		dgemm(tA, tB, m, n, k, float64(alpha), asF64(a), lda, asF64(b), ldb, float64(beta), asF64(c), ldc)
	}
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// axpy: y += alpha·x (unit strides, len(x) == len(y)).
func axpy[T Float](alpha T, x, y []T) {
	if len(x) == 0 {
		return
	}
	if is32[T]() {
		if kernel.Axpy(float32(alpha), asF32(x), asF32(y)) {
			return
		}
		blas32.Implementation().Saxpy(len(x), float32(alpha), asF32(x), 1, asF32(y), 1)
	} else {
		blas64.Implementation().Daxpy(len(x), float64(alpha), asF64(x), 1, asF64(y), 1)
	}
}

// dot returns x·y.
func dot[T Float](x, y []T) T {
	if len(x) == 0 {
		return 0
	}
	if is32[T]() {
		return T(blas32.Implementation().Sdot(len(x), asF32(x), 1, asF32(y), 1))
	}
	return T(blas64.Implementation().Ddot(len(x), asF64(x), 1, asF64(y), 1))
}

// addTo: y += x.
func addTo[T Float](y, x []T) { add(y[:len(x)], y, x) }

// add: dst = a + b (a and b at least as long as dst).
func add[T Float](dst, a, b []T) {
	if is32[T]() {
		kernel.Add(asF32(dst), asF32(a), asF32(b))
		return
	}
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// maxInto: dst = max(dst, src) element-wise, keeping dst where either is
// NaN.
func maxInto[T Float](dst, src []T) {
	if is32[T]() {
		kernel.Max(asF32(dst), asF32(src))
		return
	}
	src = src[:len(dst)]
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}
