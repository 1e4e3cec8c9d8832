package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Add, Mul, Max, Axpy and Dot match plain loops at every length around the 8-wide
// blocks and the vecMin cut-off, including NaNs for Max.
func TestVectorKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 70; n++ {
		a, b, y := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i], y[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		wantDot := float32(0)
		for i := range a {
			wantDot += a[i] * b[i]
		}
		if d, ok := Dot(a, b); ok && math.Abs(float64(d-wantDot)) > 1e-5*float64(n+1) {
			t.Fatalf("n=%d: Dot %v, want %v", n, d, wantDot)
		}
		if n > 5 { // NaNs for the element-wise kernels
			a[n/2], b[n/3] = float32(math.NaN()), float32(math.NaN())
		}
		sum := make([]float32, n)
		Add(sum, a, b)
		prod := make([]float32, n)
		Mul(prod, a, b)
		mx := append([]float32(nil), a...)
		Max(mx, b)
		ax := append([]float32(nil), y...)
		if !Axpy(0.5, a, ax) {
			for i := range ax {
				ax[i] += 0.5 * a[i]
			}
		}
		for i := 0; i < n; i++ {
			wantMax := a[i]
			if b[i] > a[i] {
				wantMax = b[i]
			}
			if !same(sum[i], a[i]+b[i]) || !same(prod[i], a[i]*b[i]) || !same(mx[i], wantMax) || !same(ax[i], y[i]+0.5*a[i]) {
				t.Fatalf("n=%d, i=%d: add %v mul %v max %v axpy %v; want %v %v %v %v", n, i, sum[i], prod[i], mx[i], ax[i], a[i]+b[i], a[i]*b[i], wantMax, y[i]+0.5*a[i])
			}
		}
	}
}

// same compares floats, NaN equal to NaN, with FMA's single rounding allowed.
func same(x, y float32) bool {
	if x != x || y != y {
		return x != x && y != y
	}
	return math.Abs(float64(x-y)) <= 1e-6*max(1, math.Abs(float64(y)))
}
