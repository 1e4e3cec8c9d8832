//go:build amd64 && !purego

package kernel

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

//go:noescape
func kernNN6x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

//go:noescape
func kernNT3x4(k8 int, a *float32, lda int, b *float32, ldb int, out *[12]float32)

//go:noescape
func kernNN1x16(k int, a *float32, b *float32, ldb int, c *float32)

//go:noescape
func kernNT1x4(k8 int, a *float32, b *float32, ldb int, out *[4]float32)

// The AVX-512 tiles (sgemm_avx512_amd64.s): 12, 8, 4 or 1 rows by 32 columns,
// the mask's bits picking the columns that exist.

//go:noescape
func kernNN12x32Z(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, mask uint32)

//go:noescape
func kernNN8x32Z(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, mask uint32)

//go:noescape
func kernNN4x32Z(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, mask uint32)

//go:noescape
func kernNN1x32Z(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, mask uint32)

// asmMinWork: below this many multiply-adds gonum's lower overhead wins.
const asmMinWork = 4096

// ntMinK is the inner dimension from which the NT kernel beats transposing
// B for the NN kernel: below it the NT kernel's 8-wide dot products leave
// most of each tile to the scalar k mod 8 tail (Cosinet's feature
// convolution, k = 2 channels × width 5 = 10, ran 3x slower through it).
const ntMinK = 32

var scratch32 = sync.Pool{New: func() any { return new([]float32) }}

// transposeInto returns the [cols, rows] transpose of the rows×cols matrix
// a (stride lda) in a pooled buffer; release it with scratch32.Put.
func transposeInto(rows, cols int, a []float32, lda int) *[]float32 {
	p := scratch32.Get().(*[]float32)
	if cap(*p) < rows*cols {
		*p = make([]float32, rows*cols)
	}
	t := (*p)[:rows*cols]
	for r := 0; r < rows; r++ {
		for c, v := range a[r*lda : r*lda+cols] {
			t[c*rows+r] = v
		}
	}
	*p = t
	return p
}

// Gemm computes C = alpha·op(A)·op(B) + beta·C (row-major) with the
// assembly kernels and reports whether it did; false leaves C untouched and
// the caller should use another implementation.
func Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) bool {
	if !HasAVX2FMA || alpha != 1 || m*n*k < asmMinWork {
		return false
	}
	if n == 1 && !tA && (tB || ldb == 1) && k >= vecMin {
		// A matrix-vector product (a linear scorer over candidates): one
		// dot product per row. gonum would split it over goroutines.
		for i := 0; i < m; i++ {
			s, _ := Dot(a[i*lda:i*lda+k], b[:k])
			if beta == 0 {
				c[i*ldc] = s
			} else {
				c[i*ldc] = s + beta*c[i*ldc]
			}
		}
		return true
	}
	nt := tB // NT kernel for A·Bᵀ, NN kernel for A·B
	if nt && k < ntMinK && n >= 16 {
		// A·Bᵀ with a short inner dimension (a convolution over a few
		// feature channels): Bᵀ is only k×n, so transpose it and use the
		// NN kernel, which takes any k and vectorises along n instead.
		p := transposeInto(n, k, b, ldb)
		defer scratch32.Put(p)
		b, ldb, nt = *p, n, false
	}
	if nt && (HasAVX512 || k <= 64) && m >= 4 && n >= 16 {
		// The NN tiles beat the 3×4 dot-product tiles, with their
		// horizontal sums, even after transposing B (the copy is 1/m of
		// the product): on attention's scores (128×128 by k = 32) 4× on
		// AVX2 and 4–6× on AVX-512 (BenchmarkGemmMiniLM). For a longer k
		// the AVX2 dot products amortise their sums.
		p := transposeInto(n, k, b, ldb)
		defer scratch32.Put(p)
		b, ldb, nt = *p, n, false
	}
	if nt && (n < 4 || k < 8) || !nt && n < 16 {
		return false
	}
	if beta != 1 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
	}
	if tA { // op(A) = Aᵀ: materialise it; k is small in our TN products
		p := transposeInto(k, m, a, lda)
		defer scratch32.Put(p)
		a, lda = *p, k
	}
	switch {
	case nt:
		sgemmNT(m, n, k, a, lda, b, ldb, c, ldc)
	case HasAVX512:
		sgemmNNZ(m, n, k, a, lda, b, ldb, c, ldc)
	default:
		sgemmNN(m, n, k, a, lda, b, ldb, c, ldc)
	}
	return true
}

// sgemmNN: C += A·B, A [m,k], B [k,n]: 6×16 tiles; 3–5 leftover rows run
// as one zero-padded 6-row tile (each tile pass streams a B panel from
// cache, so fewer passes is what counts), 1–2 as single rows; gonum does
// the last n mod 16 columns.
func sgemmNN(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	mb, nb := m/6*6, n/16*16
	rem := m - mb
	var padA *[]float32
	var padC [6 * 16]float32
	if rem >= 3 {
		padA = scratch32.Get().(*[]float32)
		defer scratch32.Put(padA)
		if cap(*padA) < 6*k {
			*padA = make([]float32, 6*k)
		}
		*padA = (*padA)[:6*k]
		clear(*padA)
		for r := 0; r < rem; r++ {
			copy((*padA)[r*k:(r+1)*k], a[(mb+r)*lda:(mb+r)*lda+k])
		}
	}
	for j := 0; j < nb; j += 16 {
		for i := 0; i < mb; i += 6 {
			kernNN6x16(k, &a[i*lda], lda, &b[j], ldb, &c[i*ldc+j], ldc)
		}
		if padA != nil {
			for r := 0; r < rem; r++ {
				copy(padC[r*16:(r+1)*16], c[(mb+r)*ldc+j:(mb+r)*ldc+j+16])
			}
			kernNN6x16(k, &(*padA)[0], k, &b[j], ldb, &padC[0], 16)
			for r := 0; r < rem; r++ {
				copy(c[(mb+r)*ldc+j:(mb+r)*ldc+j+16], padC[r*16:(r+1)*16])
			}
			continue
		}
		for i := mb; i < m; i++ {
			kernNN1x16(k, &a[i*lda], &b[j], ldb, &c[i*ldc+j])
		}
	}
	if nb < n {
		nnTail(m, n, k, nb, a, lda, b, ldb, c, ldc)
	}
}

