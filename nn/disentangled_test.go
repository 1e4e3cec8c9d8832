package nn_test

import (
	"math"
	"testing"

	. "github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

// relTable is an index table [t·t] of clamp(sign·(i − j) + r/2, 0, r−1),
// DeBERTa's layout of relative distances over r position rows, with a
// shift so that the two terms of a case read different rows.
func relTable(t, r, sign, shift int) []int {
	idx := make([]int, t*t)
	for i := 0; i < t; i++ {
		for j := 0; j < t; j++ {
			idx[i*t+j] = min(max(sign*(i-j)+r/2+shift, 0), r-1)
		}
	}
	return idx
}

func TestGradDisentangledAttention(t *testing.T) {
	const T, D, R = 4, 6, 6
	c2p, p2c := relTable(T, R, 1, 0), relTable(T, R, -1, 1)
	nntest.Run(t, []nntest.Case{
		{Name: "Both", Inputs: [][]int{{T, 3 * D}, {R, D}, {R, D}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.DisentangledAttention(in[0], in[1], in[2], 2, AttentionMask{}, c2p, p2c, 0.4)
		})},
		{Name: "BatchPadded", Inputs: [][]int{{2 * T, 3 * D}, {R, D}, {R, D}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			y := tp.DisentangledAttention(in[0], in[1], in[2], 3, AttentionMask{Batch: 2, KeyLens: []int{T, 2}}, c2p, p2c, 0.5)
			// The padded queries' rows are to be ignored.
			return tp.Rows(y, 0, T+2)
		})},
		{Name: "C2POnly", Inputs: [][]int{{T, 3 * D}, {R, D}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.DisentangledAttention(in[0], nil, in[1], 1, AttentionMask{}, c2p, nil, 0.3)
		})},
		{Name: "RowBlock", Inputs: [][]int{{T, 3 * D}, {10, D}, {10, D}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			// Tables that read rows 2–8 and 3–9 of 10.
			return tp.DisentangledAttention(in[0], in[1], in[2], 2, AttentionMask{}, relTable(T, 10, 1, 0), relTable(T, 10, -1, 1), 0.4)
		})},
		{Name: "LinearColumns", Inputs: [][]int{{3, 4}, {4, 9}, {9}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.LinearColumns(in[0], in[1], in[2], 3, 7)
		})},
		{Name: "P2COnly", Inputs: [][]int{{T, 3 * D}, {R, D}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.DisentangledAttention(in[0], in[1], nil, 2, AttentionMask{}, nil, p2c, 0.3)
		})},
	})
}

// TestDisentangledAttentionValues checks the forward pass against the
// definition, score by score (He et al. 2021, eq. 4), including a padded
// sequence whose real rows must equal those it gives alone.
func TestDisentangledAttentionValues(t *testing.T) {
	const T, D, R, H = 5, 8, 10, 2 // the tables read rows 1–9 and 2–9 of R
	rng := NewRNG(7)
	rnd := func(shape ...int) *Tensor[float64] {
		x := NewTensor[float64](shape...)
		for i := range x.Data {
			x.Data[i] = rng.NormFloat64()
		}
		return x
	}
	qkv, pq, pk := rnd(2*T, 3*D), rnd(R, D), rnd(R, D)
	c2p, p2c := relTable(T, R, 1, 0), relTable(T, R, -1, 1)
	const scale = 0.3
	keyLens := []int{T, 3}
	tp := NewTape[float64](nil, 0)
	got := tp.DisentangledAttention(tp.Const(qkv), tp.Const(pq), tp.Const(pk), H, AttentionMask{Batch: 2, KeyLens: keyLens}, c2p, p2c, scale).Value
	dh := D / H
	dotp := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	for s := 0; s < 2; s++ {
		kl := keyLens[s]
		for h := 0; h < H; h++ {
			for i := 0; i < kl; i++ {
				q := qkv.Row(s*T + i)[h*dh : (h+1)*dh]
				sc := make([]float64, kl)
				mx := math.Inf(-1)
				for j := 0; j < kl; j++ {
					k := qkv.Row(s*T + j)[D+h*dh : D+(h+1)*dh]
					sc[j] = scale * (dotp(q, k) + dotp(q, pk.Row(c2p[i*T+j])[h*dh:(h+1)*dh]) + dotp(k, pq.Row(p2c[i*T+j])[h*dh:(h+1)*dh]))
					mx = max(mx, sc[j])
				}
				z := 0.0
				for j := range sc {
					sc[j] = math.Exp(sc[j] - mx)
					z += sc[j]
				}
				for c := 0; c < dh; c++ {
					want := 0.0
					for j := 0; j < kl; j++ {
						want += sc[j] / z * qkv.Row(s*T + j)[2*D+h*dh+c]
					}
					if g := got.Row(s*T + i)[h*dh+c]; math.Abs(g-want) > 1e-12 {
						t.Fatalf("sequence %d head %d query %d column %d: %v, want %v", s, h, i, c, g, want)
					}
				}
			}
		}
	}
}

func TestDisentangledAttentionPanics(t *testing.T) {
	tp := NewTape[float64](nil, 0)
	qkv := tp.Const(NewTensor[float64](3, 12))
	pos := tp.Const(NewTensor[float64](2, 4))
	for name, f := range map[string]func(){
		"index out of range": func() {
			tp.DisentangledAttention(qkv, nil, pos, 2, AttentionMask{}, []int{0, 1, 2, 0, 0, 0, 0, 0, 0}, nil, 1)
		},
		"short table": func() { tp.DisentangledAttention(qkv, nil, pos, 2, AttentionMask{}, []int{0}, nil, 1) },
		"no positions": func() {
			tp.DisentangledAttention(qkv, nil, nil, 2, AttentionMask{}, make([]int, 9), nil, 1)
		},
		"heads": func() { tp.DisentangledAttention(qkv, nil, nil, 3, AttentionMask{}, nil, nil, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
