package kernel

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// The int8 GEMM: C = A·Wᵀ (+ beta·C) with W held as int8 and one float32
// scale per output, A float32 quantised per row at run time, and the
// products summed exactly in int32.
//
// Arithmetic, the same on every path: each row i of A gets the scale
// a_i = max|A[i,:]|/127 and the int8 values q = round(A/a_i) in −127..127;
// weights are −127..127 too (−128 is refused). The AVX2 path multiplies
// with VPMADDUBSW, whose u8×s8 pair sums saturate at int16: it feeds |q|
// as the unsigned operand and w with q's sign as the signed one
// (VPABSB/VPSIGNB), so a pair sums to at most 2·127·127 = 32258 and never
// saturates. The VNNI path's VPDPBUSD sums into int32 directly and does
// not saturate either; it takes u = q + 128 (0..255) as the unsigned
// operand and subtracts 128·Σ_l W[j,l], summed once at packing. Both give
// exactly Σ_l q[i,l]·W[j,l], as the generic path does, so every path's
// int32 sums are equal and only the float scaling can round.

// Int8Matrix is an int8 weight matrix packed for the int8 GEMM: n outputs
// by k inputs, in panels of 32 outputs, each panel k/4 groups of 32×4
// bytes (the four inputs of one output side by side, as VPDPBUSD and
// VPMADDWD sum them), k rounded up to 4 and n to 32 with zeros. Make one
// with NewInt8Matrix, NewInt8MatrixT or QuantizeInt8Matrix; it is
// read-only after, so goroutines may share it.
type Int8Matrix struct {
	n, k   int
	kp     int    // k rounded up to a multiple of 4
	packed []int8 // ⌈n/32⌉ panels of kp·32 bytes
	// scale, per output (n rounded up to 32, zeros past n):
	// W[j,l] = scale[j]·w[j,l].
	scale []float32
	// inScale, when set, scales input l (NewInt8MatrixT's per-input
	// scales): folded into A's rows before they are quantised.
	inScale []float32
	corr    []int32 // 128·Σ_l w[j,l], the VNNI path's +128 offset (n rounded up to 32)

	// sparse is packed's whole chunks of eight panels laid out for the
	// sparse kernel, built on its first use (sparsePacked).
	sparse     []int8
	sparseOnce sync.Once
}

// sparsePacked returns w's whole chunks of int8SparseCols outputs
// (eight panels) with, per group of four inputs, the eight panels' 128
// bytes side by side: chunk c's group g at (c·kp/4 + g)·1024. The sparse
// kernel reads a listed group's 1,024 bytes in one sweep, where packed
// would have it gather eight blocks a panel apart (8% slower in
// BenchmarkGemmInt8Sparse).
func (w *Int8Matrix) sparsePacked() []int8 {
	w.sparseOnce.Do(func() {
		const per = 8 // panels a chunk
		kg, chunks := w.kp/4, w.n/int8SparseCols
		w.sparse = make([]int8, chunks*kg*per*int8Panel*4)
		for c := range chunks {
			for g := range kg {
				dst := w.sparse[(c*kg+g)*per*int8Panel*4:]
				for i := range per {
					src := w.packed[(c*per+i)*w.kp*int8Panel+g*int8Panel*4:]
					copy(dst[i*int8Panel*4:(i+1)*int8Panel*4], src[:int8Panel*4])
				}
			}
		}
	})
	return w.sparse
}

// int8Panel is the number of outputs a packed panel holds.
const int8Panel = 32

// int8SparseCols is the outputs one call of the sparse kernel computes:
// eight panels, sixteen accumulators.
const int8SparseCols = 8 * int8Panel

// Dims returns the number of outputs n and of inputs k.
func (w *Int8Matrix) Dims() (n, k int) { return w.n, w.k }

