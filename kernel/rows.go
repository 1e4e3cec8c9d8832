package kernel

import "math"

// Row kernels for the transformer's softmax and LayerNorm in float32: 16
// wide on the AVX-512 path, plain Go on the others (where they were
// already Go loops in nn).

// vecMin: below this many values an assembly call costs more than it
// saves.
const vecMin = 16

// MaxOf returns the largest value of x (len(x) ≥ 1). With a NaN in x the
// result is some value of x, possibly the NaN: a softmax comes out all NaN
// either way.
func MaxOf(x []float32) float32 {
	if HasAVX512 && len(x) >= vecMin {
		return maxZ(len(x), &x[0])
	}
	mx := x[0]
	for _, v := range x[1:] {
		if v > mx {
			mx = v
		}
	}
	return mx
}

// Scale sets x[i] *= s.
func Scale(x []float32, s float32) {
	if HasAVX512 && len(x) >= vecMin {
		scaleZ(len(x), &x[0], s)
		return
	}
	for i := range x {
		x[i] *= s
	}
}

// LayerNormRow normalises one row: with μ and σ² x's mean and variance,
// xhat = (x − μ)/√(σ² + eps) and y = xhat·gain + bias (every slice as
// long as x, len(x) ≥ 1); it returns 1/√(σ² + eps), which the backward
// pass needs.
func LayerNormRow(y, xhat, x, gain, bias []float32, eps float32) (inv float32) {
	n := len(x)
	y, xhat, gain, bias = y[:n], xhat[:n], gain[:n], bias[:n]
	if HasAVX512 && n >= vecMin {
		sum, sq := meanVarZ(n, &x[0])
		mu := sum / float32(n)
		inv = 1 / float32(math.Sqrt(float64(sq/float32(n)+eps)))
		normZ(n, &y[0], &xhat[0], &x[0], &gain[0], &bias[0], mu, inv)
		return inv
	}
	var mu float32
	for _, v := range x {
		mu += v
	}
	mu /= float32(n)
	var va float32
	for _, v := range x {
		va += (v - mu) * (v - mu)
	}
	inv = 1 / float32(math.Sqrt(float64(va/float32(n)+eps)))
	for j, v := range x {
		h := (v - mu) * inv
		xhat[j] = h
		y[j] = h*gain[j] + bias[j]
	}
	return inv
}
