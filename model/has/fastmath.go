package has

import "math"

// tanh32 is tanh in float32 by Cephes' tanhf: an odd polynomial for
// |x| < 0.625, 1 − 2/(e^{2|x|} + 1) above, ±1 past 9 (where float32's
// tanh is 1); relative error a few ulp. ScoreMemory's attention energies
// need 128 of them per answer word, where math.Tanh in float64 cost more
// than the byte-table sums.
func tanh32(x float32) float32 {
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

// exp32 is e^x in float32 by Cephes' expf, as package nn computes it for
// its softmax: x = n·ln2 + r, e^r by a degree-7 polynomial, 2^n by exponent
// bits. tanh32 calls it for 1.25 ≤ x ≤ 18 only.
func exp32(x float32) float32 {
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
