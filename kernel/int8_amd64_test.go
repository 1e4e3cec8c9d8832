//go:build amd64 && !purego

package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// reluRows returns m×lda values like a ReLU's output: non-negative, each
// position non-zero with probability density (the rest 0), a row of
// zeros when zeroRow ≥ 0, and every other row's maximum at 127, so that
// with scales of 1 each row's q is its values.
func reluRows(rng *rand.Rand, m, k, lda int, density float64, zeroRow int) []float32 {
	a := make([]float32, m*lda)
	for i := 0; i < m; i++ {
		if i == zeroRow {
			continue
		}
		for l := 0; l < k; l++ {
			if rng.Float64() < density {
				a[i*lda+l] = float32(rng.IntN(128))
			}
		}
		a[i*lda+rng.IntN(k)] = 127
	}
	return a
}

// The sparse kernel, on a ReLU's outputs (non-negative, mostly zero):
// its sums are the definition's exactly, and its C is bit for bit the
// dense tile's, with bias, beta, ReLU, padded strides and n past whole
// chunks of 256; and it is the kernel that ran (sparseGroups takes the
// rows), or, for dense rows or negative values, the one that did not.
func TestGemmInt8Sparse(t *testing.T) {
	if !hasVNNI {
		t.Skipf("no VNNI on %s: the sparse kernel is part of the VNNI path", Describe())
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, s := range [][3]int{{1, 256, 4}, {7, 256, 384}, {9, 300, 1536}, {20, 512, 1040}, {3, 520, 130}, {8, 256, 1}, {33, 768, 61}} {
		m, n, k := s[0], s[1], s[2]
		for _, density := range []float64{0.02, 0.1, 0.3} {
			c := newInt8Case(t, rng, m, n, k, false)
			c.a = reluRows(rng, m, k, k, density, m/2)
			a, mat := c.a, c.mat
			if k <= 1040 {
				checkInt8Sums(t, c)
			}
			// The decision: these rows go to the sparse kernel.
			kp := mat.kp
			u := make([]int8, m*kp)
			for i := 0; i < m; i++ {
				quantizeRowGo(u[i*kp:(i+1)*kp], a[i*k:(i+1)*k], -128)
				for l := k; l < kp; l++ {
					u[i*kp+l] = -128 // q = 0 past k, as GemmInt8 pads
				}
			}
			var sc int8Scratch
			if !sparseGroups(m, kp, u, &sc) && density <= 0.02 && k >= 64 {
				// (k = 61 and 130 leave a group part padding: it must not count as negative.)
				t.Fatalf("%v density %v: sparseGroups refused a ReLU's rows", s, density)
			}
			// Bit for bit the dense tile's C, for every epilogue.
			mf, err := QuantizeInt8Matrix(randF32(rng, n*k), n, k)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				beta       float32
				bias, relu bool
			}{{0, false, false}, {1, true, false}, {0, true, true}, {0.5, true, true}} {
				lda, ldc := k, n+5
				x := randF32(rng, m*k)
				for i := range x {
					x[i] = max(x[i], 0) * a[i] // ReLU-like, with a's zeros
				}
				var bias []float32
				if tc.bias {
					bias = randF32(rng, n)
				}
				c0 := randF32(rng, m*ldc)
				c0[3] = float32(math.NaN()) // beta = 0 must overwrite it
				dense, sparse := slices.Clone(c0), slices.Clone(c0)
				int8Sparse = false
				GemmInt8(m, x, lda, mf, bias, tc.beta, tc.relu, dense, ldc)
				int8Sparse = true
				GemmInt8(m, x, lda, mf, bias, tc.beta, tc.relu, sparse, ldc)
				for i := range dense {
					if math.Float32bits(dense[i]) != math.Float32bits(sparse[i]) {
						t.Fatalf("%v density %v %+v: C[%d,%d] sparse %v, dense %v", s, density, tc, i/ldc, i%ldc, sparse[i], dense[i])
					}
				}
			}
		}
	}
	// Negative values, or dense rows, keep the dense tile.
	var sc int8Scratch
	u := make([]int8, 2*64)
	for i := range u {
		u[i] = -128 // q = 0
	}
	u[5] = 0x7f // q = −1: a negative
	if sparseGroups(2, 64, u, &sc) {
		t.Error("sparseGroups took a row with a negative q")
	}
	for i := range u {
		u[i] = 1 // q = −127: every group non-zero... and negative
	}
	if sparseGroups(2, 64, u, &sc) {
		t.Error("sparseGroups took dense rows")
	}
	for i := range u {
		u[i] = -127 // q = 1 ≥ 0, every group non-zero
	}
	if sparseGroups(2, 64, u, &sc) {
		t.Error("sparseGroups took dense non-negative rows")
	}
}

