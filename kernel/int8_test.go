package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// int8Case is a random int8 problem whose quantisation is exact: A
// holds integers in −127..127 with ±127 in every row (so a row's scale is
// 1 and q = A), W int8 with scales 1, so that GemmInt8 must return the
// integer sums themselves; extremes (all ±127) would show any saturation.
type int8Case struct {
	m, n, k int
	a       []float32 // [m,k]
	w       []int8    // [n,k]
	mat     *Int8Matrix
}

func newInt8Case(t testing.TB, rng *rand.Rand, m, n, k int, extreme bool) int8Case {
	t.Helper()
	w := make([]int8, n*k)
	for i := range w {
		w[i] = int8(rng.IntN(255) - 127)
		if extreme {
			w[i] = int8(127 * (1 - 2*rng.IntN(2)))
		}
	}
	scales := make([]float32, n)
	for j := range scales {
		scales[j] = 1
	}
	mat, err := NewInt8Matrix(w, scales, n, k)
	if err != nil {
		t.Fatal(err)
	}
	a := make([]float32, m*k)
	for i := 0; i < m; i++ {
		for l := 0; l < k; l++ {
			v := rng.IntN(255) - 127
			if extreme {
				v = 127 * (1 - 2*rng.IntN(2))
			}
			a[i*k+l] = float32(v)
		}
		a[i*k+rng.IntN(k)] = float32(127 * (1 - 2*rng.IntN(2)))
	}
	return int8Case{m, n, k, a, w, mat}
}

// naive is Σ_l A[i,l]·w[j,l] by the definition, on the unpacked weights.
func (c int8Case) naive() []int32 {
	out := make([]int32, c.m*c.n)
	for i := 0; i < c.m; i++ {
		for j := 0; j < c.n; j++ {
			var s int32
			for l := 0; l < c.k; l++ {
				s += int32(c.a[i*c.k+l]) * int32(c.w[j*c.k+l])
			}
			out[i*c.n+j] = s
		}
	}
	return out
}

// checkInt8Sums holds the active path's GemmInt8 to the definition,
// exactly: the sums stay below 2^24 (k ≤ 1040), where float32 holds
// every integer, and the scales are 1.
func checkInt8Sums(t *testing.T, c int8Case) {
	t.Helper()
	if c.k > 1040 {
		t.Fatalf("k = %d: sums may pass 2^24", c.k)
	}
	want := c.naive()
	got := make([]float32, c.m*c.n)
	GemmInt8(c.m, c.a, c.k, c.mat, nil, 0, false, got, c.n)
	for i, v := range got {
		if v != float32(want[i]) {
			t.Fatalf("%dx%dx%d on %v: sum [%d,%d] = %v, want %d", c.m, c.n, c.k, Active(), i/c.n, i%c.n, v, want[i])
		}
	}
}

var int8Shapes = [][3]int{
	{1, 1, 1}, {1, 1, 4}, {1, 32, 4}, {8, 32, 4}, {7, 31, 3}, {9, 33, 5}, {3, 1, 129},
	{16, 64, 384}, {17, 65, 383}, {2, 100, 7}, {40, 3, 1000}, {13, 96, 130},
}

// Every path's int32 sums equal the definition's (and so each other's),
// on odd shapes, ordinary values and the extremes where VPMADDUBSW would
// saturate without the sign trick.
func TestInt8SumsMatchGeneric(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, s := range int8Shapes {
			for _, extreme := range []bool{false, true} {
				checkInt8Sums(t, newInt8Case(t, rng, s[0], s[1], s[2], extreme))
			}
		}
	})
}

// int8Bound is GemmInt8's error bound for output (i, j) against A times
// W's float values wf [n,k]: a_i/2·Σ_l |wf[j,l]|, a_i = max|A[i,:]|/127,
// plus float32 rounding of the scaling and of the reference's sum.
func int8Bound(a []float32, lda, i int, wf []float64, k, j int) float64 {
	var amax, wsum, dot float64
	for l := 0; l < k; l++ {
		amax = math.Max(amax, math.Abs(float64(a[i*lda+l])))
		wsum += math.Abs(wf[j*k+l])
		dot += math.Abs(float64(a[i*lda+l]) * wf[j*k+l])
	}
	return amax/127/2*wsum + 1e-5*dot + 1e-30
}

