package nn

import (
	"fmt"
	"math"
)

// AttentionMask describes a batch of sequences packed row-wise for
// MultiHeadAttention and which keys each query may see. Sequences are
// padded to a common length: queries to Tq = rows(q)/Batch rows each, keys
// and values to Tk = rows(k)/Batch, so a batch is one [Batch·T, D] matrix
// and the projections around attention are single large GEMMs.
type AttentionMask struct {
	// Batch is the number of sequences packed in q, k and v; 0 means 1.
	Batch int
	// KeyLens, when not nil, holds each sequence's number of real keys
	// (len(KeyLens) == Batch): keys at or past it are padding and get
	// weight exactly 0, so a padded sequence's real rows come out as if it
	// ran alone. Query rows past a sequence's length are computed like any
	// other and should be ignored.
	KeyLens []int
	// Causal restricts query i to keys j ≤ i (autoregressive decoding).
	Causal bool
}

// batch returns the number of sequences and checks the key lengths.
func (m AttentionMask) batch(tk int) int {
	b := max(m.Batch, 1)
	if m.KeyLens != nil {
		if len(m.KeyLens) != b {
			panic(fmt.Sprintf("nn: AttentionMask: %d key lengths for a batch of %d", len(m.KeyLens), b))
		}
		for _, l := range m.KeyLens {
			if l < 0 || l > tk {
				panic(fmt.Sprintf("nn: AttentionMask: key length %d of %d keys", l, tk))
			}
		}
	}
	return b
}

// keyLen is the number of keys sequence b may attend to.
func (m AttentionMask) keyLen(b, tk int) int {
	if m.KeyLens == nil {
		return tk
	}
	return m.KeyLens[b]
}

// colView is a block of columns [off, off+width) of a matrix Var whose rows
// are ld apart: q, k and v may be separate matrices or column blocks of one
// fused [N, 3D] projection, read and written in place.
type colView[T Float] struct {
	v       *Var[T]
	off, ld int
}

func (c colView[T]) val() []T { return c.v.Value.Data[c.off:] }
func (c colView[T]) grad() []T {
	if c.v.Grad == nil {
		return nil
	}
	return c.v.Grad.Data[c.off:]
}

// MultiHeadAttention is the scaled dot-product attention of Vaswani et al.
// (2017, §3.2.2) over heads: q [B·Tq, D], k [B·Tk, D] and v [B·Tk, D] are
// already projected, and head h uses columns [h·D/heads, (h+1)·D/heads) of
// each, Attention(Q_h, K_h, V_h) = softmax(Q_h·K_hᵀ/√(D/heads))·V_h. The
// heads' outputs are concatenated, giving [B·Tq, D] ready for the output
// projection. The mask gives the batch layout, key padding and causality.
func (tp *Tape[T]) MultiHeadAttention(q, k, v *Var[T], heads int, mask AttentionMask) *Var[T] {
	_, d := mustMatrix("MultiHeadAttention", q)
	if _, dk := mustMatrix("MultiHeadAttention", k); dk != d || !k.Value.SameShape(v.Value) {
		panic(fmt.Sprintf("nn: MultiHeadAttention: q %v, k %v, v %v", q.Value.Shape, k.Value.Shape, v.Value.Shape))
	}
	return tp.mha(colView[T]{q, 0, d}, colView[T]{k, 0, d}, colView[T]{v, 0, d}, d, heads, mask, 0)
}

// SelfAttentionQKV is MultiHeadAttention over a fused projection qkv
// [B·T, 3D] whose column blocks are the queries, keys and values (one GEMM
// computes all three), without copying them apart. dropout is the
// probability of dropping an attention weight in training (BERT's
// attention_probs_dropout_prob).
func (tp *Tape[T]) SelfAttentionQKV(qkv *Var[T], heads int, mask AttentionMask, dropout float64) *Var[T] {
	_, d3 := mustMatrix("SelfAttentionQKV", qkv)
	if d3%3 != 0 {
		panic(fmt.Sprintf("nn: SelfAttentionQKV: %v is not [N, 3D]", qkv.Value.Shape))
	}
	d := d3 / 3
	return tp.mha(colView[T]{qkv, 0, d3}, colView[T]{qkv, d, d3}, colView[T]{qkv, 2 * d, d3}, d, heads, mask, dropout)
}