// BenchmarkGemmInt8Sparse times USE-Lite's second feed-forward layer
// (1536 → 512, 128 positions) on a ReLU's output at its measured
// density (7% of the values non-zero) and denser, sparse kernel against
// the dense tile:
//
//	go test -run '^$' -bench 'GemmInt8Sparse' -count 3 ./kernel/
func BenchmarkGemmInt8Sparse(b *testing.B) {
	if !hasVNNI {
		b.Skipf("no VNNI on %s", Describe())
	}
	const m, n, k = 128, 512, 1536
	rng := rand.New(rand.NewPCG(1, 2))
	mat, err := QuantizeInt8Matrix(randF32(rng, n*k), n, k)
	if err != nil {
		b.Fatal(err)
	}
	c := make([]float32, m*n)
	defer func() { int8Sparse = true }()
	for _, density := range []float64{0.07, 0.15, 0.3} {
		a := reluRows(rng, m, k, k, density, -1)
		for _, sparse := range []bool{false, true} {
			b.Run(fmt.Sprintf("density%.2f/sparse=%v", density, sparse), func(b *testing.B) {
				int8Sparse = sparse
				for b.Loop() {
					GemmInt8(m, a, k, mat, nil, 0, false, c, n)
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GOPS")
			})
		}
	}
}

// The sparse kernel against the dense tile, bit for bit, on odd shapes
// around its chunks of 256 outputs and at any density:
//
//	go test -run '^$' -fuzz FuzzInt8GEMMSparse -fuzztime 30s ./kernel/
func FuzzInt8GEMMSparse(f *testing.F) {
	f.Add(uint8(1), uint16(256), uint16(4), uint8(5), uint64(1))
	f.Add(uint8(9), uint16(300), uint16(1536), uint8(18), uint64(2))
	f.Add(uint8(33), uint16(513), uint16(61), uint8(0), uint64(3))
	f.Fuzz(func(t *testing.T, m8 uint8, n16, k16 uint16, d8 uint8, seed uint64) {
		if !hasVNNI {
			t.Skipf("no VNNI on %s", Describe())
		}
		m, n, k := int(m8)%40+1, int(n16)%600+1, int(k16)%1600+1
		density := float64(d8) / 255
		rng := rand.New(rand.NewPCG(seed, 9))
		mat, err := QuantizeInt8Matrix(randF32(rng, n*k), n, k)
		if err != nil {
			t.Fatal(err)
		}
		a := randF32(rng, m*k)
		for i := range a {
			if rng.Float64() >= density {
				a[i] = 0
			}
			a[i] = max(a[i], 0) // a ReLU's output
		}
		bias := randF32(rng, n)
		beta := float32(seed % 2)
		c0 := randF32(rng, m*n)
		dense, sparse := slices.Clone(c0), slices.Clone(c0)
		defer func() { int8Sparse = true }()
		int8Sparse = false
		GemmInt8(m, a, k, mat, bias, beta, seed%3 == 0, dense, n)
		int8Sparse = true
		GemmInt8(m, a, k, mat, bias, beta, seed%3 == 0, sparse, n)
		for i := range dense {
			if math.Float32bits(dense[i]) != math.Float32bits(sparse[i]) {
				t.Fatalf("%dx%dx%d density %.2f: C[%d,%d] sparse %v, dense %v", m, n, k, density, i/n, i%n, sparse[i], dense[i])
			}
		}
	})
}
