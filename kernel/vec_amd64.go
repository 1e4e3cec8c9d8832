//go:build amd64 && !purego

package kernel

//go:noescape
func addAVX(n int, dst, a, b *float32)

//go:noescape
func mulAVX(n int, dst, a, b *float32)

//go:noescape
func maxAVX(n int, dst, src *float32)

//go:noescape
func dotAVX(n int, x, y *float32) float32

//go:noescape
func axpyAVX(n int, alpha float32, x, y *float32)

// Add sets dst[i] = a[i] + b[i] for i < len(dst); a and b must be as long.
func Add(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := 0
	if HasAVX2FMA && len(dst) >= vecMin {
		n = len(dst) &^ 7
		addAVX(n, &dst[0], &a[0], &b[0])
	}
	for i := n; i < len(dst); i++ {
		dst[i] = a[i] + b[i]
	}
}

// Mul sets dst[i] = a[i] * b[i] for i < len(dst); a and b must be as long.
func Mul(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := 0
	if HasAVX2FMA && len(dst) >= vecMin {
		n = len(dst) &^ 7
		mulAVX(n, &dst[0], &a[0], &b[0])
	}
	for i := n; i < len(dst); i++ {
		dst[i] = a[i] * b[i]
	}
}

// Max sets dst[i] = max(dst[i], src[i]) for i < len(dst); src must be as
// long. Like VMAXPS (and v > dst[i]), it keeps dst[i] where either is NaN.
func Max(dst, src []float32) {
	src = src[:len(dst)]
	n := 0
	if HasAVX2FMA && len(dst) >= vecMin {
		n = len(dst) &^ 7
		maxAVX(n, &dst[0], &src[0])
	}
	for i := n; i < len(dst); i++ {
		if v := src[i]; v > dst[i] {
			dst[i] = v
		}
	}
}

// Axpy sets y[i] += alpha·x[i] for i < len(x); y must be as long. It
// reports false, doing nothing, where the kernel does not apply.
func Axpy(alpha float32, x, y []float32) bool {
	if !HasAVX2FMA || len(x) < vecMin {
		return false
	}
	y = y[:len(x)]
	n := len(x) &^ 7
	axpyAVX(n, alpha, &x[0], &y[0])
	for i := n; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
	return true
}

// Dot returns Σ x[i]·y[i] over i < len(x); y must be as long. It reports
// false where the kernel does not apply.
func Dot(x, y []float32) (float32, bool) {
	if !HasAVX2FMA || len(x) < vecMin {
		return 0, false
	}
	y = y[:len(x)]
	n := len(x) &^ 7
	s := dotAVX(n, &x[0], &y[0])
	for i := n; i < len(x); i++ {
		s += x[i] * y[i]
	}
	return s, true
}
