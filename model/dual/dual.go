package dual

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// Name is the architecture's name in flags and model files.
const Name = "dual"

// Layers lists the sequence layers over the token states; "none" hands
// the encoder's states straight to the aggregator (a fine-tuned
// transformer encoder needs no layer of its own).
var Layers = []string{"rnn", "gru", "lstm", "birnn", "bigru", "bilstm", "transformer", LayerNone}

// LayerNone is the empty sequence layer.
const LayerNone = "none"

// The aggregators.
const (
	PoolAttention = "attention" // multi-hop self-attention (Lin et al. 2017)
	PoolMean      = "mean"
	PoolEncoder   = "encoder" // the encoder's own sentence head (encoder.SentenceHead)
)

// MaxLen is the most tokens a transformer tower reads; longer sentences
// are cut (the RNNs read every token).
const MaxLen = 512

// Hyper are the hyperparameters, saved in the model file.
type Hyper struct {
	Layer       string  `json:"layer"`                               // one of Layers
	Hidden      int     `json:"hidden"`                              // RNN size per direction, or the transformer's width; with LayerNone the encoder's width
	TLayers     int     `json:"t_layers"`                            // transformer layers (the paper: 2)
	Heads       int     `json:"heads"`                               // transformer self-attention heads
	Shared      bool    `json:"shared"`                              // one tower for questions and answers
	Pool        string  `json:"pool"`                                // PoolAttention, PoolMean or PoolEncoder
	Hops        int     `json:"hops"`                                // r, attention hops (Lin et al.)
	AttnHidden  int     `json:"attn_hidden" flag:"attention-hidden"` // d_a, the attention's hidden size
	Penalty     float64 `json:"penalty"`                             // coefficient of Lin's ‖AAᵀ − I‖²_F; 0: none
	WordDropout float64 `json:"word_dropout"`                        // dropout on the token states, in training
	Encoder     string  `json:"encoder" recipe:"-"`                  // the encoder's kind
	FineTune    bool    `json:"fine_tune"`                           // train the encoder's weights too
	// Scale multiplies the in-batch inner products in training (Eq. 1 and
	// GAM's dual distributions; 0 means 1). Unit vectors, such as
	// USE-Lite's head gives, score in [-1, 1], too flat a softmax without
	// it; ranking does not depend on it.
	Scale float64 `json:"scale,omitempty"`

	// ENDX (sections 3.3-3.5): the cross-encoder and GAM, in training.
	ENDX       bool    `json:"endx"`
	CrossHeads int     `json:"cross_heads"`                    // heads of the cross-attention (the paper: 12)
	AlphaDual  float64 `json:"alpha_dual"`                     // Eq. 13 (the paper: 0.25)
	AlphaCross float64 `json:"alpha_cross"`                    // Eq. 13 (0.25)
	AlphaGA    float64 `json:"alpha_ga"`                       // Eq. 13 (0.5)
	AlphaAQ    float64 `json:"alpha_aq" flag:"gam-aq"`         // Eq. 12, final α_{a|q} (0.5)
	AlphaQA    float64 `json:"alpha_qa" flag:"gam-qa"`         // α_{q|a} (0.5)
	AlphaQQ    float64 `json:"alpha_qq" flag:"gam-qq"`         // α_{q|q} (the paper prints 1e4)
	AlphaAA    float64 `json:"alpha_aa" flag:"gam-aa"`         // α_{a|a} (the paper prints 1e4)
	Ramp       float64 `json:"ramp" flag:"gam-ramp"`           // epochs over which the α_x rise from 0 (5); 0: none
	StopGrad   bool    `json:"stop_grad" flag:"gam-stop-grad"` // GAM's gradient does not reach the cross side
	// GAMStart is the epochs of training before GAM's ramp begins (as2's
	// addition; 0, the paper's: from the start): the cross side, trained
	// from scratch by L_cross, learns to rank before its geometry is a
	// target.
	GAMStart float64 `json:"gam_start,omitempty"`
	// GAMTemp divides the cross-embeddings' inner products in GAM's
	// target distributions (Eq. 7; 0 or 1: none, the paper's kernel).
	GAMTemp float64 `json:"gam_temperature,omitempty"`
	// GAMDualTemp divides the dual side's inner products there, as
	// distillation softens the student with the teacher: a tower that
	// ends in LayerNorm cannot shrink its vectors to match soft targets.
	GAMDualTemp float64 `json:"gam_dual_temperature,omitempty"`
	// CrossScale is Scale for the cross side's inner products (Eq. 5 and
	// GAM's targets; 0 means 1). A cross side pooled by a unit-vector head
	// (--pool encoder) needs it as much as the dual one: unscaled, L_cross
	// cannot sharpen and GAM's targets are near uniform, so GAM pulls the
	// dual geometry flat.
	CrossScale float64 `json:"cross_scale,omitempty"`
	// CrossDetach keeps the cross side's gradient out of a fine-tuned
	// encoder that both sides read: the paper's Encoder_cross is its own
	// (section 3.3), so L_cross should not retrain the dual side's encoder.
	// The cross side then reads the encoder's current states as constants.
	CrossDetach bool `json:"cross_detach,omitempty"`
	// CrossLRScale multiplies the learning rate of the cross side's own
	// layers (0 means 1). They start random, while a fine-tuned encoder's
	// rate (2e-5) is set for weights that are already trained.
	CrossLRScale float64 `json:"cross_lr_scale,omitempty"`
	// CrossResidual makes each cross-embedding the matched sentence's dual
	// embedding, read as a constant, plus the cross side's vector times a
	// learned per-dimension gate that starts at 0 (LayerScale, Touvron et
	// al. 2021). The teacher then starts as the student, and L_cross
	// trains only what the cross-attention adds: a cross side
	// trained from scratch on 7,450 pairs ranks worse than a pretrained
	// dual side (as2's addition; the paper's cross side is a pretrained
	// BERT of its own).
	CrossResidual bool `json:"cross_residual,omitempty"`
}

