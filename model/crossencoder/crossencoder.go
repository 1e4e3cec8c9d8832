// Package crossencoder is the cross-encoder ranker (Nogueira & Cho 2019,
// "Passage Re-ranking with BERT"): a transformer reads the question and a
// candidate as one sequence, [question; candidate], and a linear layer
// scores the pooled states. Every layer attends across the pair, which is
// what makes it more accurate than comparing two separately encoded
// sentences, and slower: each candidate is a forward pass of its own.
//
// The transformer is an encoder.PairEncoder: USE-Lite (its two layers over
// the question's pieces, the separator "</s>", and the candidate's; no
// token types; mean pooling), or a BERT-family Hugging Face checkpoint
// ([CLS] q [SEP] a [SEP] with token types; the [CLS] state, or BERT's
// pooler when the checkpoint has one). An imported
// BertForSequenceClassification (e.g. an MS MARCO MiniLM reranker) keeps
// its pooler and classifier: its score is the logit of "relevant" (one
// label) or logit₁ − logit₀ (two labels), which orders candidates as its
// softmax does.
//
// With Hyper.ExactMatch, over a marking encoder (USE-Lite), every piece
// that the question and the candidate share gets a learned embedding added
// to its input (exactMatch), so that each layer knows what the lexical
// rankers know. With Hyper.Segments, every position of the candidate gets
// one (BERT's segment embedding, which USE-Lite lacks), so that each layer
// can tell a question's word from the same word in the candidate.
//
// The encoder's weights are the model's parameters (adopted under
// "encoder.", see nn.Params.Adopt): training fine-tunes them under any
// objective, and model files keep them. At inference a question's
// candidates are grouped by length into padded batches with key-padding
// masks, on inference tapes spread over the cores.
package crossencoder

import (
	"fmt"
	"sort"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text"
)

// Name is the architecture's name.
const Name = "crossencoder"

// Pooling modes.
const (
	PoolMean = "mean" // mean of the real positions' states
	PoolMax  = "max"  // each dimension's largest over the real positions
	// PoolAttention weighs the real positions by softmax(H·u), u learnt
	// and starting at zero, where it is the mean.
	PoolAttention = "attention"
	PoolCLS       = "cls"    // the first position's state ([CLS])
	PoolPooler    = "pooler" // a checkpoint's pooler: act(W·h_[CLS] + b), BERT's act being tanh
)

// Hyper are the cross-encoder's hyperparameters.
type Hyper struct {
	Encoder string  `json:"encoder" recipe:"-"` // the encoder kind, e.g. use-lite or bert
	Pool    string  `json:"pool"`               // mean, max, attention, cls or pooler; "" chooses by encoder
	Dropout float64 `json:"dropout"`            // on the pooled vector, in training
	// BatchTokens bounds a padded batch's positions (batch × longest).
	BatchTokens int `json:"batch_tokens"`
	// ExactMatch adds a learned embedding to the input of every piece that
	// occurs in both the question and the candidate (exactMatch).
	ExactMatch bool `json:"exact_match,omitempty"`
	// Segments adds a learned embedding to the input of every position of
	// the candidate (marks).
	Segments bool `json:"segments,omitempty"`
	// PoolerAct, PoolerNormEps and PoolerMean record the form of an
	// imported checkpoint's pooler (bert.Head's Act, a LayerNorm after it
	// when the epsilon is positive, and mean rather than first-position
	// pooling before it); zero is BERT's tanh over h_[CLS].
	PoolerAct     string  `json:"pooler_act,omitempty" recipe:"-"`
	PoolerNormEps float64 `json:"pooler_norm_eps,omitempty" recipe:"-"`
	PoolerMean    bool    `json:"pooler_mean,omitempty" recipe:"-"`
}

// Recipe is as2's default.
func Recipe() Hyper { return Hyper{Dropout: 0.1, BatchTokens: 512} }

// Model is a trained or trainable cross-encoder.
type Model struct {
	*net
	*model.Network[*input]
	model.TrainingRecord
}

