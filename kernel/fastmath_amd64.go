//go:build amd64 && !purego

package kernel

import "math"

//go:noescape
func expAVX(n int, dst, src *float32, scale, m float32, c *[expRows][8]float32) float32

//go:noescape
func geluAVX(n int, dst, src *float32, c *[geluRows][8]float32)

//go:noescape
func expZ(n int, dst, src *float32, scale, m float32, c *[expRows][8]float32) float32

//go:noescape
func geluZ(n int, dst, src *float32, c *[geluRows][8]float32)

// The rows of expAVX's constants, each repeated 8 times: the clamp, then
// Cephes' expf (nn's exp32): log2(e) and 1/2 to round x·log2(e), ln 2 in
// two parts, the polynomial's c0..c5, 1, and the exponent bias 127 as
// int32 bits.
const expRows = 14

var expConsts = func() (c [expRows][8]float32) {
	rows := []float32{-87, 88, 1.44269504088896341, 0.5, 0.693359375, -2.12194440e-4,
		1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1, 1}
	for i, v := range rows {
		for j := range c[i] {
			c[i][j] = v
		}
	}
	for j := range c[13] {
		c[13][j] = math.Float32frombits(127)
	}
	return c
}()

// The rows of geluAVX's constants: 1/√2, the clamp of erf's argument to
// [−4, 4], erf's numerator p0..p6 and denominator q0..q4 in x² (nn's
// gelu32), 1 and 1/2.
const geluRows = 17

var geluConsts = func() (c [geluRows][8]float32) {
	rows := []float32{math.Sqrt2 / 2, -4, 4,
		-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
		-7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02,
		-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03, -1.42647390514189e-02,
		1, 0.5}
	for i, v := range rows {
		for j := range c[i] {
			c[i][j] = v
		}
	}
	return c
}()

// ExpScaled sets dst[i] = e^(scale·(src[i] − m)) for the first n values
// of src (dst as long), by nn's float32 exp32 (Cephes' expf, about 2 ulp),
// arguments clamped to [−87, 88], and returns n and the sum of those
// values: the caller does the rest. n is len(src) on the AVX-512 path (16
// at a time, the tail masked), a multiple of 8 on the AVX2 path, 0 on the
// generic path or for fewer than 16 values. A softmax's exponentials, with
// m its maximum.
func ExpScaled(dst, src []float32, scale, m float32) (n int, sum float32) {
	if !HasAVX2FMA || len(src) < vecMin {
		return 0, 0
	}
	dst = dst[:len(src)]
	if HasAVX512 {
		return len(src), expZ(len(src), &dst[0], &src[0], scale, m, &expConsts)
	}
	n = len(src) &^ 7
	return n, expAVX(n, &dst[0], &src[0], scale, m, &expConsts)
}

// GELU sets dst[i] = src[i]/2·(1 + erf(src[i]/√2)) for the first n
// values (dst as long), with nn's gelu32's rational erf, and returns n: the
// caller does the rest. n is len(src) on the AVX-512 path (16 at a time,
// the tail masked), a multiple of 8 on the AVX2 path, 0 on the generic
// path or for fewer than 16 values.
func GELU(dst, src []float32) (n int) {
	if !HasAVX2FMA || len(src) < vecMin {
		return 0
	}
	dst = dst[:len(src)]
	if HasAVX512 {
		geluZ(len(src), &dst[0], &src[0], &geluConsts)
		return len(src)
	}
	n = len(src) &^ 7
	geluAVX(n, &dst[0], &src[0], &geluConsts)
	return n
}