// PaperHyper is the paper's setting for its non-BERT encoders (section
// 4.4): a 2-layer encoder, multi-hop attention, 12 cross-attention heads,
// α_dual, α_cross, α_ga = 0.25, 0.25, 0.5, α_{a|q} = α_{q|a} = 0.5 and
// α_{q|q} = α_{a|a} = 1e4 as printed, ramped over 5 epochs. The hidden size,
// hops and d_a are not given; they are as2's. The paper's encoder is a
// transformer or RNN over 768-d BERT token embeddings; as2's default
// encoder is static GloVe. Cross heads need the tower's width divisible by
// them: 12 heads over a BiLSTM of 2·150.
func PaperHyper() Hyper {
	return Hyper{Layer: "bilstm", Hidden: 150, TLayers: 2, Heads: 6, Pool: PoolAttention, Hops: 2, AttnHidden: 128,
		ENDX: true, CrossHeads: 12, AlphaDual: 0.25, AlphaCross: 0.25, AlphaGA: 0.5,
		AlphaAQ: 0.5, AlphaQA: 0.5, AlphaQQ: 1e4, AlphaAA: 1e4, Ramp: 5}
}

// RecipeHyper is as2's default: the dual encoder alone (--endx turns the
// cross-encoder on), with 6 cross-attention heads (a divisor of both 150
// and 300, the widths of the RNNs and BiRNNs), α_{q|q} = α_{a|a} = 0.5
// rather than the printed 1e4, and GAM's cross-side targets at temperature
// 50, chosen on a ReQA dev pool (notes/2026-11-23-reqa-answer-retrieval.md, "ENDX with a temperature":
// at the paper's kernel ENDX-LSTM falls under its dual encoder). A
// transformer tower, which ends in LayerNorm, needs the dual side's
// temperature too (--gam-dual-temperature 50); a BiLSTM does better
// without it.
func RecipeHyper() Hyper {
	h := PaperHyper()
	h.ENDX, h.CrossHeads = false, 6 // divides every width of hidden 150
	h.AlphaQQ, h.AlphaAA = 0.5, 0.5
	h.GAMTemp = 50
	return h
}