// nnTail does the last n−nb < 16 columns of sgemmNN with the same kernels,
// on a copy of those columns of B padded with zeros to 16. (Handing them to
// gonum cost more than the rest of the product on an RNN's 10×600·600×300:
// gonum's Sgemm goes parallel on the large m·k and pays for goroutines.)
func nnTail(m, n, k, nb int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	w := n - nb
	pb := scratch32.Get().(*[]float32)
	defer scratch32.Put(pb)
	if cap(*pb) < 16*k {
		*pb = make([]float32, 16*k)
	}
	*pb = (*pb)[:16*k]
	clear(*pb)
	for l := 0; l < k; l++ {
		copy((*pb)[l*16:l*16+w], b[l*ldb+nb:l*ldb+n])
	}
	var tile [6 * 16]float32
	for i := 0; i < m; i += 6 {
		rows := min(6, m-i)
		clear(tile[:])
		for r := 0; r < rows; r++ {
			copy(tile[r*16:r*16+w], c[(i+r)*ldc+nb:(i+r)*ldc+n])
		}
		if rows == 6 {
			kernNN6x16(k, &a[i*lda], lda, &(*pb)[0], 16, &tile[0], 16)
		} else {
			for r := 0; r < rows; r++ {
				kernNN1x16(k, &a[(i+r)*lda], &(*pb)[0], 16, &tile[r*16])
			}
		}
		for r := 0; r < rows; r++ {
			copy(c[(i+r)*ldc+nb:(i+r)*ldc+n], tile[r*16:r*16+w])
		}
	}
}

// sgemmNNZ: C += A·B, A [m,k], B [k,n], with the AVX-512 tiles: 12×32
// tiles (24 of the 32 ZMM registers accumulate), then 8-, 4- and 1-row
// tiles for m mod 12; the last n mod 32
// columns run masked, so every edge stays in assembly. Column panels
// outside, row tiles inside: a k×32 panel of B (48 KB at k = 384) stays in
// L2 while the rows of A stream past it.
func sgemmNNZ(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	for j := 0; j < n; j += 32 {
		mask := ^uint32(0)
		if w := n - j; w < 32 {
			mask = 1<<w - 1
		}
		i := 0
		for ; i+12 <= m; i += 12 {
			kernNN12x32Z(k, &a[i*lda], lda, &b[j], ldb, &c[i*ldc+j], ldc, mask)
		}
		if i+8 <= m {
			kernNN8x32Z(k, &a[i*lda], lda, &b[j], ldb, &c[i*ldc+j], ldc, mask)
			i += 8
		}
		if i+4 <= m {
			kernNN4x32Z(k, &a[i*lda], lda, &b[j], ldb, &c[i*ldc+j], ldc, mask)
			i += 4
		}
		for ; i < m; i++ {
			kernNN1x32Z(k, &a[i*lda], lda, &b[j], ldb, &c[i*ldc+j], ldc, mask)
		}
	}
}

// sgemmNT: C += A·Bᵀ, A [m,k], B [n,k], k ≥ 8: 3×4 tiles, then single rows,
// then gonum for the last n mod 4 columns. (An AVX-512 4×4 variant was no
// faster on our Xeon: the A panel streams from L2 either way.)
func sgemmNT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	mb, nb := m/3*3, n/4*4
	k8 := k &^ 7
	var out [12]float32
	var out1 [4]float32
	for j := 0; j < nb; j += 4 {
		for i := 0; i < m; {
			rows := 3
			if i < mb {
				kernNT3x4(k8, &a[i*lda], lda, &b[j*ldb], ldb, &out)
			} else {
				kernNT1x4(k8, &a[i*lda], &b[j*ldb], ldb, &out1)
				copy(out[:4], out1[:])
				rows = 1
			}
			for ii := 0; ii < rows; ii++ {
				ar := a[(i+ii)*lda : (i+ii)*lda+k]
				cr := c[(i+ii)*ldc+j : (i+ii)*ldc+j+4]
				for jj := 0; jj < 4; jj++ {
					s := out[ii*4+jj]
					br := b[(j+jj)*ldb : (j+jj)*ldb+k]
					for l := k8; l < k; l++ { // k mod 8 tail
						s += ar[l] * br[l]
					}
					cr[jj] += s
				}
			}
			i += rows
		}
	}
	if nb < n {
		blas32.Implementation().Sgemm(blas.NoTrans, blas.Trans, m, n-nb, k, 1, a, lda, b[nb*ldb:], ldb, 1, c[nb:], ldc)
	}
}
