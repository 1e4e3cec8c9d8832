package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// miniLMShapes are the GEMMs of one layer of a MiniLM-shaped
// cross-encoder (width 384, 12 heads, FFN 1536) on a batch of 4 sequences
// of 128 tokens, crossencoder's inference batch of 512 positions.
var miniLMShapes = []struct {
	name    string
	m, n, k int
	tB      bool
}{
	{"qkv_512x1152x384", 512, 1152, 384, false},
	{"out_512x384x384", 512, 384, 384, false},
	{"ffnin_512x1536x384", 512, 1536, 384, false},
	{"ffnout_512x384x1536", 512, 384, 1536, false},
	{"scores_128x128x32_NT", 128, 128, 32, true},
	{"context_128x32x128", 128, 32, 128, false},
}

func randF32(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// BenchmarkGemmMiniLM times the float GEMM at the MiniLM shapes on every
// path this CPU runs (generic is gonum), reporting GFLOP/s:
//
//	go test -run '^$' -bench GemmMiniLM -count 3 ./kernel/
func BenchmarkGemmMiniLM(b *testing.B) {
	saved := active
	defer setPath(saved)
	for _, s := range miniLMShapes {
		rng := rand.New(rand.NewPCG(1, 2))
		a, bb, c := randF32(rng, s.m*s.k), randF32(rng, s.k*s.n), make([]float32, s.m*s.n)
		ldb := s.n
		if s.tB {
			ldb = s.k
		}
		for _, p := range paths() {
			b.Run(fmt.Sprintf("%s/%s", s.name, p), func(b *testing.B) {
				setPath(p)
				for b.Loop() {
					if !Gemm(false, s.tB, s.m, s.n, s.k, 1, a, s.k, bb, ldb, 0, c, s.n) {
						blas32.Implementation().Sgemm(blas.NoTrans, trans(s.tB), s.m, s.n, s.k, 1, a, s.k, bb, ldb, 0, c, s.n)
					}
				}
				b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// sgemmGonum is the generic path's C = A·B, as callers run it when Gemm
// declines.
func sgemmGonum(m, n, k int, a, b, c []float32) {
	blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n)
}

// BenchmarkRowKernels times the transformer's row operations at MiniLM's
// widths on every path (generic: the Go loops nn runs there): a softmax
// row of 128 scores (maximum, exponentials, scaling), GELU over an FFN
// row of 1536, LayerNorm over a row of 384.
//
//	go test -run '^$' -bench RowKernels -count 3 ./kernel/
func BenchmarkRowKernels(b *testing.B) {
	saved := active
	defer setPath(saved)
	rng := rand.New(rand.NewPCG(3, 4))
	scores, ffn, hid := randF32(rng, 128), randF32(rng, 1536), randF32(rng, 384)
	gain, bias := randF32(rng, 384), randF32(rng, 384)
	y, xhat := make([]float32, 1536), make([]float32, 1536)
	for _, p := range paths() {
		b.Run("softmax128/"+p.String(), func(b *testing.B) {
			setPath(p)
			for b.Loop() {
				m := MaxOf(scores)
				n, s := ExpScaled(y[:128], scores, 0.125, m)
				for j, v := range scores[n:] {
					e := float32(math.Exp(float64(0.125 * (v - m))))
					y[n+j] = e
					s += e
				}
				Scale(y[:128], 1/s)
			}
		})
		b.Run("gelu1536/"+p.String(), func(b *testing.B) {
			setPath(p)
			for b.Loop() {
				n := GELU(y, ffn)
				for j, v := range ffn[n:] {
					y[n+j] = v / 2 * (1 + float32(math.Erf(float64(v)/math.Sqrt2)))
				}
			}
		})
		b.Run("layernorm384/"+p.String(), func(b *testing.B) {
			setPath(p)
			for b.Loop() {
				LayerNormRow(y[:384], xhat[:384], hid, gain, bias, 1e-12)
			}
		})
	}
}
