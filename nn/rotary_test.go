package nn_test

import (
	"math"
	"testing"

	. "github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

func TestGradRotaryWindow(t *testing.T) {
	nntest.Run(t, []nntest.Case{
		{Name: "RotaryQKV", Inputs: [][]int{{6, 24}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.RotaryQKV(in[0], 2, 3, 10)
		})},
		{Name: "SelfAttentionQKVWindow", Inputs: [][]int{{10, 12}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SelfAttentionQKVWindow(in[0], 2, AttentionMask{Batch: 2, KeyLens: []int{5, 3}}, 1)
		})},
		{Name: "SelfAttentionQKVWindowBlocks", Inputs: [][]int{{24, 6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SelfAttentionQKVWindow(in[0], 2, AttentionMask{Batch: 2, KeyLens: []int{12, 7}}, 2) // blocks of 4 rows
		})},
		{Name: "SelfAttentionQKVWindowCausal", Inputs: [][]int{{5, 6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SelfAttentionQKVWindow(in[0], 1, AttentionMask{Causal: true}, 2)
		})},
		{Name: "SelfAttentionQKVWindowEmpty", Inputs: [][]int{{8, 6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SelfAttentionQKVWindow(in[0], 1, AttentionMask{Batch: 2, KeyLens: []int{0, 4}}, 0)
		})},
		{Name: "RotaryThenWindow", Inputs: [][]int{{8, 12}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SelfAttentionQKVWindow(tp.RotaryQKV(in[0], 2, 4, 10000), 2, AttentionMask{Batch: 2, KeyLens: []int{4, 2}}, 1)
		})},
	})
}

func randomMatrix(rows, cols int, seed uint64) *Tensor[float64] {
	rng := NewRNG(seed)
	x := NewTensor[float64](rows, cols)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	return x
}

// A window wider than the sequence is full attention; a narrow one equals
// attention whose scores outside the band are masked to −∞ before the
// softmax.
func TestSelfAttentionQKVWindow(t *testing.T) {
	const n, d, heads = 13, 4, 2 // several blocks of rows
	x := randomMatrix(n, 3*d, 1)
	tp := NewTape[float64](nil, 0)
	in := tp.Const(x)
	for _, tc := range []struct {
		name   string
		radius int
		keys   int
	}{{"wide", n, n}, {"radius 1", 1, n}, {"radius 2, padded", 2, 9}, {"radius 5", 5, n}, {"radius 0", 0, n}} {
		t.Run(tc.name, func(t *testing.T) {
			mask := AttentionMask{KeyLens: []int{tc.keys}, Batch: 1}
			got := tp.SelfAttentionQKVWindow(in, heads, mask, tc.radius).Value
			var want *Tensor[float64]
			if tc.radius >= n {
				want = tp.SelfAttentionQKV(in, heads, mask, 0).Value
			} else {
				want = NewTensor[float64](n, d)
				dh := d / heads
				m := NewTensor[float64](n, n)
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						if j >= tc.keys || j < i-tc.radius || j > i+tc.radius {
							m.Data[i*n+j] = math.Inf(-1)
						}
					}
				}
				for h := 0; h < heads; h++ {
					q := tp.SliceCols(in, h*dh, (h+1)*dh)
					k := tp.SliceCols(in, d+h*dh, d+(h+1)*dh)
					v := tp.SliceCols(in, 2*d+h*dh, 2*d+(h+1)*dh)
					p := tp.SoftmaxMasked(tp.Scale(tp.MatMulT(q, k), 1/math.Sqrt(float64(dh))), m)
					o := tp.MatMul(p, v).Value
					for i := 0; i < n; i++ {
						copy(want.Data[i*d+h*dh:i*d+(h+1)*dh], o.Data[i*dh:(i+1)*dh])
					}
				}
			}
			for i := range got.Data {
				if math.Abs(got.Data[i]-want.Data[i]) > 1e-12 {
					t.Fatalf("[%d] = %v, want %v", i, got.Data[i], want.Data[i])
				}
			}
		})
	}
}

// RoPE's point (Su et al. 2021, eq. 16): a rotated query's dot product
// with a rotated key depends on their positions' difference alone; and
// position 0 is not rotated.
func TestRotaryQKVRelative(t *testing.T) {
	const d, seq = 8, 6
	base := randomMatrix(2, 3*d, 2)
	x := NewTensor[float64](seq, 3*d)
	for p := 0; p < seq; p++ {
		copy(x.Data[p*3*d:(p+1)*3*d], base.Data[:3*d]) // query q at every position
	}
	k := base.Data[3*d+d : 3*d+2*d] // one key, placed at every position too
	for p := 0; p < seq; p++ {
		copy(x.Data[p*3*d+d:p*3*d+2*d], k)
	}
	tp := NewTape[float64](nil, 0)
	y := tp.RotaryQKV(tp.Const(x), 2, seq, 10000).Value
	dotAt := func(m, n int) float64 {
		var s float64
		for i := 0; i < d; i++ {
			s += y.Data[m*3*d+i] * y.Data[n*3*d+d+i]
		}
		return s
	}
	for m := 0; m+1 < seq; m++ {
		for n := 0; n+1 < seq; n++ {
			if a, b := dotAt(m, n), dotAt(m+1, n+1); math.Abs(a-b) > 1e-9 {
				t.Fatalf("q·k at (%d, %d) = %v, at (%d, %d) = %v", m, n, a, m+1, n+1, b)
			}
		}
	}
	if a, b := dotAt(0, 1), dotAt(1, 0); math.Abs(a-b) < 1e-6 {
		t.Errorf("q·k the same at offsets +1 and −1 (%v): no rotation", a)
	}
	for i := 0; i < 3*d; i++ {
		if y.Data[i] != x.Data[i] {
			t.Fatalf("position 0 changed at %d", i)
		}
	}
	// Position 1, head 0's first pair turns by exactly 1 radian (θ^0).
	c, s := math.Cos(1), math.Sin(1)
	r := 3 * d
	if got, want := y.Data[r], x.Data[r]*c-x.Data[r+2]*s; math.Abs(got-want) > 1e-12 {
		t.Errorf("rotated q[1][0] = %v, want %v", got, want)
	}
	for i := 2 * d; i < 3*d; i++ { // values pass through
		if y.Data[r+i] != x.Data[r+i] {
			t.Fatalf("value %d changed", i)
		}
	}
}