type net struct {
	hyper  Hyper
	enc    encoder.PairEncoder
	ps     *nn.Params[float32]
	pooler *nn.Linear[float32] // PoolPooler only
	// poolerNorm follows the pooler's activation (Hyper.PoolerNormEps > 0).
	poolerNorm *nn.LayerNormLayer[float32]
	query      *nn.Param[float32] // PoolAttention only: u [1, d]
	score      *nn.Linear[float32]
	// match is the exact-match table [2, input width] of a marking
	// encoder (Hyper.ExactMatch only), segment the candidate's row [1,
	// input width] (Hyper.Segments only); marking is the encoder when
	// either is on.
	match, segment *nn.Param[float32]
	marking        encoder.MarkingEncoder
	tapes          nn.TapeCache[float32] // infer's
}

// New builds a cross-encoder over enc, whose weights it adopts (enc must
// not serve another model). The score layer starts from seed, or from the
// checkpoint's classifier when enc is a BERT sequence classifier.
func New(h Hyper, enc encoder.Encoder[float32], seed uint64) (*Model, error) {
	pe, ok := enc.(encoder.PairEncoder)
	if !ok || enc == nil {
		kind := "no"
		if enc != nil {
			kind = "a " + enc.Spec().Kind
		}
		return nil, fmt.Errorf("%s needs a transformer encoder (--encoder use-lite or hf:DIR), not %s encoder", Name, kind)
	}
	kind := enc.Spec().Kind
	if h.Encoder == "" {
		h.Encoder = kind
	}
	if h.Encoder != kind {
		return nil, fmt.Errorf("hyperparameters name encoder %q, the model has a %s encoder", h.Encoder, kind)
	}
	if h.BatchTokens <= 0 {
		h.BatchTokens = Recipe().BatchTokens
	}
	if !(h.Dropout >= 0 && h.Dropout < 1) {
		return nil, fmt.Errorf("dropout %v outside [0, 1)", h.Dropout)
	}
	// A BERT-family checkpoint (bert, roberta) brings its pooler and
	// classifier: the model starts from them.
	var head *bert.Head
	he, hf := enc.(interface{ Head() *bert.Head })
	if hf {
		head = he.Head()
	}
	if head != nil && head.PoolerW != nil {
		h.PoolerAct, h.PoolerMean, h.PoolerNormEps = head.Act, head.Mean, 0
		if head.NormW != nil {
			h.PoolerNormEps = head.NormEps
		}
	}
	switch h.PoolerAct {
	case "", bert.HeadTanh, bert.HeadReLU, bert.HeadGELU, bert.HeadGELUTanh:
	default:
		return nil, fmt.Errorf("pooler activation %q: want tanh, relu, gelu or gelu_tanh", h.PoolerAct)
	}
	if h.Pool == "" {
		switch {
		case head != nil && head.PoolerW != nil:
			h.Pool = PoolPooler
		case hf: // a Hugging Face family's classifiers read the first position
			h.Pool = PoolCLS
		default:
			h.Pool = PoolMean
		}
	}
	d := enc.Dim()
	n := &net{hyper: h, enc: pe, ps: nn.NewParams[float32]()}
	rng := nn.NewRNG(seed)
	switch h.Pool {
	case PoolMean, PoolMax, PoolCLS:
	case PoolAttention:
		// Zero: training starts from mean pooling, the pooling USE-Lite's
		// own sentence vectors use, and learns which positions to favour.
		n.query = n.ps.New("head.attention", 1, d)
	case PoolPooler:
		n.pooler = nn.NewLinear(n.ps, "head.pooler", d, d, true, rng)
		if h.PoolerNormEps > 0 {
			n.poolerNorm = nn.NewLayerNorm(n.ps, "head.pooler_norm", d)
			n.poolerNorm.Eps = h.PoolerNormEps
		}
		if head != nil && head.PoolerW != nil {
			if err := copyHead(n, head); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("pooling %q: want mean, max, attention, cls or pooler", h.Pool)
	}
	n.score = nn.NewLinear(n.ps, "head.score", d, 1, true, rng)
	if h.ExactMatch || h.Segments {
		me, ok := enc.(encoder.MarkingEncoder)
		if !ok {
			return nil, fmt.Errorf("exact-match marks and segments need an encoder that embeds marks (use-lite), not %s", kind)
		}
		if h.Segments && me.Pair(encoder.Tokens{IDs: []int{0}}, encoder.Tokens{IDs: []int{0}}).Types == nil {
			return nil, fmt.Errorf("segments need an encoder that says which sentence each position is from, which %s does not", kind)
		}
		// Zero rows: training starts from the pretrained encoder's
		// behaviour and learns what a shared piece, or a candidate's
		// position, is worth.
		n.marking = me
		if h.ExactMatch {
			n.match = n.ps.New("head.match", 2, me.InputDim())
		}
		if h.Segments {
			n.segment = n.ps.New("head.segment", 1, me.InputDim())
		}
	}
	if head != nil && head.ClassifierW != nil && h.Pool == PoolPooler {
		if err := n.fromClassifier(head); err != nil {
			return nil, err
		}
	}
	if err := n.ps.Adopt(encoder.TensorPrefix, enc.Params()); err != nil {
		return nil, err
	}
	return &Model{net: n, Network: model.NewNetwork(n.prepare, n.forward)}, nil
}

// copyHead starts the pooler (and its norm) from a checkpoint's head; a
// missing bias stays zero.
func copyHead(n *net, head *bert.Head) error {
	d := n.pooler.B.Value.Len()
	for _, t := range []struct {
		name     string
		dst, src *nn.Tensor[float32]
	}{
		{"pooler weight", n.pooler.W.Value, head.PoolerW},
		{"pooler bias", n.pooler.B.Value, head.PoolerB},
		{"pooler norm weight", gainOf(n.poolerNorm), head.NormW},
		{"pooler norm bias", biasOf(n.poolerNorm), head.NormB},
	} {
		if t.src == nil || t.dst == nil {
			continue
		}
		if t.src.Len() != t.dst.Len() {
			return fmt.Errorf("the checkpoint's %s has %d values, the encoder's width %d wants %d", t.name, t.src.Len(), d, t.dst.Len())
		}
		copy(t.dst.Data, t.src.Data)
	}
	return nil
}

func gainOf(l *nn.LayerNormLayer[float32]) *nn.Tensor[float32] {
	if l == nil {
		return nil
	}
	return l.Gain.Value
}

func biasOf(l *nn.LayerNormLayer[float32]) *nn.Tensor[float32] {
	if l == nil {
		return nil
	}
	return l.Bias.Value
}

// fromClassifier sets the score layer from a classifier [d, labels]: the
// logit of one label, or the difference of two labels' logits.
func (n *net) fromClassifier(head *bert.Head) error {
	w, b := head.ClassifierW, head.ClassifierB
	d, labels := w.Shape[0], w.Shape[1]
	if labels > 2 {
		return fmt.Errorf("a classifier of %d labels cannot score relevance (want 1 or 2)", labels)
	}
	for i := 0; i < d; i++ {
		v := w.Data[i*labels+labels-1]
		if labels == 2 {
			v -= w.Data[i*labels]
		}
		n.score.W.Value.Data[i] = v
	}
	n.score.B.Value.Data[0] = b.Data[labels-1]
	if labels == 2 {
		n.score.B.Value.Data[0] -= b.Data[0]
	}
	return nil
}

// Hyper returns the hyperparameters.
func (n *net) Hyper() Hyper { return n.hyper }

// Encoder returns the pair encoder.
func (n *net) Encoder() encoder.PairEncoder { return n.enc }

// Params implements model.Trainable: the encoder's weights and the head.
func (n *net) Params() *nn.Params[float32] { return n.ps }

// ParamsChanged implements model.Trainable; the model keeps no caches.
func (n *net) ParamsChanged() {}

// input is a question prepared for the model: one sequence per candidate.
type input struct {
	q    *dataset.Question
	seqs []encoder.Sequence
}

// Question implements model.Input.
func (in *input) Question() *dataset.Question { return in.q }

// prepare tokenises the question once and pairs it with each candidate.
func (n *net) prepare(q *dataset.Question) *input {
	qt := n.enc.Tokenize(q.Text)
	in := &input{q: q, seqs: make([]encoder.Sequence, len(q.Candidates))}
	nn.Parallel(len(in.seqs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ct := n.enc.Tokenize(q.Candidates[i].Text)
			in.seqs[i] = n.enc.Pair(qt, ct)
			if n.marking != nil {
				in.seqs[i].Marks = n.marks(in.seqs[i], qt, ct)
			}
		}
	})
	return in
}