// NewInt8Matrix packs q, n rows of k int8 weights (row j is output j, as a
// PyTorch Linear's [out, in] weight), with W[j,l] = scales[j]·q[j·k+l].
func NewInt8Matrix(q []int8, scales []float32, n, k int) (*Int8Matrix, error) {
	if n <= 0 || k <= 0 || len(q) != n*k || len(scales) != n {
		return nil, fmt.Errorf("kernel: NewInt8Matrix: %d weights and %d scales for %d×%d", len(q), len(scales), n, k)
	}
	w := newInt8Matrix(n, k)
	copy(w.scale, scales)
	for j := 0; j < n; j++ {
		for l := 0; l < k; l++ {
			if err := w.set(j, l, q[j*k+l]); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// NewInt8MatrixT packs q, k rows of n int8 weights (row l is input l, as
// nn's Linear [in, out] and as model files store such a matrix, with one
// scale per row), with W[j,l] = scales[l]·q[l·n+j]: the scales multiply A's
// columns before A is quantised, which costs nothing in the products.
func NewInt8MatrixT(q []int8, scales []float32, k, n int) (*Int8Matrix, error) {
	if n <= 0 || k <= 0 || len(q) != n*k || len(scales) != k {
		return nil, fmt.Errorf("kernel: NewInt8MatrixT: %d weights and %d scales for %d×%d", len(q), len(scales), k, n)
	}
	w := newInt8Matrix(n, k)
	for j := range n {
		w.scale[j] = 1
	}
	w.inScale = append([]float32(nil), scales...)
	for l := 0; l < k; l++ {
		for j := 0; j < n; j++ {
			if err := w.set(j, l, q[l*n+j]); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// QuantizeInt8Matrix rounds w, n rows of k float32 weights, to int8 with
// one symmetric scale per row (max|row|/127), as model.WriteInt8 does.
func QuantizeInt8Matrix(w []float32, n, k int) (*Int8Matrix, error) {
	if n <= 0 || k <= 0 || len(w) != n*k {
		return nil, fmt.Errorf("kernel: QuantizeInt8Matrix: %d weights for %d×%d", len(w), n, k)
	}
	q := make([]int8, n*k)
	scales := make([]float32, n)
	for j := 0; j < n; j++ {
		scales[j] = quantizeRow(q[j*k:(j+1)*k], w[j*k:(j+1)*k], 0)
	}
	return NewInt8Matrix(q, scales, n, k)
}

func newInt8Matrix(n, k int) *Int8Matrix {
	kp := (k + 3) &^ 3
	panels := (n + int8Panel - 1) / int8Panel
	return &Int8Matrix{n: n, k: k, kp: kp, packed: make([]int8, panels*kp*int8Panel),
		scale: make([]float32, panels*int8Panel), corr: make([]int32, panels*int8Panel)}
}

// errInt8Min: −128 has no negation in int8, which the AVX2 path needs.
var errInt8Min = errors.New("weight −128: the int8 GEMM takes −127..127")

// set stores w[j,l] = v.
func (w *Int8Matrix) set(j, l int, v int8) error {
	if v == math.MinInt8 {
		return fmt.Errorf("kernel: int8 matrix [%d,%d]: %w", j, l, errInt8Min)
	}
	p, c := j/int8Panel, j%int8Panel
	w.packed[p*w.kp*int8Panel+(l/4)*int8Panel*4+c*4+l%4] = v
	w.corr[j] += 128 * int32(v)
	return nil
}

// quantizeRow rounds x to q in −127..127, ties to even, with the scale
// max|x|/127, which it returns (0 for a zero row, NaN or +Inf,
// propagating to the outputs, for a row holding them), and stores q ^ flip
// (flip −128 gives VNNI's q + 128); q may be longer than x, its tail left
// as is.
func quantizeRow(q []int8, x []float32, flip int8) float32 {
	if s, ok := quantizeRowAsm(q, x, flip); ok {
		return s
	}
	return quantizeRowGo(q, x, flip)
}

// quantizeRowGo is quantizeRow on the generic path.
func quantizeRowGo(q []int8, x []float32, flip int8) float32 {
	var amax float32
	for _, v := range x {
		if v < 0 {
			v = -v
		}
		if v > amax {
			amax = v
		} else if v != v {
			amax = v
			break
		}
	}
	if amax == 0 || amax != amax || amax > math.MaxFloat32 {
		for l := range x {
			q[l] = flip
		}
		return amax
	}
	inv := 127 / amax
	for l, v := range x {
		// |v·inv| ≤ 127: rounding cannot pass it.
		q[l] = int8(math.RoundToEven(float64(v*inv))) ^ flip
	}
	return amax / 127
}

// int8Scratch holds a call's quantised rows and int32 tile, a row scaled
// by the matrix's inScale, and the bias padded to whole panels.
type int8Scratch struct {
	q      []int8
	scale  []float32
	acc    []int32
	scaled []float32
	bias   []float32
	groups []int32 // the sparse kernel's lists of groups, row by row
	starts []int
}

var int8Pool = sync.Pool{New: func() any { return new(int8Scratch) }}

// int8Rows is the row tile of every path: A is quantised into a buffer of
// m rounded up to it, the padding rows computed and dropped.
const int8Rows = 8

// GemmInt8 computes C = A·Wᵀ + bias + beta·C (row-major; A m×k with
// stride lda, C m×n with stride ldc, bias n values added to every row, or
// nil; with NewInt8MatrixT's weights, A·W): A is quantised per row to
// int8, multiplied with W's int8 in int32 on the widest path the CPU runs
// (AVX-512 VNNI, AVX2, or Go), and scaled back, the bias added in the
// same pass (a Linear's, which would otherwise be copied into C first).
// The error against A times W's float values is at most
// a_i/2·Σ_l |W[j,l]| per output, a_i = max|A[i,:]|/127 (plus float32
// rounding in the scaling). beta = 0 overwrites C, whatever it held.
// relu sets each result to max(0, ·) in the same pass: a Linear followed
// by a ReLU (a NaN stays NaN).
func GemmInt8(m int, a []float32, lda int, w *Int8Matrix, bias []float32, beta float32, relu bool, c []float32, ldc int) {
	if m <= 0 {
		return
	}
	n, k, kp := w.n, w.k, w.kp
	_, _ = a[(m-1)*lda+k-1], c[(m-1)*ldc+n-1]
	if bias != nil && len(bias) != n {
		panic(fmt.Sprintf("kernel: GemmInt8: %d bias values for %d outputs", len(bias), n))
	}
	mp := (m + int8Rows - 1) / int8Rows * int8Rows
	s := int8Pool.Get().(*int8Scratch)
	defer int8Pool.Put(s)
	s.q = grow(s.q, mp*kp)
	s.scale = grow(s.scale, mp)
	vnni := hasVNNI
	var flip int8
	if vnni {
		flip = -128 // VPDPBUSD's unsigned operand: q + 128
	}
	if w.inScale != nil {
		s.scaled = grow(s.scaled, k)
	}
	for i := 0; i < m; i++ {
		row := s.q[i*kp : (i+1)*kp]
		for l := k; l < kp; l++ {
			row[l] = flip // q = 0, against zero weights (and no group for the sparse kernel)
		}
		x := a[i*lda : i*lda+k]
		if w.inScale != nil {
			// Scale the row first, so that it is quantised on the
			// assembly path like any other (the stored models' layout
			// ran 2–6× slower quantising with the scales in Go).
			Mul(s.scaled, x, w.inScale)
			x = s.scaled
		}
		s.scale[i] = quantizeRow(row, x, flip)
	}
	clear(s.q[m*kp:]) // padding rows, computed and dropped
	clear(s.scale[m:])
	if vnni {
		s.bias = grow(s.bias, len(w.scale)) // n rounded up to whole panels
		clear(s.bias[copy(s.bias, bias):])
		gemmInt8VNNI(m, s.q, s.scale, w, s.bias, beta, relu, c, ldc, s)
		return
	}
	s.acc = grow(s.acc, int8Rows*int8Panel)
	acc := s.acc
	for p := 0; p*int8Panel < n; p++ {
		panel := w.packed[p*kp*int8Panel : (p+1)*kp*int8Panel]
		cols := min(int8Panel, n-p*int8Panel)
		for i := 0; i < m; i += int8Rows {
			if HasAVX2FMA {
				int8TileAVX2(kp, s.q[i*kp:], panel, acc)
			} else {
				int8TileGo(kp, s.q[i*kp:], panel, acc)
			}
			for r := 0; r < min(int8Rows, m-i); r++ {
				sa := s.scale[i+r]
				cr := c[(i+r)*ldc+p*int8Panel : (i+r)*ldc+p*int8Panel+cols]
				ws := w.scale[p*int8Panel : p*int8Panel+cols]
				ar := acc[r*int8Panel : r*int8Panel+cols]
				var br []float32
				if bias != nil {
					br = bias[p*int8Panel : p*int8Panel+cols]
				}
				for jj, v := range ar {
					y := float32(v) * sa * ws[jj]
					if br != nil {
						y += br[jj]
					}
					if beta != 0 {
						y += beta * cr[jj]
					}
					if relu && y < 0 {
						y = 0
					}
					cr[jj] = y
				}
			}
		}
	}
}

// int8TileGo sets acc[r·32+c] = Σ_l q[r·kp+l]·panel's output c at input l
// for the int8Rows rows of q: the generic path, and the reference the
// others are tested against.
func int8TileGo(kp int, q []int8, panel []int8, acc []int32) {
	for r := 0; r < int8Rows; r++ {
		row := q[r*kp : (r+1)*kp]
		out := acc[r*int8Panel : (r+1)*int8Panel]
		clear(out)
		for g := 0; g < kp/4; g++ {
			a0, a1, a2, a3 := int32(row[4*g]), int32(row[4*g+1]), int32(row[4*g+2]), int32(row[4*g+3])
			if a0|a1|a2|a3 == 0 {
				continue
			}
			grp := panel[g*int8Panel*4 : (g+1)*int8Panel*4]
			for c := range out {
				b := grp[c*4 : c*4+4]
				out[c] += a0*int32(b[0]) + a1*int32(b[1]) + a2*int32(b[2]) + a3*int32(b[3])
			}
		}
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
