//go:build amd64 && !purego

package kernel

import (
	"math"
	"unsafe"
)

//go:noescape
func int8VNNI8x32(kg int, u *uint8, lda int, panel *int8, c *float32, ldc int, rowScale, colScale *float32, corr *int32, bias *float32, rows int, mask uint32, beta float32, relu uint32)

//go:noescape
func int8VNNISparse1x256(ng int, groups *int32, u *uint8, panels *int8, c *float32, rowScale, colScale, bias *float32, beta float32, relu uint32)

//go:noescape
func int8AVX2x2x32(kg int, q *int8, lda int, panel *int8, out *int32)

// gemmInt8VNNI is GemmInt8's product on the AVX-512 VNNI path: u holds
// the quantised rows plus 128 (mp rows of kp bytes), bias the bias padded
// to whole panels with zeros, and the kernel scales its sums into C
// itself, and applies the ReLU. Where A is a ReLU's output, most groups of
// four inputs are zero (three in four for USE-Lite's second feed-forward
// layers), and the sparse kernel runs only the others: the same sums, so
// the same C, in fewer products.
func gemmInt8VNNI(m int, u []int8, scale []float32, w *Int8Matrix, bias []float32, beta float32, relu bool, c []float32, ldc int, s *int8Scratch) {
	n, kp := w.n, w.kp
	var r uint32
	if relu {
		r = 1
	}
	_ = u[(m+int8Rows-1)/int8Rows*int8Rows*kp-1]
	done := 0 // the outputs the sparse kernel computed: whole chunks
	if int8Sparse && n >= int8SparseCols && sparseGroups(m, kp, u, s) {
		sp := w.sparsePacked()
		done = n / int8SparseCols * int8SparseCols
		for j := 0; j < done; j += int8SparseCols {
			for i := 0; i < m; i++ {
				g := s.groups[s.starts[i] : s.starts[i+1] : s.starts[i+1]+1] // one spare: &g[0] for ng = 0
				int8VNNISparse1x256(len(g), &g[:1][0], (*uint8)(unsafe.Pointer(&u[i*kp])), &sp[j*kp],
					&c[i*ldc+j], &scale[i], &w.scale[j], &bias[j], beta, r)
			}
		}
	}
	for p := done / int8Panel; p*int8Panel < n; p++ {
		j := p * int8Panel
		mask := ^uint32(0)
		if cols := n - j; cols < int8Panel {
			mask = 1<<cols - 1
		}
		panel := &w.packed[p*kp*int8Panel]
		for i := 0; i < m; i += int8Rows {
			int8VNNI8x32(kp/4, (*uint8)(unsafe.Pointer(&u[i*kp])), kp, panel, &c[i*ldc+j], ldc,
				&scale[i], &w.scale[j], &w.corr[j], &bias[j], min(int8Rows, m-i), mask, beta, r)
		}
	}
}

// int8Sparse enables the sparse kernel (tests turn it off to compare).
var int8Sparse = true

// int8SparseShare is the share of groups with a non-zero input above
// which the sparse kernel leaves the product to the dense tile. The sparse kernel reads
// its weights from L2 once a row, not once per eight rows, so a listed
// group costs it about 2.4 times a dense group: at 1536 → 512 it is 1.7×
// as fast as the dense tile with a quarter of the groups listed (a ReLU's
// output, 7% of the values non-zero) and no faster at about 45%
// (BenchmarkGemmInt8Sparse).
const int8SparseShare = 0.4

// sparseGroups lists in s.groups, row by row from s.starts, the groups of
// four inputs of u's m rows (kp bytes each, q + 128) that hold a non-zero
// q. It reports false, early, when a q is negative (the sparse kernel
// takes q as unsigned) or when more than int8SparseShare of the groups
// so far are listed.
func sparseGroups(m, kp int, u []int8, s *int8Scratch) bool {
	kg := kp / 4
	s.groups = grow(s.groups, m*kg+16) // sparseListZ stores 16 at a time
	s.starts = grow(s.starts, m+1)
	n := 0
	for i := 0; i < m; i++ {
		s.starts[i] = n
		c := sparseListZ(kg, (*uint8)(unsafe.Pointer(&u[i*kp])), &s.groups[n])
		if c < 0 {
			return false
		}
		n += c
		if float64(n) > int8SparseShare*float64((i+1)*kg) {
			return false
		}
	}
	s.starts[m] = n
	return true
}

//go:noescape
func sparseListZ(kg int, u *uint8, out *int32) int

// int8TileAVX2 is int8TileGo on the AVX2 path, two rows a call.
func int8TileAVX2(kp int, q []int8, panel []int8, acc []int32) {
	_ = q[(int8Rows-1)*kp+kp-1]
	_ = acc[int8Rows*int8Panel-1]
	for r := 0; r < int8Rows; r += 2 {
		int8AVX2x2x32(kp/4, &q[r*kp], kp, &panel[0], &acc[r*int8Panel])
	}
}

//go:noescape
func absMaxBitsZ(n int, x *float32) uint32

//go:noescape
func quantZ(n int, x *float32, inv float32, q *int8, flip uint32)

//go:noescape
func absMaxBitsAVX2(n int, x *float32) uint32

//go:noescape
func quantAVX2(n int, x *float32, inv float32, q *int8, flip uint32)

// quantizeRowAsm is quantizeRow on the AVX-512 path, or on
// the AVX2 path with the last len(x) mod 8 values in Go; it reports
// false where it does not apply.
func quantizeRowAsm(q []int8, x []float32, flip int8) (float32, bool) {
	n := len(x)
	if !HasAVX2FMA || n < 8 {
		return 0, false
	}
	_ = q[n-1]
	var bits uint32
	n8 := n &^ 7
	if HasAVX512 {
		bits = absMaxBitsZ(n, &x[0])
	} else {
		bits = absMaxBitsAVX2(n8, &x[0])
		for _, v := range x[n8:] {
			bits = max(bits, math.Float32bits(v)&0x7fffffff)
		}
	}
	amax := math.Float32frombits(bits)
	if amax == 0 || amax != amax || amax > math.MaxFloat32 {
		for l := range x {
			q[l] = flip
		}
		return amax, true
	}
	inv := 127 / amax
	f := uint32(uint8(flip)) * 0x01010101
	if HasAVX512 {
		quantZ(n, &x[0], inv, &q[0], f)
		return amax / 127, true
	}
	quantAVX2(n8, &x[0], inv, &q[0], f)
	for l := n8; l < n; l++ {
		q[l] = int8(math.RoundToEven(float64(x[l]*inv))) ^ flip
	}
	return amax / 127, true
}