func (h Hyper) validate() error {
	alphas := []float64{h.AlphaDual, h.AlphaCross, h.AlphaGA, h.AlphaAQ, h.AlphaQA, h.AlphaQQ, h.AlphaAA}
	switch {
	case !slices.Contains(Layers, h.Layer):
		return fmt.Errorf("layer %q: want one of %s", h.Layer, strings.Join(Layers, ", "))
	case h.Hidden < 1 || h.Hidden > 4096:
		return fmt.Errorf("hidden size %d: want 1 to 4096", h.Hidden)
	case h.Layer == "transformer" && (h.TLayers < 1 || h.TLayers > 24):
		return fmt.Errorf("transformer layers %d: want 1 to 24", h.TLayers)
	case h.Layer == "transformer" && (h.Heads < 1 || h.Hidden%h.Heads != 0):
		return fmt.Errorf("transformer heads %d: want a divisor of the width %d", h.Heads, h.Hidden)
	case h.Pool != PoolAttention && h.Pool != PoolMean && h.Pool != PoolEncoder:
		return fmt.Errorf("pool %q: want attention, mean or encoder", h.Pool)
	case h.Pool == PoolEncoder && h.Layer != LayerNone:
		return fmt.Errorf("pool encoder reads the encoder's own states: it needs layer none, not %s", h.Layer)
	case h.Pool == PoolAttention && (h.Hops < 1 || h.Hops > 64):
		return fmt.Errorf("hops %d: want 1 to 64", h.Hops)
	case h.Pool == PoolAttention && (h.AttnHidden < 1 || h.AttnHidden > 4096):
		return fmt.Errorf("attention hidden size %d: want 1 to 4096", h.AttnHidden)
	case !(h.Penalty >= 0 && h.Penalty <= 1e3):
		return fmt.Errorf("penalty %v: want 0 to 1000", h.Penalty)
	case !(h.WordDropout >= 0 && h.WordDropout < 1):
		return fmt.Errorf("word dropout %v: want [0, 1)", h.WordDropout)
	case !(h.Scale >= 0 && h.Scale <= 1e4):
		return fmt.Errorf("scale %v: want 0 to 10000 (0: 1)", h.Scale)
	case !(h.CrossScale >= 0 && h.CrossScale <= 1e4):
		return fmt.Errorf("cross scale %v: want 0 to 10000 (0: 1)", h.CrossScale)
	case !(h.CrossLRScale >= 0 && h.CrossLRScale <= 1e4):
		return fmt.Errorf("cross learning-rate scale %v: want 0 to 10000 (0: 1)", h.CrossLRScale)
	case !(h.GAMTemp >= 0 && h.GAMTemp <= 1e4):
		return fmt.Errorf("GAM temperature %v: want 0 to 10000 (0: 1)", h.GAMTemp)
	case !(h.GAMDualTemp >= 0 && h.GAMDualTemp <= 1e4):
		return fmt.Errorf("GAM dual temperature %v: want 0 to 10000 (0: 1)", h.GAMDualTemp)
	case !(h.Ramp >= 0 && h.Ramp <= 1e3):
		return fmt.Errorf("ramp %v: want 0 to 1000 epochs", h.Ramp)
	case !(h.GAMStart >= 0 && h.GAMStart <= 1e3):
		return fmt.Errorf("GAM start %v: want 0 to 1000 epochs", h.GAMStart)
	case !h.ENDX && (h.CrossResidual || h.CrossDetach):
		return fmt.Errorf("cross residual or detach: only ENDX has a cross side (add --endx)")
	}
	for _, a := range alphas {
		if !(a >= 0 && a <= 1e6) {
			return fmt.Errorf("loss weight %v: want 0 to 1e6", a)
		}
	}
	if h.ENDX {
		if d := h.width(); h.CrossHeads < 1 || d%h.CrossHeads != 0 {
			return fmt.Errorf("cross-attention heads %d: want a divisor of the tower's width %d", h.CrossHeads, d)
		}
	}
	return nil
}