// GemmInt8 against float64 products with the dequantised weights stays
// within the activations' quantisation bound on every path, for beta 0
// and 1, with and without a bias and a ReLU, and padded strides; and the
// int8 result is close to the float weights' too (the weights' own
// rounding added). The ReLU's results are exactly max(0, ·) of the same
// call's without it.
func TestGemmInt8WithinQuantisationBound(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		for _, s := range append(int8Shapes, [3]int{64, 384, 384}) {
			m, n, k := s[0], s[1], s[2]
			for _, tc := range []struct {
				beta       float32
				bias, relu bool
			}{{0, false, false}, {1, false, false}, {0, true, false}, {1, true, false}, {0, true, true}, {1, true, true}} {
				beta := tc.beta
				var bias []float32
				if tc.bias {
					bias = randF32(rng, n)
				}
				lda, ldc := k+2, n+3
				a := randF32(rng, m*lda)
				wf32 := randF32(rng, n*k)
				mat, err := QuantizeInt8Matrix(wf32, n, k)
				if err != nil {
					t.Fatal(err)
				}
				wdq := dequant(mat)
				c := randF32(rng, m*ldc)
				c0 := append([]float32(nil), c...)
				GemmInt8(m, a, lda, mat, bias, beta, tc.relu, c, ldc)
				if tc.relu {
					plain := append([]float32(nil), c0...)
					GemmInt8(m, a, lda, mat, bias, beta, false, plain, ldc)
					for i, v := range plain {
						if i%ldc < n && v < 0 {
							plain[i] = 0
						}
					}
					if !slices.Equal(c, plain) {
						t.Fatalf("%v beta %v: with the ReLU, C is not max(0, C) of the call without it", s, beta)
					}
				}
				for i := 0; i < m; i++ {
					for j := 0; j < ldc; j++ {
						got := float64(c[i*ldc+j])
						if j >= n {
							if got != float64(c0[i*ldc+j]) {
								t.Fatalf("%v: C[%d,%d] past n written", s, i, j)
							}
							continue
						}
						var want float64
						for l := 0; l < k; l++ {
							want += float64(a[i*lda+l]) * wdq[j*k+l]
						}
						want += float64(beta) * float64(c0[i*ldc+j])
						if bias != nil {
							want += float64(bias[j])
						}
						if tc.relu {
							want = max(want, 0) // 1-Lipschitz: the bound holds
						}
						if d := math.Abs(got - want); d > int8Bound(a, lda, i, wdq, k, j)+1e-6*math.Abs(want) {
							t.Fatalf("%v beta %v bias %v relu %v: C[%d,%d] = %g, want %g ± %g", s, beta, tc.bias, tc.relu, i, j, got, want, int8Bound(a, lda, i, wdq, k, j))
						}
					}
				}
			}
		}
	})
}

// dequant returns W's float values, [n,k].
func dequant(w *Int8Matrix) []float64 {
	out := make([]float64, w.n*w.k)
	for j := 0; j < w.n; j++ {
		p, c := j/int8Panel, j%int8Panel
		for l := 0; l < w.k; l++ {
			v := float64(w.packed[p*w.kp*int8Panel+(l/4)*int8Panel*4+c*4+l%4]) * float64(w.scale[j])
			if w.inScale != nil {
				v *= float64(w.inScale[l])
			}
			out[j*w.k+l] = v
		}
	}
	return out
}

