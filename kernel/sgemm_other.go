//go:build !amd64 || purego

package kernel

// Gemm reports false: without the amd64 kernels callers use gonum.
func Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) bool {
	return false
}

// Add sets dst[i] = a[i] + b[i] for i < len(dst).
func Add(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// Mul sets dst[i] = a[i] * b[i] for i < len(dst).
func Mul(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

// Max sets dst[i] = max(dst[i], src[i]) for i < len(dst), keeping dst[i]
// where either is NaN.
func Max(dst, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

// Axpy reports false: without the amd64 kernels callers use gonum.
func Axpy(alpha float32, x, y []float32) bool { return false }

// Dot reports false: without the amd64 kernels callers use gonum.
func Dot(x, y []float32) (float32, bool) { return 0, false }

// ExpScaled does nothing (n 0): without the amd64 kernels callers loop.
func ExpScaled(dst, src []float32, scale, m float32) (n int, sum float32) { return 0, 0 }

// GELU does nothing (n 0): without the amd64 kernels callers loop.
func GELU(dst, src []float32) (n int) { return 0 }