// width is the size of a tower's token states.
func (h Hyper) width() int {
	if strings.HasPrefix(h.Layer, "bi") {
		return 2 * h.Hidden
	}
	return h.Hidden
}

// Dim is the size of a question or answer vector.
func (h Hyper) Dim() int {
	if h.Pool == PoolAttention {
		return h.Hops * h.width()
	}
	return h.width()
}

// seqLayer is a tower's sequence layer over token states: an RNN, or a
// transformer (input projection, sinusoid positions, encoder layers).
type seqLayer[T nn.Float] struct {
	rnn nn.SeqLayer[T]
	in  *nn.Linear[T]
	tr  *nn.TransformerEncoder[T]
	pe  *nn.Tensor[T]
}

func newSeqLayer[T nn.Float](h Hyper, ps *nn.Params[T], name string, in int, r *rand.Rand) (*seqLayer[T], error) {
	if h.Layer == LayerNone {
		return &seqLayer[T]{}, nil
	}
	if h.Layer != "transformer" {
		l, err := nn.NewRecurrent(h.Layer, ps, name+"."+h.Layer, in, h.Hidden, r)
		if err != nil {
			return nil, err
		}
		return &seqLayer[T]{rnn: l}, nil
	}
	cfg := nn.EncoderLayerConfig{D: h.Hidden, Heads: h.Heads, FFN: 4 * h.Hidden, Act: nn.ActGELU, Eps: 1e-6}
	return &seqLayer[T]{
		in: nn.NewLinear(ps, name+".in", in, h.Hidden, true, r),
		tr: nn.NewTransformerEncoder(ps, name+".transformer", h.TLayers, cfg, r),
		pe: nn.Sinusoid[T](MaxLen, h.Hidden, nn.SinusoidInterleaved),
	}, nil
}

// forward maps the token states x [L, in] to [L, width].
func (s *seqLayer[T]) forward(tp *nn.Tape[T], x *nn.Var[T]) *nn.Var[T] {
	switch {
	case s.rnn != nil:
		return s.rnn.Forward(tp, x)
	case s.tr == nil:
		return x // LayerNone
	}
	l := x.Value.Rows()
	y := tp.AddPositions(s.in.Forward(tp, x), tp.Const(s.pe), l)
	return s.tr.Forward(tp, y, nn.AttentionMask{})
}

// pooler is the aggregator: multi-hop self-attention, the mean, or the
// encoder's sentence head.
type pooler[T nn.Float] struct {
	hops   int
	s1, s2 *nn.Linear[T] // W_s1 [d, d_a], W_s2 [d_a, r]; nil for the mean
	head   encoder.SentenceHead[T]
}

func newPooler[T nn.Float](h Hyper, ps *nn.Params[T], name string, enc encoder.Encoder[T], r *rand.Rand) *pooler[T] {
	switch h.Pool {
	case PoolMean:
		return &pooler[T]{}
	case PoolEncoder:
		head, _ := enc.(encoder.SentenceHead[T]) // newNet checked
		return &pooler[T]{head: head}
	}
	return &pooler[T]{hops: h.Hops,
		s1: nn.NewLinear(ps, name+".ws1", h.width(), h.AttnHidden, false, r),
		s2: nn.NewLinear(ps, name+".ws2", h.AttnHidden, h.Hops, false, r)}
}