// Exact-match marks, rows of the match table.
const (
	markContent = 0 // a shared piece that carries meaning
	markFunc    = 1 // a shared stopword or punctuation piece
)

// marks are the marks of pair s of q and c, rows of markTable's table:
// exactMatch's alone; the segment row (0) at the candidate's positions
// alone; or, with both, exactMatch's marks at the question's positions
// and 3 + mark at the candidate's: the segment row (2) for an unshared
// piece (mark -1), a match row plus the segment row for a shared one.
func (n *net) marks(s encoder.Sequence, q, c encoder.Tokens) []int {
	var match []int
	if n.match != nil {
		match = exactMatch(s, q, c)
	}
	if n.segment == nil {
		return match
	}
	marks := make([]int, s.Len())
	for i := range marks {
		m := -1
		if match != nil {
			m = match[i]
		}
		switch {
		case i >= len(s.Types) || s.Types[i] != 1:
			marks[i] = m
		case match == nil:
			marks[i] = 0
		default:
			marks[i] = 3 + m
		}
	}
	return marks
}

// markTable is the table the marks index, on tp (see marks): the match
// rows, the segment row, or both with each match row plus the segment row
// after them.
func (n *net) markTable(tp *nn.Tape[float32]) *nn.Var[float32] {
	switch {
	case n.segment == nil:
		return tp.Param(n.match)
	case n.match == nil:
		return tp.Param(n.segment)
	}
	m, seg := tp.Param(n.match), tp.Param(n.segment)
	return tp.Stack(m, seg, tp.AddBias(m, seg))
}

