package dual

import (
	"fmt"
	"math/rand/v2"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
)

// cross is ENDX's cross side (section 3.3): its own sequence layers, the
// cross-attention both ways with its FFN and LayerNorm (Eq. 2-4), and the
// aggregators of the cross-embeddings.
type cross[T nn.Float] struct {
	qSeq, aSeq   *seqLayer[T] // Encoder_cross; the same layer when shared
	qAttn, aAttn *nn.MultiHeadAttention[T]
	qFFN, aFFN   *nn.FeedForward[T]
	qNorm, aNorm *nn.LayerNormLayer[T]
	qPool, aPool *pooler[T]
	qGate, aGate *nn.Param[T] // Hyper.CrossResidual's gates; nil without it
}

func newCross[T nn.Float](h Hyper, ps *nn.Params[T], enc encoder.Encoder[T], rng *rand.Rand) (*cross[T], error) {
	in := enc.Dim()
	c := &cross[T]{}
	var err error
	if c.qSeq, err = newSeqLayer[T](h, ps, crossPrefix+"question", in, rng); err != nil {
		return nil, fmt.Errorf("cross encoder: %w", err)
	}
	c.aSeq = c.qSeq
	if !h.Shared {
		if c.aSeq, err = newSeqLayer[T](h, ps, crossPrefix+"answer", in, rng); err != nil {
			return nil, fmt.Errorf("cross encoder: %w", err)
		}
	}
	d := h.width()
	side := func(name string) (*nn.MultiHeadAttention[T], *nn.FeedForward[T], *nn.LayerNormLayer[T], *pooler[T]) {
		norm := nn.NewLayerNorm(ps, name+".norm", d)
		norm.Eps = 1e-6
		return nn.NewMultiHeadAttention(ps, name+".attn", d, h.CrossHeads, rng),
			nn.NewFeedForward(ps, name+".ffn", d, 2*d, nn.ActGELU, rng), norm,
			newPooler(h, ps, name+".pool", enc, rng)
	}
	c.qAttn, c.qFFN, c.qNorm, c.qPool = side(crossPrefix + "refine_question")
	c.aAttn, c.aFFN, c.aNorm, c.aPool = side(crossPrefix + "refine_answer")
	if h.CrossResidual {
		// Zero: the cross-embeddings start as the dual ones.
		dim := h.Dim()
		c.qGate, c.aGate = ps.New(crossPrefix+"refine_question.gate", dim), ps.New(crossPrefix+"refine_answer.gate", dim)
	}
	return c, nil
}

// refine is Eq. 2-4 for one side: attention from the matched sentence's
// states (the queries) to this side's states x (keys and values), then
// LayerNorm(H' + FFN(H')).
func refine[T nn.Float](tp *nn.Tape[T], attn *nn.MultiHeadAttention[T], ffn *nn.FeedForward[T], norm *nn.LayerNormLayer[T], x, matched *nn.Var[T]) *nn.Var[T] {
	h := attn.Cross(tp, matched, x, nn.AttentionMask{}) // H' [len(matched), d], Eq. 2-3
	return norm.Forward(tp, tp.Add(h, ffn.Forward(tp, h)))
}

// embed returns the cross-embeddings R_q^cross [B, D] and R_a^cross [B, D]
// of the batch's matched pairs, given their token states qx[i] and ax[i],
// and with pen Lin's penalties; with Hyper.CrossResidual, their gated
// parts, which the caller adds to the dual embeddings.
func (c *cross[T]) embed(tp *nn.Tape[T], pen bool, qx, ax []*nn.Var[T]) (qc, ac *nn.Var[T], pens []*nn.Var[T]) {
	qs, as := make([]*nn.Var[T], len(qx)), make([]*nn.Var[T], len(qx))
	for i := range qx {
		hq := c.qSeq.forward(tp, qx[i])
		ha := c.aSeq.forward(tp, ax[i])
		var pq, pa *nn.Var[T]
		qs[i], pq = c.qPool.forward(tp, refine(tp, c.qAttn, c.qFFN, c.qNorm, hq, ha), pen)
		as[i], pa = c.aPool.forward(tp, refine(tp, c.aAttn, c.aFFN, c.aNorm, ha, hq), pen)
		if c.qGate != nil {
			qs[i], as[i] = tp.Mul(qs[i], tp.Param(c.qGate)), tp.Mul(as[i], tp.Param(c.aGate))
		}
		pens = appendNonNil(pens, pq, pa)
	}
	return tp.Stack(qs...), tp.Stack(as...), pens
}