// forward aggregates the states x [L, d] into a vector [Dim] and, with
// penalty set, Lin et al.'s penalty ‖AAᵀ − I‖²_F [1] (nil otherwise).
func (p *pooler[T]) forward(tp *nn.Tape[T], x *nn.Var[T], penalty bool) (vec, pen *nn.Var[T]) {
	switch {
	case p.head != nil:
		return p.head.Sentence(tp, x), nil
	case p.s1 == nil:
		return tp.MeanPool(x), nil
	}
	_, d := x.Value.Dims()
	a := tp.Softmax(tp.Transpose(p.s2.Forward(tp, tp.Tanh(p.s1.Forward(tp, x))))) // A [r, L]
	m := tp.MatMul(a, x)                                                          // [r, d]
	vec = tp.Reshape(m, p.hops*d)
	if penalty {
		eye := nn.NewTensor[T](p.hops, p.hops)
		for i := range p.hops {
			eye.Data[i*p.hops+i] = 1
		}
		diff := tp.Sub(tp.MatMulT(a, a), tp.Const(eye))
		pen = tp.Sum(tp.Mul(diff, diff))
	}
	return vec, pen
}

// tower is a dual encoder's side: sequence layer and aggregator.
type tower[T nn.Float] struct {
	seq  *seqLayer[T]
	pool *pooler[T]
}

// sentence is a prepared sentence: unless the encoder is fine-tuned, a
// network encoder's token states are computed once (encoder.Freeze; a
// fine-tuned encoder's weights are the model's, so Freeze leaves its
// states to each pass).
type sentence[T nn.Float] = encoder.Frozen[T]

// net is the network at float type T: float32 to rank and train, float64
// for the gradient checks of the real code.
type net[T nn.Float] struct {
	hyper Hyper
	enc   encoder.Encoder[T]
	ps    *nn.Params[T]
	rows  nn.TapePool[T]
	q, a  *tower[T] // a == q when shared
	x     *cross[T] // the ENDX cross side; nil without ENDX
	// batchTapes are inferBatched's inference tapes, one per worker.
	batchTapes nn.TapeCache[float32]
}

func newNet[T nn.Float](h Hyper, enc encoder.Encoder[T], seed uint64) (*net[T], error) {
	if enc == nil {
		return nil, fmt.Errorf("%s needs an encoder (word embeddings)", Name)
	}
	if h.Encoder == "" {
		h.Encoder = enc.Spec().Kind
	}
	if kind := enc.Spec().Kind; h.Encoder != kind {
		return nil, fmt.Errorf("hyperparameters name encoder %q, the model has a %s encoder", h.Encoder, kind)
	}
	if h.Layer == LayerNone {
		h.Hidden = enc.Dim()
	}
	if err := h.validate(); err != nil {
		return nil, err
	}
	if _, ok := enc.(encoder.SentenceHead[T]); h.Pool == PoolEncoder && !ok {
		return nil, fmt.Errorf("pool encoder: the %s encoder has no sentence head (use-lite has one)", enc.Spec().Kind)
	}
	n := &net[T]{hyper: h, enc: enc, ps: nn.NewParams[T]()}
	rng := nn.NewRNG(seed)
	var err error
	newTower := func(name string) (*tower[T], error) {
		s, err := newSeqLayer[T](h, n.ps, name, enc.Dim(), rng)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &tower[T]{seq: s, pool: newPooler(h, n.ps, name+".pool", enc, rng)}, nil
	}
	if h.Shared {
		if n.q, err = newTower("dual"); err != nil {
			return nil, err
		}
		n.a = n.q
	} else {
		if n.q, err = newTower("dual.question"); err != nil {
			return nil, err
		}
		if n.a, err = newTower("dual.answer"); err != nil {
			return nil, err
		}
	}
	if h.ENDX {
		if n.x, err = newCross(h, n.ps, enc, rng); err != nil {
			return nil, err
		}
	}
	if h.FineTune {
		if err := encoder.FineTune(n.ps, enc); err != nil {
			return nil, err
		}
	}
	if n.ps.Count() == 0 {
		return nil, fmt.Errorf("layer none with pool %s has no weights to train: fine-tune the encoder or add a layer", h.Pool)
	}
	return n, nil
}