// exactMatch marks each position of s whose piece occurs in both the
// question q and the candidate c, on both sides of the pair: the
// exact-match feature of DrQA (Chen et al. 2017, section 3.1), on the
// encoder's pieces. A two-layer transformer fine-tuned on a few thousand
// questions matches words weakly (notes/2026-11-24-default-exact-match.md); the mark
// tells every layer which words the pair shares, as the lexical rankers
// know it. Stopwords and punctuation get a mark of their own, as they
// match almost everywhere. Other positions get -1, no mark.
func exactMatch(s encoder.Sequence, q, c encoder.Tokens) []int {
	inQ := make(map[int]bool, q.Len())
	for _, id := range q.IDs {
		inQ[id] = true
	}
	shared := map[int]int{}
	for i, id := range c.IDs {
		if id >= 0 && inQ[id] {
			shared[id] = pieceMark(c.Text[i])
		}
	}
	marks := make([]int, s.Len())
	for i, id := range s.IDs {
		m, ok := shared[id]
		if !ok {
			m = -1
		}
		marks[i] = m
	}
	return marks
}

// pieceMark is the mark of a shared piece: markFunc for a stopword or a
// piece without a letter or digit, markContent otherwise.
func pieceMark(piece string) int {
	w := strings.ToLower(text.PieceText(piece))
	if text.IsStopword(w) || text.IsPunctuation(w) {
		return markFunc
	}
	return markContent
}

// buckets groups sequence indices by length: sorted by length, a bucket
// takes the next sequence while its padded size stays within maxTok
// positions and the length within 1.25× + 8 of its shortest, so that short
// candidates do not pay for long ones.
func buckets(seqs []encoder.Sequence, maxTok int) [][]int {
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return seqs[order[a]].Len() < seqs[order[b]].Len() })
	var out [][]int
	for lo := 0; lo < len(order); {
		first := max(seqs[order[lo]].Len(), 1)
		hi := lo + 1
		for hi < len(order) {
			l := seqs[order[hi]].Len()
			if (hi-lo+1)*l > maxTok || float64(l) > 1.25*float64(first)+8 {
				break
			}
			hi++
		}
		out = append(out, order[lo:hi])
		lo = hi
	}
	return out
}

// inferTokens bounds an inference batch's positions below the model's
// BatchTokens. Small batches keep a layer's activations in cache:
// BenchmarkScore6x384 (100 candidates of 128 tokens, 2 cores) scores 15
// pairs/s in batches of 4096 positions, 27 in 1024, 29 in 512 and 30 in
// 256, where the matrix products are still wide enough for the kernels.
// The built-in model's int8 service (100-sentence requests, 8 clients, 2
// cores) ran 547 pairs/s at a peak RSS of 375 MB in batches of 256, 588
// and 249 MB in 128, 595 and 212 MB in 64: each worker's tapes hold a
// batch's activations, and the int8 products gain nothing from more rows
// (notes/2026-11-28-builtin-speed.md). 128 is USE-Lite's longest input,
// so a pair never runs alone for want of room.
const inferTokens = 128

