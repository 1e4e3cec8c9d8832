//go:build !amd64 || purego

package f32

// HasAVX2FMA is false where the kernels are not built.
const HasAVX2FMA = false

// Gemm reports false: without the amd64 kernels callers use gonum.
func Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) bool {
	return false
}
