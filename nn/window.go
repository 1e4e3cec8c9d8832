package nn

import (
	"fmt"
	"math"
)

// SelfAttentionQKVWindow is SelfAttentionQKV with local (sliding-window)
// attention: query i sees only the keys j with |i − j| ≤ radius, besides
// the mask's key padding (and causality, when set). This is the banded
// attention of Longformer (Beltagy et al. 2020, §3.1) that ModernBERT's
// local layers use (Warner et al. 2024, §2.1: a 128-token window, so
// radius 64). A radius of at least the sequence length is
// SelfAttentionQKV. There is no attention dropout.
//
// Each (sequence, head) pair runs in blocks of query rows: one GEMM
// computes a block's scores against the keys its bands cover, each row is
// softmaxed over its own band, and the weights outside the band are
// exactly 0, so the GEMMs of the backward pass need no mask.
func (tp *Tape[T]) SelfAttentionQKVWindow(qkv *Var[T], heads int, mask AttentionMask, radius int) *Var[T] {
	nq, d3 := mustMatrix("SelfAttentionQKVWindow", qkv)
	if d3%3 != 0 || heads <= 0 || (d3/3)%heads != 0 {
		panic(fmt.Sprintf("nn: SelfAttentionQKVWindow: %v is not [N, 3D] with %d heads", qkv.Value.Shape, heads))
	}
	if radius < 0 {
		panic(fmt.Sprintf("nn: SelfAttentionQKVWindow: radius %d", radius))
	}
	b := max(mask.Batch, 1)
	if nq%b != 0 {
		panic(fmt.Sprintf("nn: SelfAttentionQKVWindow: %d rows in a batch of %d", nq, b))
	}
	d := d3 / 3
	t := nq / b
	mask.batch(t)
	dh := d / heads
	scale := T(1 / math.Sqrt(float64(dh)))
	// band is the keys [lo, hi) query i of a sequence with kl keys sees.
	band := func(i, kl int) (lo, hi int) {
		lo, hi = max(i-radius, 0), min(i+radius+1, kl)
		if mask.Causal {
			hi = min(hi, i+1)
		}
		return lo, max(hi, lo)
	}
	// Query rows go in blocks of bq: block [i0, i1) reads only the keys
	// [c0, c1) its rows' bands cover, so a narrow window over a long
	// sequence costs about T·(bq + 2·radius) products, not T².
	bq := min(max(2*radius, 4), 64)
	blocks := func(kl int, f func(i0, i1, c0, c1 int)) {
		for i0 := 0; i0 < t; i0 += bq {
			i1 := min(i0+bq, t)
			c0, _ := band(i0, kl)
			_, c1 := band(i1-1, kl)
			f(i0, i1, c0, max(c1, c0))
		}
	}
	y := tp.outDirty(anyGrad(qkv), nq, d)
	block := t * t
	var probs []T
	if y.Grad != nil {
		probs = tp.arena.allocDirty(b * heads * block)
	} else {
		probs = tp.arena.allocDirty(block)
	}
	x, yd := qkv.Value.Data, y.Value.Data
	for s := 0; s < b; s++ {
		kl := mask.keyLen(s, t)
		for h := 0; h < heads; h++ {
			p := probs
			if y.Grad != nil {
				p = probs[(s*heads+h)*block : (s*heads+h+1)*block]
			}
			qo, ko, vo, yo := s*t*d3+h*dh, s*t*d3+d+h*dh, s*t*d3+2*d+h*dh, s*t*d+h*dh
			blocks(kl, func(i0, i1, c0, c1 int) {
				// S = Q·Kᵀ on the block, softmax over each row's band
				// (zeros elsewhere in the row), then O = P·V.
				gemm(false, true, i1-i0, c1-c0, dh, 1, x[qo+i0*d3:], d3, x[ko+c0*d3:], d3, 0, p[i0*t+c0:], t)
				for i := i0; i < i1; i++ {
					row := p[i*t : (i+1)*t]
					lo, hi := band(i, kl)
					clear(row[:lo])
					softmaxPrefix(row[lo:], row[lo:], hi-lo, scale)
				}
				gemm(false, false, i1-i0, dh, c1-c0, 1, p[i0*t+c0:], t, x[vo+c0*d3:], d3, 0, yd[yo+i0*d:], d)
			})
		}
	}
	if y.Grad == nil {
		return y
	}
	tp.record(func() {
		dy, dx := y.Grad.Data, qkv.Grad.Data
		dp := tp.arena.allocDirty(block)
		for s := 0; s < b; s++ {
			kl := mask.keyLen(s, t)
			for h := 0; h < heads; h++ {
				p := probs[(s*heads+h)*block : (s*heads+h+1)*block]
				qo, ko, vo, yo := s*t*d3+h*dh, s*t*d3+d+h*dh, s*t*d3+2*d+h*dh, s*t*d+h*dh
				blocks(kl, func(i0, i1, c0, c1 int) {
					m, n := i1-i0, c1-c0
					pb := p[i0*t+c0:]
					// dV += Pᵀ·dY
					gemm(true, false, n, dh, m, 1, pb, t, dy[yo+i0*d:], d, 1, dx[vo+c0*d3:], d3)
					// dP = dY·Vᵀ, then dS = scale·P⊙(dP − ⟨dP, P⟩) row
					// by row: zero outside the band, where P is.
					gemm(false, true, m, n, dh, 1, dy[yo+i0*d:], d, x[vo+c0*d3:], d3, 0, dp[i0*t+c0:], t)
					for i := i0; i < i1; i++ {
						pr, gr := p[i*t+c0:i*t+c1], dp[i*t+c0:i*t+c1]
						dotp := dot(gr, pr)
						for j, w := range pr {
							gr[j] = scale * w * (gr[j] - dotp)
						}
					}
					// dQ += dS·K, dK += dSᵀ·Q
					gemm(false, false, m, dh, n, 1, dp[i0*t+c0:], t, x[ko+c0*d3:], d3, 1, dx[qo+i0*d3:], d3)
					gemm(true, false, n, dh, m, 1, dp[i0*t+c0:], t, x[qo+i0*d3:], d3, 1, dx[ko+c0*d3:], d3)
				})
			}
		}
	})
	return y
}