// NewInt8MatrixT's per-input scales (model files' layout for nn's [in,
// out] weights) give A·W within the bound too, and its matrix reads the
// same values as NewInt8Matrix's from the transposed data.
func TestNewInt8MatrixT(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const m, k, n = 10, 70, 45
	q := make([]int8, k*n)
	for i := range q {
		q[i] = int8(rng.IntN(255) - 127)
	}
	scales := make([]float32, k)
	for i := range scales {
		scales[i] = float32(rng.Float64()*0.1 + 1e-3)
	}
	mat, err := NewInt8MatrixT(q, scales, k, n)
	if err != nil {
		t.Fatal(err)
	}
	wf := dequant(mat) // [n,k]
	for l := 0; l < k; l++ {
		for j := 0; j < n; j++ {
			if want := float64(q[l*n+j]) * float64(scales[l]); math.Abs(wf[j*k+l]-want) > 1e-7 {
				t.Fatalf("W[%d,%d] = %g, want %g", l, j, wf[j*k+l], want)
			}
		}
	}
	forEachPath(t, func(t *testing.T) {
		a := randF32(rng, m*k)
		c := make([]float32, m*n)
		GemmInt8(m, a, k, mat, nil, 0, false, c, n)
		for i := 0; i < m; i++ {
			// The bound on A⊙s, the values actually quantised.
			as := make([]float32, k)
			var amax, want, bound float64
			for l := range as {
				as[l] = a[i*k+l] * scales[l]
				amax = math.Max(amax, math.Abs(float64(as[l])))
			}
			for j := 0; j < n; j++ {
				want, bound = 0, 0
				for l := 0; l < k; l++ {
					want += float64(a[i*k+l]) * wf[j*k+l]
					bound += math.Abs(float64(q[l*n+j]))
				}
				bound = amax/127/2*bound + 1e-5*math.Abs(want) + 1e-6
				if d := math.Abs(float64(c[i*n+j]) - want); d > bound {
					t.Fatalf("C[%d,%d] = %g, want %g ± %g", i, j, c[i*n+j], want, bound)
				}
			}
		}
	})
}

// Bad weights and shapes give errors, not panics; a zero row of A gives
// zeros and a NaN in a row gives NaN in that row only.
func TestInt8Edges(t *testing.T) {
	if _, err := NewInt8Matrix([]int8{1, -128}, []float32{1}, 1, 2); !errors.Is(err, errInt8Min) {
		t.Errorf("weight −128: error %v", err)
	}
	for _, tc := range []struct {
		q      []int8
		scales []float32
		n, k   int
	}{{[]int8{1, 2}, []float32{1}, 1, 3}, {[]int8{1}, nil, 1, 1}, {nil, nil, 0, 0}} {
		if _, err := NewInt8Matrix(tc.q, tc.scales, tc.n, tc.k); err == nil {
			t.Errorf("NewInt8Matrix(%d weights, %d scales, %d×%d): no error", len(tc.q), len(tc.scales), tc.n, tc.k)
		}
	}
	if _, err := QuantizeInt8Matrix(make([]float32, 5), 2, 3); err == nil {
		t.Error("QuantizeInt8Matrix of 5 values as 2×3: no error")
	}
	forEachPath(t, func(t *testing.T) {
		mat, err := QuantizeInt8Matrix(randF32(rand.New(rand.NewPCG(1, 1)), 3*20), 3, 20)
		if err != nil {
			t.Fatal(err)
		}
		a := make([]float32, 3*20)
		a[20+4] = float32(math.NaN())
		a[40] = 1
		c := make([]float32, 9)
		GemmInt8(3, a, 20, mat, nil, 0, false, c, 3)
		for j := 0; j < 3; j++ {
			if c[j] != 0 || !math.IsNaN(float64(c[3+j])) || math.IsNaN(float64(c[6+j])) {
				t.Fatalf("rows zero, NaN, ordinary: %v", c)
			}
		}
	})
}

// FuzzInt8GEMM: on any shape up to 40×70×140, every path's int32 sums
// equal the definition's, and GemmInt8 stays within its bound.
//
//	go test -run '^$' -fuzz FuzzInt8GEMM -fuzztime 30s ./kernel/
func FuzzInt8GEMM(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint8(1), uint64(1), false)
	f.Add(uint8(9), uint8(33), uint8(5), uint64(2), true)
	f.Add(uint8(17), uint8(65), uint8(131), uint64(3), false)
	f.Fuzz(func(t *testing.T, m8, n8, k8 uint8, seed uint64, extreme bool) {
		m, n, k := int(m8)%40+1, int(n8)%70+1, int(k8)%140+1 // odd sizes around the 8×32 tile and k's groups of 4
		saved := active
		defer setPath(saved)
		for _, p := range paths() {
			setPath(p)
			rng := rand.New(rand.NewPCG(seed, uint64(p)))
			checkInt8Sums(t, newInt8Case(t, rng, m, n, k, extreme))
			a := randF32(rng, m*k)
			mat, err := QuantizeInt8Matrix(randF32(rng, n*k), n, k)
			if err != nil {
				t.Fatal(err)
			}
			wdq := dequant(mat)
			c := make([]float32, m*n)
			relu := seed%2 == 1
			GemmInt8(m, a, k, mat, nil, 0, relu, c, n)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					var want float64
					for l := 0; l < k; l++ {
						want += float64(a[i*k+l]) * wdq[j*k+l]
					}
					if relu {
						want = max(want, 0)
					}
					if d := math.Abs(float64(c[i*n+j]) - want); d > int8Bound(a, k, i, wdq, k, j)+1e-6*math.Abs(want) {
						t.Fatalf("%dx%dx%d on %v, relu %v: C[%d,%d] = %g, want %g", m, n, k, p, relu, i, j, c[i*n+j], want)
					}
				}
			}
		}
	})
}

