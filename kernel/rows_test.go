package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// MaxOf, Scale and LayerNormRow on every path match float64 references at
// every length around the 16-wide blocks (masked tails included), and
// leave the memory past the row alone.
func TestRowKernels(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		for n := 1; n <= 70; n++ {
			x := randF32(rng, n+1) // x[n]: a guard past the row
			for i := range x {
				x[i] = x[i]*3 + 1
			}
			row := x[:n]
			want := math.Inf(-1)
			for _, v := range row {
				want = math.Max(want, float64(v))
			}
			if got := MaxOf(row); float64(got) != want {
				t.Fatalf("n=%d: MaxOf %v, want %v", n, got, want)
			}

			s := append([]float32(nil), x...)
			Scale(s[:n], 0.37)
			for i := range s {
				w := x[i]
				if i < n {
					w = x[i] * 0.37
				}
				if s[i] != w {
					t.Fatalf("n=%d: Scale [%d] = %v, want %v", n, i, s[i], w)
				}
			}

			gain, bias := randF32(rng, n), randF32(rng, n)
			y, xhat := make([]float32, n+1), make([]float32, n+1)
			y[n], xhat[n] = 42, 42
			const eps = 1e-5
			inv := LayerNormRow(y[:n], xhat[:n], row, gain, bias, eps)
			var mu, va float64
			for _, v := range row {
				mu += float64(v)
			}
			mu /= float64(n)
			for _, v := range row {
				va += (float64(v) - mu) * (float64(v) - mu)
			}
			wantInv := 1 / math.Sqrt(va/float64(n)+eps)
			if math.Abs(float64(inv)-wantInv) > 1e-4*wantInv {
				t.Fatalf("n=%d: inv %v, want %v", n, inv, wantInv)
			}
			for j, v := range row {
				h := (float64(v) - mu) * wantInv
				if math.Abs(float64(xhat[j])-h) > 1e-4*math.Max(1, math.Abs(h)) ||
					math.Abs(float64(y[j])-(h*float64(gain[j])+float64(bias[j]))) > 1e-4*math.Max(1, math.Abs(h)) {
					t.Fatalf("n=%d: [%d] xhat %v y %v, want %v %v", n, j, xhat[j], y[j], h, h*float64(gain[j])+float64(bias[j]))
				}
			}
			if y[n] != 42 || xhat[n] != 42 {
				t.Fatalf("n=%d: LayerNormRow wrote past the row", n)
			}
		}
	})
}