// inferBuckets plans the batches of an inference request: buckets of at
// most inferTokens positions, largest first, so that the workers, which
// take the next batch as they finish one, end the request on a short one.
func inferBuckets(seqs []encoder.Sequence, maxTok int) [][]int {
	bs := buckets(seqs, min(maxTok, inferTokens))
	cost := func(b []int) int { return len(b) * max(seqs[b[len(b)-1]].Len(), 1) }
	sort.SliceStable(bs, func(i, j int) bool { return cost(bs[i]) > cost(bs[j]) })
	return bs
}

// scoreBatch scores the sequences idx of seqs on tp: [len(idx), 1].
func (n *net) scoreBatch(tp *nn.Tape[float32], seqs []encoder.Sequence, idx []int) *nn.Var[float32] {
	batch := make([]encoder.Sequence, len(idx))
	for j, i := range idx {
		batch[j] = seqs[i]
	}
	var x *nn.Var[float32]
	var t int
	if n.marking != nil {
		x, t = n.marking.EncodeBatchMarked(tp, batch, n.markTable(tp))
	} else {
		x, t = n.enc.EncodeBatch(tp, batch)
	}
	var query *nn.Var[float32] // PoolAttention's u, once per batch
	if n.query != nil {
		query = tp.Param(n.query)
	}
	pooled := make([]*nn.Var[float32], len(batch))
	for j, s := range batch {
		l := max(min(s.Len(), t), 1)
		switch n.hyper.Pool {
		case PoolMean:
			pooled[j] = tp.MeanPool(tp.Rows(x, j*t, j*t+l))
		case PoolMax:
			pooled[j] = tp.MaxPool(tp.Rows(x, j*t, j*t+l))
		case PoolAttention:
			h := tp.Rows(x, j*t, j*t+l)
			a := tp.Softmax(tp.MatMulT(query, h)) // [1, l]
			pooled[j] = tp.Reshape(tp.MatMul(a, h), x.Value.Shape[1])
		case PoolPooler:
			if n.hyper.PoolerMean {
				pooled[j] = tp.MeanPool(tp.Rows(x, j*t, j*t+l))
			} else {
				pooled[j] = tp.Row(x, j*t)
			}
		default:
			pooled[j] = tp.Row(x, j*t)
		}
	}
	v := tp.Stack(pooled...)
	if n.pooler != nil {
		v = n.poolerAct(tp, n.pooler.Forward(tp, v))
		if n.poolerNorm != nil {
			v = n.poolerNorm.Forward(tp, v)
		}
	}
	if n.hyper.Dropout > 0 {
		v = tp.Dropout(v, n.hyper.Dropout)
	}
	return n.score.Forward(tp, v)
}

// poolerAct is the pooler's activation (Hyper.PoolerAct).
func (n *net) poolerAct(tp *nn.Tape[float32], v *nn.Var[float32]) *nn.Var[float32] {
	switch n.hyper.PoolerAct {
	case bert.HeadReLU:
		return tp.ReLU(v)
	case bert.HeadGELU:
		return tp.GELU(v)
	case bert.HeadGELUTanh:
		return tp.GELUTanh(v)
	default:
		return tp.Tanh(v)
	}
}

// forward computes the candidates' scores [n]. In training the batches
// run on tp and their scores are put back in candidate order by a lookup
// (which carries the gradient); in inference they run on pooled tapes
// spread over the cores, and only the scores are kept.
func (n *net) forward(tp *nn.Tape[float32], in *input, infer bool) *nn.Var[float32] {
	seqs := in.seqs
	if infer {
		bs := inferBuckets(seqs, n.hyper.BatchTokens)
		return tp.Const(nn.FromSlice(n.infer(tp, seqs, bs), len(seqs)))
	}
	bs := buckets(seqs, n.hyper.BatchTokens)
	if positions(seqs) > recomputeTokens {
		return n.forwardRecomputed(tp, seqs, bs)
	}
	parts := make([]*nn.Var[float32], len(bs))
	pos := make([]int, len(seqs)) // candidate i's row in the concatenation
	row := 0
	for k, idx := range bs {
		parts[k] = n.scoreBatch(tp, seqs, idx)
		for _, i := range idx {
			pos[i] = row
			row++
		}
	}
	all := tp.Stack(parts...)
	return tp.Reshape(tp.Embedding(all, pos), len(seqs))
}