// sentence prepares s.
func (n *net[T]) sentence(s string) sentence[T] {
	toks := encoder.NonEmpty(n.enc.Tokenize(s))
	if n.hyper.Layer == "transformer" && toks.Len() > MaxLen {
		toks = encoder.Tokens{Text: toks.Text[:MaxLen], IDs: toks.IDs[:MaxLen]}
	}
	return encoder.Freeze(n.enc, &n.rows, toks)
}

// tokens are s's token states [L, Dim], with word dropout in training.
func (n *net[T]) tokens(tp *nn.Tape[T], s sentence[T]) *nn.Var[T] {
	x := s.Encode(tp, n.enc)
	return tp.Dropout(x, n.hyper.WordDropout)
}

// embed is a tower's vector [Dim] of a sentence's token states x (from
// tokens) and, in training with a penalty, Lin's penalty [1].
func (n *net[T]) embed(tp *nn.Tape[T], t *tower[T], x *nn.Var[T], penalty bool) (vec, pen *nn.Var[T]) {
	return t.pool.forward(tp, t.seq.forward(tp, x), penalty && n.hyper.Penalty > 0)
}

// input is a question prepared for ranking its candidates.
type input[T nn.Float] = model.Prepared[sentence[T]]

func (n *net[T]) prepare(q *dataset.Question) *input[T] { return model.Prepare(q, n.sentence) }

// forward scores the candidates by the inner product of their vectors with
// the question's (section 3.2); infer spreads them over the cores.
func (n *net[T]) forward(tp *nn.Tape[T], in *input[T], infer bool) *nn.Var[T] {
	if infer {
		if ftp, ok := any(tp).(*nn.Tape[float32]); ok {
			if s, ok := n.inferBatched(ftp, any(in).(*input[float32])); ok {
				return any(s).(*nn.Var[T])
			}
		}
	}
	qv, _ := n.embed(tp, n.q, n.tokens(tp, in.Text), false)
	cands := n.rows.StackRows(tp, len(in.Candidates), infer, func(tp *nn.Tape[T], i int) *nn.Var[T] {
		v, _ := n.embed(tp, n.a, n.tokens(tp, in.Candidates[i]), false)
		return v
	})
	return tp.Reshape(tp.MatMulT(cands, tp.Reshape(qv, 1, qv.Value.Len())), len(in.Candidates))
}

// pair is a prepared (question, answer) pair for in-batch training.
type pair[T nn.Float] struct {
	q, a sentence[T]
}

