//go:build !openblas || !cgo

package nn

import (
	"github.com/as2/as2/kernel"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// The default backend: pure Go, so that CGO_ENABLED=0 builds work
// everywhere. float32 products use package kernel's AVX-512 or AVX2/FMA
// kernels where they apply (the path kernel picked at start-up), gonum's
// BLAS otherwise; float64 (gradient checks) always uses gonum.

func sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if kernel.Gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	blas32.Implementation().Sgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func dgemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas64.Implementation().Dgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// BLASName describes the matrix-multiply backend, for reports: as2's
// AVX-512 or AVX2/FMA kernels do the float32 work where the CPU has them
// (and kernel.EnvVar does not force them off), gonum's elsewhere.
// kernel.Describe says more about the path.
func BLASName() string {
	switch {
	case kernel.HasAVX512:
		return "pure Go, AVX-512 kernels"
	case kernel.HasAVX2FMA:
		return "pure Go, AVX2/FMA kernels"
	}
	return "pure Go, gonum"
}

// EnsureBLASEnv prepares the environment the BLAS backend needs before any
// work starts. The pure-Go backend needs nothing; see the openblas build.
func EnsureBLASEnv() {}