// BenchmarkGemmInt8MiniLM times the int8 GEMM against the float one at
// the MiniLM shapes (y = x·W, W as a Linear's [in,out]), on each path,
// back to back; GFLOP/s counts a multiply-add as two operations:
//
//	go test -run '^$' -bench 'MiniLMInt8' -count 3 ./kernel/
func BenchmarkGemmInt8MiniLM(b *testing.B) {
	saved := active
	defer setPath(saved)
	for _, s := range miniLMShapes[:4] {
		rng := rand.New(rand.NewPCG(1, 2))
		a, wf, c := randF32(rng, s.m*s.k), randF32(rng, s.k*s.n), make([]float32, s.m*s.n)
		wT := make([]float32, s.n*s.k) // [n,k] for the int8 packing
		for l := 0; l < s.k; l++ {
			for j := 0; j < s.n; j++ {
				wT[j*s.k+l] = wf[l*s.n+j]
			}
		}
		mat, err := QuantizeInt8Matrix(wT, s.n, s.k)
		if err != nil {
			b.Fatal(err)
		}
		// The same weights in a model file's layout (NewInt8MatrixT, a
		// scale per input), which the stored int8 models run: their
		// activations are scaled before they are quantised.
		qT, inScales := make([]int8, s.k*s.n), make([]float32, s.k)
		for l := 0; l < s.k; l++ {
			inScales[l] = quantizeRowGo(qT[l*s.n:(l+1)*s.n], wf[l*s.n:(l+1)*s.n], 0)
		}
		matT, err := NewInt8MatrixT(qT, inScales, s.k, s.n)
		if err != nil {
			b.Fatal(err)
		}
		flops := 2 * float64(s.m*s.n*s.k)
		for _, p := range paths() {
			b.Run(fmt.Sprintf("%s/%s/float", s.name, p), func(b *testing.B) {
				setPath(p)
				for b.Loop() {
					if !Gemm(false, false, s.m, s.n, s.k, 1, a, s.k, wf, s.n, 0, c, s.n) {
						sgemmGonum(s.m, s.n, s.k, a, wf, c)
					}
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
			b.Run(fmt.Sprintf("%s/%s/int8", s.name, p), func(b *testing.B) {
				setPath(p)
				for b.Loop() {
					GemmInt8(s.m, a, s.k, mat, nil, 0, false, c, s.n)
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
			b.Run(fmt.Sprintf("%s/%s/int8stored", s.name, p), func(b *testing.B) {
				setPath(p)
				for b.Loop() {
					GemmInt8(s.m, a, s.k, matT, nil, 0, false, c, s.n)
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// The assembly quantisation (AVX-512, and AVX2 with its Go tail) gives
// the generic one's bytes and scale exactly, ties (x.5 at scale 1)
// rounding to even on both, at every length around its 8- and 16-wide
// blocks, with and without VNNI's flip.
func TestQuantizeRowPaths(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 12))
		for n := 1; n <= 70; n++ {
			for _, flip := range []int8{0, -128} {
				for _, ties := range []bool{false, true} {
					x := randF32(rng, n)
					if ties {
						for i := range x {
							x[i] = float32(rng.IntN(254)-127) + 0.5
						}
						x[rng.IntN(n)] = 127 // scale 1: x·inv keeps the .5
					}
					want, got := make([]int8, n+1), make([]int8, n+1)
					ws := quantizeRowGo(want, x, flip)
					gs := quantizeRow(got, x, flip)
					if gs != ws {
						t.Fatalf("n=%d: scale %v, want %v", n, gs, ws)
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("n=%d flip %d: q[%d] = %d, want %d (x %v)", n, flip, i, got[i], want[i], x[min(i, n-1)])
						}
					}
				}
			}
		}
	})
}
