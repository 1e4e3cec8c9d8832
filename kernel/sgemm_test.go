package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// Gemm (assembly kernels where they apply, else gonum) matches gonum's
// reference on shapes with and without edges, every transposition, padded
// strides and several betas.
func TestSgemmMatchesGonum(t *testing.T) {
	forEachPath(t, testSgemmMatchesGonum)
}

func testSgemmMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	shapes := [][3]int{{25, 300, 520}, {7, 300, 520}, {6, 16, 1}, {13, 37, 29}, {300, 520, 25},
		{10, 300, 600}, {1, 300, 300}, {3, 4, 8}, {5, 17, 9}, {12, 32, 100}, {300, 300, 1}, {9, 8, 24}, {8, 12, 16}, {5, 9, 33},
		{25, 300, 5}, {7, 300, 10}, {10, 300, 612}, {2, 44, 3}, {100, 1, 603}, {64, 1, 16}, // short-k NT (feature convolutions), NN column tails, matrix-vector
		{128, 128, 32}, {128, 32, 128}, {16, 384, 96}, // attention's scores and context, a MiniLM-like layer
		{13, 33, 20}, {4, 31, 7}, {9, 47, 64}, {1, 32, 50}, {15, 65, 3}, {8, 16, 512}, {29, 70, 40}} // AVX-512 tiles: 12/8/4/1 rows, masked column tails
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			for _, beta := range []float32{0, 1, 0.5} {
				name := fmt.Sprintf("%dx%dx%d_tA=%v_tB=%v_beta=%v", m, n, k, tr[0], tr[1], beta)
				ar, ac := m, k
				if tr[0] {
					ar, ac = k, m
				}
				br, bc := k, n
				if tr[1] {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+3, bc+1, n+2 // padded strides
				a := make([]float32, ar*lda)
				b := make([]float32, br*ldb)
				c := make([]float32, m*ldc)
				for _, x := range [][]float32{a, b, c} {
					for i := range x {
						x[i] = float32(rng.NormFloat64())
					}
				}
				want := append([]float32(nil), c...)
				blas32.Implementation().Sgemm(trans(tr[0]), trans(tr[1]), m, n, k, 1, a, lda, b, ldb, beta, want, ldc)
				if !Gemm(tr[0], tr[1], m, n, k, 1, a, lda, b, ldb, beta, c, ldc) {
					blas32.Implementation().Sgemm(trans(tr[0]), trans(tr[1]), m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
				}
				for i := 0; i < m; i++ {
					for j := 0; j < ldc; j++ {
						got, w := c[i*ldc+j], want[i*ldc+j]
						if math.Abs(float64(got-w)) > 1e-4*math.Sqrt(float64(k))*max(1, math.Abs(float64(w))) {
							t.Fatalf("%s: C[%d,%d] = %g, want %g", name, i, j, got, w)
						}
					}
				}
			}
		}
	}
}
