package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpScaled checks the 8-wide exponential against math.Exp, over the
// range a softmax gives it (scale·(x − m) ≤ 0) and past both clamps, and
// that its sum is the sum of what it wrote; a NaN stays NaN.
func TestExpScaled(t *testing.T) { forEachPath(t, testExpScaled) }

// wantDone is how many of size values ExpScaled and GELU do on the active
// path.
func wantDone(size int) int {
	switch {
	case size < vecMin || !HasAVX2FMA:
		return 0
	case HasAVX512:
		return size
	}
	return size &^ 7
}

func testExpScaled(t *testing.T) {
	if !HasAVX2FMA {
		t.Skip("generic path: ExpScaled does nothing, and callers loop")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{16, 23, 64, 1001} {
		src := make([]float32, size)
		for i := range src {
			src[i] = float32(rng.NormFloat64() * 30)
		}
		src[3] = 200                       // past the upper clamp once scaled
		guarded := make([]float32, size+1) // guarded[size]: past the end
		dst := guarded[:size]
		const scale, m = 0.5, 40
		n, sum := ExpScaled(dst, src, scale, m)
		if guarded[size] != 0 {
			t.Fatalf("%d values: wrote past the end", size)
		}
		if n != wantDone(size) {
			t.Fatalf("%d values: n %d, want %d", size, n, wantDone(size))
		}
		var want float64
		for i, v := range src[:n] {
			// x in float32, as the kernel computes it: the error measured is
			// the exponential's alone.
			x := math.Max(-87, math.Min(88, float64(float32(scale)*(v-m))))
			e := math.Exp(x)
			want += float64(dst[i])
			if rel := math.Abs(float64(dst[i])-e) / e; rel > 3e-7 {
				t.Errorf("exp(%v) = %v, want %v (relative error %.2g)", x, dst[i], e, rel)
			}
		}
		if math.Abs(float64(sum)-want) > 1e-6*want {
			t.Errorf("%d values: sum %v, want %v", size, sum, want)
		}
		for i := n; i < size; i++ {
			if dst[i] != 0 {
				t.Errorf("value %d past n written", i)
			}
		}
	}
	src := make([]float32, 16)
	src[5] = float32(math.NaN())
	dst := make([]float32, 16)
	if _, _ = ExpScaled(dst, src, 1, 0); !math.IsNaN(float64(dst[5])) || dst[4] != 1 {
		t.Errorf("exp of [0, NaN]: %v", dst[4:6])
	}
}

// TestGELU checks the 8-wide GELU against x·Φ(x) by math.Erf, to the
// rational erf's accuracy; a NaN stays NaN.
func TestGELU(t *testing.T) { forEachPath(t, testGELU) }

func testGELU(t *testing.T) {
	if !HasAVX2FMA {
		t.Skip("generic path: GELU does nothing, and callers loop")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	src := make([]float32, 1003)
	for i := range src {
		src[i] = float32(rng.NormFloat64() * 3)
	}
	src[0], src[1], src[2] = 0, 9, -9
	guarded := make([]float32, len(src)+1)
	guarded[len(src)] = 42 // past the end
	dst := guarded[:len(src)]
	n := GELU(dst, src)
	if guarded[len(src)] != 42 {
		t.Fatal("GELU wrote past the end")
	}
	if n != wantDone(len(src)) {
		t.Fatalf("n %d, want %d", n, wantDone(len(src)))
	}
	for i, v := range src[:n] {
		x := float64(v)
		want := x / 2 * (1 + math.Erf(x/math.Sqrt2))
		if d := math.Abs(float64(dst[i]) - want); d > 2e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("GELU(%v) = %v, want %v", v, dst[i], want)
		}
	}
	src = make([]float32, 16)
	src[7] = float32(math.NaN())
	GELU(dst, src)
	if !math.IsNaN(float64(dst[7])) || dst[6] != 0 {
		t.Errorf("GELU of [0, NaN]: %v", dst[6:8])
	}
}