// gamWeights are the α_x of Eq. 12 after epoch epochs: each rises
// linearly from 0 to its final value over the first Ramp epochs (section
// 4.4), or over the Ramp epochs after GAMStart (0 before it).
func (h Hyper) gamWeights(epoch float64) gamWeights {
	r := 1.0
	switch e := epoch - h.GAMStart; {
	case e < 0:
		r = 0
	case h.Ramp > 0 && e < h.Ramp:
		r = e / h.Ramp
	}
	return gamWeights{AQ: r * h.AlphaAQ, QA: r * h.AlphaQA, QQ: r * h.AlphaQQ, AA: r * h.AlphaAA, Temp: h.GAMTemp, DualTemp: h.GAMDualTemp}
}

// gamWeights weigh GAM's four terms (Eq. 12); a zero drops its term. Temp
// and DualTemp divide the cross and the dual side's inner products before
// their softmax (0 or 1: the paper's plain kernel, Eq. 10).
type gamWeights struct{ AQ, QA, QQ, AA, Temp, DualTemp float64 }

// tempered divides scores by temp, unless temp is 0 or 1.
func tempered[T nn.Float](tp *nn.Tape[T], scores *nn.Var[T], temp float64) *nn.Var[T] {
	if temp > 0 && temp != 1 {
		return tp.Scale(scores, 1/temp)
	}
	return scores
}

// gam is L_ga, Eq. 12: for each of a|q, q|a, q|q and a|a, the mean over
// the batch's rows of KL(p_cross(·|i) ‖ p_dual(·|i)) (Eq. 11), where p is
// the row softmax of the in-batch inner products (Eq. 7-8 with the kernel
// of Eq. 10). qd, ad are the dual embeddings [B, D], qc, ac the cross
// ones; with stop set the cross side is a constant target.
func gam[T nn.Float](tp *nn.Tape[T], qd, ad, qc, ac *nn.Var[T], w gamWeights, stop bool) *nn.Var[T] {
	if stop {
		qc, ac = tp.Const(qc.Value), tp.Const(ac.Value)
	}
	terms := []struct {
		w              float64
		di, dj, ci, cj *nn.Var[T]
	}{
		{w.AQ, qd, ad, qc, ac}, // p(a_j | q_i)
		{w.QA, ad, qd, ac, qc}, // p(q_j | a_i)
		{w.QQ, qd, qd, qc, qc}, // p(q_j | q_i)
		{w.AA, ad, ad, ac, ac}, // p(a_j | a_i)
	}
	var loss *nn.Var[T]
	for _, t := range terms {
		if t.w == 0 {
			continue
		}
		cs, ds := tempered(tp, tp.MatMulT(t.ci, t.cj), w.Temp), tempered(tp, tp.MatMulT(t.di, t.dj), w.DualTemp)
		l := tp.Scale(neighbourKL(tp, cs, ds), t.w)
		if loss == nil {
			loss = l
		} else {
			loss = tp.Add(loss, l)
		}
	}
	if loss == nil {
		return tp.Const(nn.NewTensor[T](1))
	}
	return loss
}

// neighbourKL is Eq. 11 for score matrices [B, B]: (1/B) Σ_i Σ_j
// p_c(j|i) (log p_c(j|i) − log p_d(j|i)), p the row softmax of the scores.
func neighbourKL[T nn.Float](tp *nn.Tape[T], crossScores, dualScores *nn.Var[T]) *nn.Var[T] {
	b, _ := crossScores.Value.Dims()
	lc := tp.LogSoftmax(crossScores)
	pc := tp.Softmax(crossScores)
	ld := tp.LogSoftmax(dualScores)
	return tp.Scale(tp.Sum(tp.Mul(pc, tp.Sub(lc, ld))), 1/float64(b))
}