// mha computes multi-head attention from column views of width d. For
// every sequence b and head h it runs two GEMMs, S = Q·Kᵀ and O = P·V, on
// strided blocks of the inputs and output; padded keys are left out of
// both products (not merely masked), so padding costs no work there.
func (tp *Tape[T]) mha(q, k, v colView[T], d, heads int, mask AttentionMask, dropout float64) *Var[T] {
	if heads <= 0 || d%heads != 0 {
		panic(fmt.Sprintf("nn: MultiHeadAttention: width %d is not a multiple of %d heads", d, heads))
	}
	nq, nk := q.v.Value.Rows(), k.v.Value.Rows()
	b := max(mask.Batch, 1)
	if nq%b != 0 || nk%b != 0 || v.v.Value.Rows() != nk {
		panic(fmt.Sprintf("nn: MultiHeadAttention: %d query and %d key rows in a batch of %d", nq, nk, b))
	}
	tq, tk := nq/b, nk/b
	mask.batch(tk)
	dh := d / heads
	scale := T(1 / math.Sqrt(float64(dh)))
	drop := tp.train && dropout > 0
	if dropout >= 1 {
		panic("nn: attention dropout probability must be < 1")
	}
	y := tp.outDirty(anyGrad(q.v, k.v, v.v), nq, d)
	// Attention weights are kept per (sequence, head) for the backward
	// pass; inference reuses one buffer.
	block := tq * tk
	var probs, dropped []T
	if y.Grad != nil {
		probs = tp.arena.allocDirty(b * heads * block)
		if drop {
			dropped = tp.arena.allocDirty(b * heads * block)
		}
	} else {
		probs = tp.arena.allocDirty(block)
		if drop {
			dropped = tp.arena.allocDirty(block)
		}
	}
	keep := T(1 / (1 - dropout))
	qd, kd, vd, yd := q.val(), k.val(), v.val(), y.Value.Data
	for s := 0; s < b; s++ {
		kl := mask.keyLen(s, tk)
		for h := 0; h < heads; h++ {
			p := probs
			pd := dropped
			if y.Grad != nil {
				p = probs[(s*heads+h)*block : (s*heads+h+1)*block]
				if drop {
					pd = dropped[(s*heads+h)*block : (s*heads+h+1)*block]
				}
			}
			qo, ko, yo := s*tq*q.ld+h*dh, s*tk*k.ld+h*dh, s*tq*d+h*dh
			vo := s*tk*v.ld + h*dh
			gemm(false, true, tq, kl, dh, 1, qd[qo:], q.ld, kd[ko:], k.ld, 0, p, tk)
			for i := 0; i < tq; i++ {
				n := kl
				if mask.Causal {
					n = min(kl, i+1)
				}
				row := p[i*tk : (i+1)*tk]
				softmaxPrefix(row, row, n, scale)
			}
			pv := p
			if drop {
				for i, w := range p {
					pd[i] = 0
					if tp.rng.Float64() >= dropout {
						pd[i] = w * keep
					}
				}
				pv = pd
			}
			gemm(false, false, tq, dh, kl, 1, pv, tk, vd[vo:], v.ld, 0, yd[yo:], d)
		}
	}
	if y.Grad == nil {
		return y
	}
	tp.record(func() {
		dy := y.Grad.Data
		dq, dk, dv := q.grad(), k.grad(), v.grad()
		var dp []T
		if dq != nil || dk != nil {
			dp = tp.arena.allocDirty(block)
		}
		for s := 0; s < b; s++ {
			kl := mask.keyLen(s, tk)
			for h := 0; h < heads; h++ {
				p := probs[(s*heads+h)*block : (s*heads+h+1)*block]
				pv := p
				if drop {
					pv = dropped[(s*heads+h)*block : (s*heads+h+1)*block]
				}
				qo, ko, yo := s*tq*q.ld+h*dh, s*tk*k.ld+h*dh, s*tq*d+h*dh
				vo := s*tk*v.ld + h*dh
				if dv != nil { // dV += Pᵀ·dY
					gemm(true, false, kl, dh, tq, 1, pv, tk, dy[yo:], d, 1, dv[vo:], v.ld)
				}
				if dp == nil {
					continue
				}
				// dP = dY·Vᵀ, then through dropout and softmax:
				// dS = scale·P⊙(dP − ⟨dP, P⟩) row by row.
				gemm(false, true, tq, kl, dh, 1, dy[yo:], d, vd[vo:], v.ld, 0, dp, tk)
				for i := 0; i < tq; i++ {
					pr, gr := p[i*tk:i*tk+kl], dp[i*tk:i*tk+kl]
					if drop {
						for j, w := range pv[i*tk : i*tk+kl] {
							if w == 0 {
								gr[j] = 0
							} else {
								gr[j] *= keep
							}
						}
					}
					dotp := dot(gr, pr)
					for j, w := range pr {
						gr[j] = scale * w * (gr[j] - dotp)
					}
				}
				if dq != nil { // dQ += dS·K
					gemm(false, false, tq, dh, kl, 1, dp, tk, kd[ko:], k.ld, 1, dq[qo:], q.ld)
				}
				if dk != nil { // dK += dSᵀ·Q
					gemm(true, false, kl, dh, tq, 1, dp, tk, qd[qo:], q.ld, 1, dk[ko:], k.ld)
				}
			}
		}
	})
	return y
}
