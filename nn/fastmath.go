package nn

import (
	"math"

	"github.com/as2/as2/kernel"
)

// Float32 elementary functions for the transformer's element-wise hot
// loops (softmax over attention scores, GELU over the feed-forward
// width), where math.Exp and math.Erf in float64 cost more than the GEMMs
// around them leave room for. float64 code keeps the math package, so
// gradient checks stay exact.

// exp32 is e^x in float32 by Cephes' expf: x = n·ln2 + r with |r| ≤ ln2/2,
// e^r by a degree-7 polynomial, 2^n by exponent bits; relative error
// ~2 ulp. Inputs below −87 (where e^x is subnormal) give about 1.6e-38,
// too small to matter against the softmax denominator's ≥ 1.
func exp32(x float32) float32 {
	if x > 88 {
		return float32(math.Inf(1))
	}
	if x < -87 {
		x = -87
	}
	n := float32(math.Floor(float64(x*1.44269504088896341 + 0.5)))
	r := x - n*0.693359375 - n*-2.12194440e-4
	p := float32(1.9875691500e-4)
	p = p*r + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 5.0000001201e-1
	p = p*r*r + r + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// gelu32 writes GELU(x) = x/2·(1 + erf(x/√2)) for every x of src into dst,
// with erf32's rational approximation: eight at a time by kernel.GELU where
// the CPU has AVX2 and FMA, the rest here, inlined by hand (Go does not
// inline erf32, and a call per value makes BenchmarkGELU 25% slower).
func gelu32(dst, src []float32) {
	dst = dst[:len(src)]
	n := kernel.GELU(dst, src)
	dst, src = dst[n:], src[n:]
	for i, v := range src {
		x := v * (math.Sqrt2 / 2)
		if x > 4 {
			x = 4
		} else if x < -4 {
			x = -4
		}
		x2 := x * x
		p := float32(-2.72614225801306e-10)
		p = p*x2 + 2.77068142495902e-08
		p = p*x2 + -2.10102402082508e-06
		p = p*x2 + -5.69250639462346e-05
		p = p*x2 + -7.34990630326855e-04
		p = p*x2 + -2.95459980854025e-03
		p = p*x2 + -1.60960333262415e-02
		q := float32(-1.45660718464996e-05)
		q = q*x2 + -2.13374055278905e-04
		q = q*x2 + -1.68282697438203e-03
		q = q*x2 + -7.37332916720468e-03
		q = q*x2 + -1.42647390514189e-02
		dst[i] = 0.5 * v * (1 + p*x/q)
	}
}

// Tanh32 is tanh in float32 by Cephes' tanhf: an odd polynomial for
// |x| < 0.625, 1 − 2/(e^{2|x|} + 1) above, ±1 past 9 (where float32's
// tanh is 1); relative error a few ulp. For scorers outside the tape
// (HAS's attention over stored binary answers needs 128 per answer word,
// where math.Tanh in float64 costs more than the sums around it).
func Tanh32(x float32) float32 {
	z := x
	if z < 0 {
		z = -z
	}
	switch {
	case z > 9:
		z = 1
	case z >= 0.625:
		z = 1 - 2/(exp32(2*z)+1)
	default:
		s := x * x
		return ((((-5.70498872745e-3*s+2.06390887954e-2)*s-5.37397155531e-2)*s+1.33314422036e-1)*s-3.33332819422e-1)*s*x + x
	}
	if x < 0 {
		return -z
	}
	return z
}
