package nn

import "fmt"

// DisentangledAttention is the disentangled self-attention of DeBERTa (He
// et al. 2021, §3.1, eq. 2–4): a token's score against another adds, to
// the content-to-content term Q_i·K_j, a content-to-position term Q_i·Kr_δ
// (c2p) and a position-to-content term K_j·Qr_δ' (p2c), where Kr and Qr
// are the relative-position embeddings projected by the keys' and queries'
// maps and δ, δ' the relative distances of i and j. All three terms share
// one scale (DeBERTa's 1/√(d·(1 + number of position terms)), §3.1 after
// eq. 4), then the scores are softmaxed over the real keys and mix V.
//
// qkv [B·T, 3D] holds the fused queries, keys and values of B sequences
// padded to T (as SelfAttentionQKV), heads split D. posK [R, D] are the
// projected position keys and c2p [T·T] says which of their rows the score
// of query i against key j reads, c2p[i·T+j] in [0, R); posQ and p2c are
// the same for the position queries. A nil index table leaves its term out
// (posK or posQ may then be nil). Since the distances depend on i − j
// alone, the tables of the padded length serve every sequence of a batch.
//
// The relative scores are gathered from the dense products Q·Krᵀ and
// K·Qrᵀ over the position rows the tables read, one GEMM each per
// sequence and head, as DeBERTa's reference implementation gathers them;
// their gradients are scattered back.
// There is no attention dropout.
func (tp *Tape[T]) DisentangledAttention(qkv, posQ, posK *Var[T], heads int, mask AttentionMask, c2p, p2c []int, scale float64) *Var[T] {
	nq, d3 := mustMatrix("DisentangledAttention", qkv)
	if d3%3 != 0 || heads <= 0 || (d3/3)%heads != 0 {
		panic(fmt.Sprintf("nn: DisentangledAttention: %v is not [N, 3D] with %d heads", qkv.Value.Shape, heads))
	}
	d := d3 / 3
	b := max(mask.Batch, 1)
	if nq%b != 0 {
		panic(fmt.Sprintf("nn: DisentangledAttention: %d rows in a batch of %d", nq, b))
	}
	t := nq / b
	mask.batch(t)
	if mask.Causal {
		panic("nn: DisentangledAttention: causal masks are not supported")
	}
	dh := d / heads
	// rows checks a table and returns the block of position rows
	// [lo, lo+n) it reads: only those are projected against the content
	// (a short sequence reads few of a checkpoint's 512 rows).
	rows := func(name string, pos *Var[T], idx []int) (lo, n int) {
		if idx == nil {
			return 0, 0
		}
		if pos == nil {
			panic(fmt.Sprintf("nn: DisentangledAttention: a %s table without positions", name))
		}
		r, c := mustMatrix("DisentangledAttention", pos)
		if c != d || len(idx) != t*t {
			panic(fmt.Sprintf("nn: DisentangledAttention: %s positions %v and %d indices for width %d, length %d", name, pos.Value.Shape, len(idx), d, t))
		}
		lo, hi := r, -1
		for _, k := range idx {
			if k < 0 || k >= r {
				panic(fmt.Sprintf("nn: DisentangledAttention: %s index %d outside [0, %d)", name, k, r))
			}
			lo, hi = min(lo, k), max(hi, k)
		}
		return lo, max(hi-lo+1, 0)
	}
	klo, rk := rows("c2p", posK, c2p)
	qlo, rq := rows("p2c", posQ, p2c)
	if c2p == nil {
		posK = nil
	}
	if p2c == nil {
		posQ = nil
	}
	vars := []*Var[T]{qkv}
	if posK != nil {
		vars = append(vars, posK)
	}
	if posQ != nil {
		vars = append(vars, posQ)
	}
	y := tp.outDirty(anyGrad(vars...), nq, d)
	block := t * t
	var probs []T
	if y.Grad != nil {
		probs = tp.arena.allocDirty(b * heads * block)
	} else {
		probs = tp.arena.allocDirty(block)
	}
	var rel []T // Q·Krᵀ or K·Qrᵀ of one (sequence, head)
	if rk+rq > 0 {
		rel = tp.arena.allocDirty(t * max(rk, rq))
	}
	sc := T(scale)
	x, yd := qkv.Value.Data, y.Value.Data
	for s := 0; s < b; s++ {
		kl := mask.keyLen(s, t)
		for h := 0; h < heads; h++ {
			p := probs
			if y.Grad != nil {
				p = probs[(s*heads+h)*block : (s*heads+h+1)*block]
			}
			qo, ko, vo, yo := s*t*d3+h*dh, s*t*d3+d+h*dh, s*t*d3+2*d+h*dh, s*t*d+h*dh
			gemm(false, true, t, kl, dh, 1, x[qo:], d3, x[ko:], d3, 0, p, t)
			if posK != nil { // c2p: p[i, j] += (Q_i·Krᵀ)[c2p[i, j]]
				gemm(false, true, t, rk, dh, 1, x[qo:], d3, posK.Value.Data[klo*d+h*dh:], d, 0, rel, rk)
				for i := 0; i < t; i++ {
					pr, ix, ar := p[i*t:i*t+kl], c2p[i*t:], rel[i*rk:]
					for j := range pr {
						pr[j] += ar[ix[j]-klo]
					}
				}
			}
			if posQ != nil { // p2c: p[i, j] += (K_j·Qrᵀ)[p2c[i, j]]
				gemm(false, true, kl, rq, dh, 1, x[ko:], d3, posQ.Value.Data[qlo*d+h*dh:], d, 0, rel, rq)
				for i := 0; i < t; i++ {
					pr, ix := p[i*t:i*t+kl], p2c[i*t:]
					for j := range pr {
						pr[j] += rel[j*rq+ix[j]-qlo]
					}
				}
			}
			for i := 0; i < t; i++ {
				row := p[i*t : (i+1)*t]
				softmaxPrefix(row, row, kl, sc)
			}
			gemm(false, false, t, dh, kl, 1, p, t, x[vo:], d3, 0, yd[yo:], d)
		}
	}
	if y.Grad == nil {
		return y
	}
	tp.record(func() {
		dy := y.Grad.Data
		var dx, dpk, dpq []T
		if qkv.Grad != nil {
			dx = qkv.Grad.Data
		}
		if posK != nil && posK.Grad != nil {
			dpk = posK.Grad.Data
		}
		if posQ != nil && posQ.Grad != nil {
			dpq = posQ.Grad.Data
		}
		dp := tp.arena.allocDirty(block)
		var drel []T
		if rk+rq > 0 {
			drel = tp.arena.allocDirty(t * max(rk, rq))
		}
		for s := 0; s < b; s++ {
			kl := mask.keyLen(s, t)
			for h := 0; h < heads; h++ {
				p := probs[(s*heads+h)*block : (s*heads+h+1)*block]
				qo, ko, vo, yo := s*t*d3+h*dh, s*t*d3+d+h*dh, s*t*d3+2*d+h*dh, s*t*d+h*dh
				if dx != nil { // dV += Pᵀ·dY
					gemm(true, false, kl, dh, t, 1, p, t, dy[yo:], d, 1, dx[vo:], d3)
				}
				// dP = dY·Vᵀ, then through the softmax: the gradient of
				// every score, dS = scale·P⊙(dP − ⟨dP, P⟩) row by row.
				gemm(false, true, t, kl, dh, 1, dy[yo:], d, x[vo:], d3, 0, dp, t)
				for i := 0; i < t; i++ {
					pr, gr := p[i*t:i*t+kl], dp[i*t:i*t+kl]
					dotp := dot(gr, pr)
					for j, w := range pr {
						gr[j] = sc * w * (gr[j] - dotp)
					}
				}
				if dx != nil { // dQ += dS·K, dK += dSᵀ·Q
					gemm(false, false, t, dh, kl, 1, dp, t, x[ko:], d3, 1, dx[qo:], d3)
					gemm(true, false, kl, dh, t, 1, dp, t, x[qo:], d3, 1, dx[ko:], d3)
				}
				if posK != nil && (dx != nil || dpk != nil) {
					// Scatter dS into d(Q·Krᵀ) [T, rk], then
					// dQ += d(Q·Krᵀ)·Kr and dKr += d(Q·Krᵀ)ᵀ·Q.
					dr := drel[:t*rk]
					clear(dr)
					for i := 0; i < t; i++ {
						gr, ix, ar := dp[i*t:i*t+kl], c2p[i*t:], dr[i*rk:]
						for j, g := range gr {
							ar[ix[j]-klo] += g
						}
					}
					if dx != nil {
						gemm(false, false, t, dh, rk, 1, dr, rk, posK.Value.Data[klo*d+h*dh:], d, 1, dx[qo:], d3)
					}
					if dpk != nil {
						gemm(true, false, rk, dh, t, 1, dr, rk, x[qo:], d3, 1, dpk[klo*d+h*dh:], d)
					}
				}
				if posQ != nil && (dx != nil || dpq != nil) {
					// The same for K·Qrᵀ [kl, rq]: row j collects the
					// gradients of every query's score against key j.
					dr := drel[:kl*rq]
					clear(dr)
					for i := 0; i < t; i++ {
						gr, ix := dp[i*t:i*t+kl], p2c[i*t:]
						for j, g := range gr {
							dr[j*rq+ix[j]-qlo] += g
						}
					}
					if dx != nil {
						gemm(false, false, kl, dh, rq, 1, dr, rq, posQ.Value.Data[qlo*d+h*dh:], d, 1, dx[ko:], d3)
					}
					if dpq != nil {
						gemm(true, false, rq, dh, kl, 1, dr, rq, x[ko:], d3, 1, dpq[qlo*d+h*dh:], d)
					}
				}
			}
		}
	})
	return y
}

// LinearColumns is x·w[:, from:to] + b[from:to] for w [in, out] and b
// [out], read in place: one block of a fused projection applied alone, as
// DeBERTa-v3 projects its relative-position embeddings with the query and
// key blocks of the fused query/key/value map (share_att_key) without
// computing the values' block. Its gradient flows to x, w and b.
func (tp *Tape[T]) LinearColumns(x, w, b *Var[T], from, to int) *Var[T] {
	return tp.linearCols(x, w, b, from, to)
}