// batchLoss is the in-batch loss of the pairs: Eq. 1 alone, or with ENDX
// Eq. 13; lossOf is the in-batch objective over a [B, B] score matrix and
// epoch the epochs done so far (fractional), for the α ramp.
func (n *net[T]) batchLoss(tp *nn.Tape[T], batch []*pair[T], lossOf func(*nn.Var[T]) *nn.Var[T], epoch float64) *nn.Var[T] {
	h := n.hyper
	b := len(batch)
	// Each sentence is encoded once, for the dual side and the cross
	// side alike: a fine-tuned encoder is most of a step's work.
	qx, ax := make([]*nn.Var[T], b), make([]*nn.Var[T], b)
	qs, as := make([]*nn.Var[T], b), make([]*nn.Var[T], b)
	var pens []*nn.Var[T]
	for i, p := range batch {
		var pq, pa *nn.Var[T]
		qx[i], ax[i] = n.tokens(tp, p.q), n.tokens(tp, p.a)
		qs[i], pq = n.embed(tp, n.q, qx[i], true)
		as[i], pa = n.embed(tp, n.a, ax[i], true)
		pens = appendNonNil(pens, pq, pa)
	}
	qd, ad := tp.Stack(qs...), tp.Stack(as...)
	var qc, ac *nn.Var[T]
	if n.x != nil {
		cqx, cax := qx, ax
		if h.CrossDetach {
			cqx, cax = make([]*nn.Var[T], b), make([]*nn.Var[T], b)
			for i := range b {
				cqx[i], cax[i] = tp.Const(qx[i].Value), tp.Const(ax[i].Value)
			}
		}
		var xp []*nn.Var[T]
		qc, ac, xp = n.x.embed(tp, n.hyper.Penalty > 0, cqx, cax)
		pens = append(pens, xp...)
		if h.CrossResidual {
			qc, ac = tp.Add(tp.Const(qd.Value), qc), tp.Add(tp.Const(ad.Value), ac)
		}
		// Every cross inner product, in Eq. 5 and in GAM, scaled by CrossScale.
		qc, ac = scaledProducts(tp, h.CrossScale, qc, ac)
	}
	// Every dual inner product, in Eq. 1 and in GAM, scaled by Scale.
	qd, ad = scaledProducts(tp, h.Scale, qd, ad)
	loss := lossOf(tp.MatMulT(qd, ad)) // L_dual, Eq. 1
	if n.x != nil {
		lc := lossOf(tp.MatMulT(qc, ac)) // L_cross, Eq. 5
		ga := gam(tp, qd, ad, qc, ac, h.gamWeights(epoch), h.StopGrad)
		loss = tp.Add(tp.Add(tp.Scale(loss, h.AlphaDual), tp.Scale(lc, h.AlphaCross)), tp.Scale(ga, h.AlphaGA))
	}
	if len(pens) > 0 {
		loss = tp.Add(loss, tp.Scale(tp.Sum(tp.Concat(pens...)), h.Penalty/float64(len(pens))))
	}
	return loss
}

// scaledProducts multiplies q and a by √s, so that every inner product
// between their rows is s times as large (0 or 1: unchanged).
func scaledProducts[T nn.Float](tp *nn.Tape[T], s float64, q, a *nn.Var[T]) (*nn.Var[T], *nn.Var[T]) {
	if s <= 0 || s == 1 {
		return q, a
	}
	return tp.Scale(q, math.Sqrt(s)), tp.Scale(a, math.Sqrt(s))
}

func appendNonNil[T nn.Float](vs []*nn.Var[T], more ...*nn.Var[T]) []*nn.Var[T] {
	for _, v := range more {
		if v != nil {
			vs = append(vs, v)
		}
	}
	return vs
}

// Model is a dual encoder (with, for ENDX training, its cross side). It is
// safe for concurrent Score and encoding calls; the training methods are
// for training, which owns the model meanwhile.
type Model struct {
	*net[float32]
	*model.Network[*input[float32]]
	model.TrainingRecord
}

// New creates an untrained model over enc, initialised from seed.
func New(h Hyper, enc encoder.Encoder[float32], seed uint64) (*Model, error) {
	n, err := newNet(h, enc, seed)
	if err != nil {
		return nil, err
	}
	m := &Model{net: n}
	m.Network = model.NewNetwork(n.prepare, n.forward)
	m.SetIndependent(true)
	return m, nil
}

// Hyper returns the model's hyperparameters.
func (n *net[T]) Hyper() Hyper { return n.hyper }

// Dim is the size of the question and answer vectors.
func (n *net[T]) Dim() int { return n.hyper.Dim() }

// Params implements model.Trainable.
func (n *net[T]) Params() *nn.Params[T] { return n.ps }

// ParamsChanged implements model.Trainable (the model keeps no caches).
func (m *Model) ParamsChanged() {}

// crossPrefix starts the names of the cross side's own parameters.
const crossPrefix = "cross."

// LRScale implements model.LRScaler: Hyper.CrossLRScale for the cross
// side's own layers, 1 for the rest.
func (m *Model) LRScale(name string) float64 {
	if s := m.hyper.CrossLRScale; s > 0 && strings.HasPrefix(name, crossPrefix) {
		return s
	}
	return 1
}

// Config implements model.Model.
func (m *Model) Config() model.Config {
	return model.NeuralConfig(Name, m.hyper, m.enc, m.ps, m.TrainingRecord)
}