// recomputeTokens is the most positions a training question's candidates
// may span before forward drops each bucket's activations once its scores
// are known and runs the bucket again when the gradient comes back
// (gradient checkpointing, Chen et al. 2016). A listwise loss needs every
// candidate's score, so a question keeps all its buckets on the tape
// until its backward: TrecQA TRAIN has questions of up to 576 candidates
// (14,036 words of candidates), whose passes held several GB each. One epoch
// on TrecQA TRAIN, listwise on 2 workers, peaked at 12.9 GiB of memory
// in 73.5 s; recomputed past 4,096 positions, at 3.5 GiB in 80.2 s (notes/2026-11-23-transformers.md,
// "Training memory"). A question then holds one bucket at a time, for a
// second forward pass over its buckets. A variable, so that tests can
// force either path.
var recomputeTokens = 4096

// positions is the number of positions of seqs together.
func positions(seqs []encoder.Sequence) int {
	total := 0
	for _, s := range seqs {
		total += s.Len()
	}
	return total
}

// forwardRecomputed is forward in training for a question past
// recomputeTokens: the buckets run one at a time on a scratch tape that
// shares tp's gradients, each from a seed drawn from tp's random source;
// only the scores stay on tp. Its backward runs each bucket again from
// the same seed, so with the same dropout masks, and sends the scores'
// gradient through it.
func (n *net) forwardRecomputed(tp *nn.Tape[float32], seqs []encoder.Sequence, bs [][]int) *nn.Var[float32] {
	scratch := nn.NewTape(tp.Grads(), 0)
	scratch.SetTrain(tp.Training())
	out := tp.Output(true, len(seqs))
	seeds := make([]uint64, len(bs))
	run := func(k int) *nn.Var[float32] {
		scratch.Reset()
		scratch.Reseed(seeds[k])
		return n.scoreBatch(scratch, seqs, bs[k])
	}
	for k, idx := range bs {
		seeds[k] = tp.RNG().Uint64()
		s := run(k)
		for j, i := range idx {
			out.Value.Data[i] = s.Value.Data[j]
		}
	}
	scratch.Reset()
	tp.OnBackward(func() {
		for k, idx := range bs {
			s := run(k)
			g := make([]float32, len(idx))
			for j, i := range idx {
				g[j] = out.Grad.Data[i]
			}
			scratch.BackwardFrom(s, g)
		}
		scratch.Reset()
	})
	return out
}

// infer scores the buckets on up to GOMAXPROCS goroutines, each with its
// own inference tape; a panic is raised again in the caller. Between
// buckets each worker checks the request's context, which the caller's
// tape carries, so a request past its deadline stops within a bucket.
func (n *net) infer(caller *nn.Tape[float32], seqs []encoder.Sequence, bs [][]int) []float32 {
	out := make([]float32, len(seqs))
	n.tapes.Run(caller, len(bs), func(tp *nn.Tape[float32], k int) {
		s := n.scoreBatch(tp, seqs, bs[k])
		for j, i := range bs[k] {
			out[i] = s.Value.Data[j]
		}
	})
	return out
}

// Config implements model.Model.
func (m *Model) Config() model.Config {
	return model.NeuralConfig(Name, m.hyper, m.enc, m.ps, m.TrainingRecord)
}

// Tensors implements model.Model: the parameters (the encoder's among
// them), then whatever the encoder keeps besides.
func (m *Model) Tensors() []safetensors.Tensor { return model.NeuralTensors(m.ps, m.enc) }

// Linears returns the linear layers int8 inference runs as int8 (see
// package model/quant): the encoder's and the pooler's. The score layer,
// one output wide, stays float32.
func (m *Model) Linears() []*nn.Linear[float32] {
	var ls []*nn.Linear[float32]
	if e, ok := m.enc.(interface{ Linears() []*nn.Linear[float32] }); ok {
		ls = e.Linears()
	}
	if m.pooler != nil {
		ls = append(ls, m.pooler)
	}
	return ls
}