// Tensors implements model.Model: the parameters, then the encoder's.
func (m *Model) Tensors() []safetensors.Tensor { return model.NeuralTensors(m.ps, m.enc) }

// PreparePair implements model.InBatchTrainable.
func (m *Model) PreparePair(p model.Pair) model.PairInput {
	return &pair[float32]{q: m.sentence(p.Question), a: m.sentence(p.Answer)}
}

// InBatchLoss implements model.InBatchTrainable: obj over the in-batch
// scores of the dual encoder, and with ENDX the cross-encoder's and GAM's
// losses (Eq. 13).
func (m *Model) InBatchLoss(tp *nn.Tape[float32], batch []model.PairInput, obj model.InBatchObjective, epoch float64) (*nn.Var[float32], error) {
	if len(batch) == 0 {
		return nil, fmt.Errorf("an empty batch")
	}
	if _, ok := obj.(model.BoundObjective); ok && m.x != nil && !model.SharesAnswers(obj) {
		// obj scores the cross side's matrix too: a teacher would teach
		// both sides, and score each batch twice. (The shared-answer
		// softmax is no teacher: its targets are right for both sides.)
		return nil, fmt.Errorf("ENDX and the in-batch objective %s: give one teacher, the cross side or the distilled one", obj.Name())
	}
	ps := make([]*pair[float32], len(batch))
	for i, in := range batch {
		p, ok := in.(*pair[float32])
		if !ok {
			return nil, fmt.Errorf("pair input %T was prepared by another model", in)
		}
		ps[i] = p
	}
	return m.batchLoss(tp, ps, func(s *nn.Var[float32]) *nn.Var[float32] { return obj.Loss(tp, s) }, epoch), nil
}

// Encode returns the vectors of texts, as questions or as answers, spread
// over the cores; progress, if set, is called as chunks finish with the
// number done.
func (m *Model) Encode(ctx context.Context, texts []string, question bool, progress func(done int)) ([][]float32, error) {
	t := m.a
	if question {
		t = m.q
	}
	const chunk = 256
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += chunk {
		part := texts[lo:min(lo+chunk, len(texts))]
		ss := make([]sentence[float32], len(part))
		nn.Parallel(len(part), func(a, b int) {
			for i := a; i < b; i++ {
				ss[i] = m.sentence(part[i])
			}
		})
		rows, err := m.rows.RowsContext(ctx, len(part), func(tp *nn.Tape[float32], i int) *nn.Var[float32] {
			v, _ := m.embed(tp, t, m.tokens(tp, ss[i]), false)
			return v
		})
		if err != nil {
			return nil, err
		}
		d := m.Dim()
		for i := range part {
			out = append(out, rows.Data[i*d:(i+1)*d:(i+1)*d])
		}
		if progress != nil {
			progress(len(out))
		}
	}
	return out, nil
}

// Encoder is the model as an index.Encoder: answers encoded offline by the
// answer tower, a question by the question tower, searched by inner
// product (a Flat or Binary index of Dim).
type Encoder struct {
	M        *Model
	Progress func(done int) // answers encoded so far
}

// EncodeAnswers implements index.Encoder.
func (e Encoder) EncodeAnswers(ctx context.Context, texts []string) ([][]float32, error) {
	return e.M.Encode(ctx, texts, false, e.Progress)
}

// EncodeQuestion implements index.Encoder.
func (e Encoder) EncodeQuestion(ctx context.Context, text string) ([]float32, error) {
	vs, err := e.M.Encode(ctx, []string{text}, true, nil)
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// Linears returns the linear layers int8 inference runs as int8 (see
// package model/quant): the encoder's, which hold the weights of a model
// over a transformer (the built-in dual encoder is one). The towers' own
// layers stay float32.
func (m *Model) Linears() []*nn.Linear[float32] {
	if e, ok := m.enc.(interface{ Linears() []*nn.Linear[float32] }); ok {
		return e.Linears()
	}
	return nil
}
