package compagg

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/safetensors"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/text"
	"github.com/as2/as2/train"
)

// The variants, which are also the architecture names in model files.
const (
	CA       = "ca"       // Wang & Jiang (2017): one direction, plain softmax attention
	CompClip = "compclip" // Bian et al. (2017): both directions, dynamic-clip attention
)

func init() {
	model.Register(CA, decode)
	model.Register(CompClip, decode)
}

// Hyper are the hyperparameters, saved in the model file.
type Hyper struct {
	Variant       string  `json:"variant"`        // CA or CompClip
	Hidden        int     `json:"hidden"`         // context representation size l
	Filters       int     `json:"filters"`        // aggregation filters per width
	Widths        []int   `json:"widths"`         // aggregation filter widths
	Compare       string  `json:"compare"`        // mult or submult+nn
	Clip          string  `json:"clip"`           // attention clipping: none, kmax or threshold
	ClipK         int     `json:"clip_k"`         // words kept by kmax
	ClipThreshold float64 `json:"clip_threshold"` // least weight kept by threshold
	Clusters      int     `json:"clusters"`       // latent memory vectors n; 0: no latent clustering
	ClusterK      int     `json:"cluster_k"`      // k of the k-max pooling over the memories
	ExactMatch    bool    `json:"exact_match"`    // add to every comparison vector whether its word occurs in the other sentence
	RNN           string  `json:"rnn"`            // "", or a layer of nn.RecurrentKinds over the candidates
	RNNHidden     int     `json:"rnn_hidden"`     // 0: the Cosinet paper's sizes
	Dropout       float64 `json:"dropout"`        // on the aggregated vectors, in training
	WordDropout   float64 `json:"word_dropout"`   // on the word vectors, in training
	Encoder       string  `json:"encoder"`        // word vectors: static
}

// Comparison functions.
const (
	Mult       = "mult"       // ā ⊙ h (Comp-Clip paper, equation 3)
	SubMultNN  = "submult+nn" // ReLU(W[(ā−h)⊙(ā−h); ā⊙h] + b) (Wang & Jiang 2017)
	ClipNone   = "none"
	ClipKMax   = "kmax"
	ClipThresh = "threshold"
)

// PaperHyper is the variant as its paper describes it. CA: Wang & Jiang's
// settings, which the Cosinet paper keeps (hidden size 150, filters of
// widths 1 to 5, 150 each, SUBMULT+NN comparison, their best on WikiQA), over
// static embeddings. Comp-Clip: the Comp-Clip paper's (section 4.2): context
// projection 100, 100 filters of each width 1 to 5, element-wise comparison,
// dropout 0.5, and k-max attention clipping (k = 5: Bian et al. do not give
// theirs). Latent clustering is off; ClusterK is the paper's WikiQA value for
// when Clusters is set (8 in the paper).
func PaperHyper(variant string) Hyper {
	if variant == CA {
		return Hyper{Variant: CA, Hidden: 150, Filters: 150, Widths: []int{1, 2, 3, 4, 5}, Compare: SubMultNN, Clip: ClipNone, ClusterK: 6, Encoder: StaticEncoder}
	}
	return Hyper{Variant: CompClip, Hidden: 100, Filters: 100, Widths: []int{1, 2, 3, 4, 5}, Compare: Mult,
		Clip: ClipKMax, ClipK: 5, ClusterK: 6, Dropout: 0.5, Encoder: StaticEncoder}
}

// RecipeHyper is as2's default for the variant, chosen on the WikiQA dev
// set (never on test; see the README's ablations): the paper's, plus the
// exact-match feature (the GloVe vectors as2 uses have none for numbers or
// single letters, which then still match themselves), and dropout 0.3 on
// the word vectors in place of dropout at the scorer.
func RecipeHyper(variant string) Hyper {
	h := PaperHyper(variant)
	h.ExactMatch, h.WordDropout, h.Dropout = true, 0.3, 0
	return h
}

// RecipeTraining is as2's default training for these models, chosen on the
// WikiQA dev set: 5 epochs at a peak learning rate of 3e-3 (the papers do
// not give theirs), 8 questions per step, gradients clipped to norm 5 (the
// Comp-Clip paper's), keeping the epoch with the best dev MAP (the papers'
// early stopping).
func RecipeTraining() train.Options {
	return train.Options{Epochs: 5, LR: 3e-3, Batch: 8, ClipNorm: 5, KeepBest: true}
}

func (h Hyper) validate() error {
	switch {
	case h.Variant != CA && h.Variant != CompClip:
		return fmt.Errorf("variant %q: want %s or %s", h.Variant, CA, CompClip)
	case h.Hidden < 1 || h.Hidden > 4096:
		return fmt.Errorf("hidden size %d: want 1 to 4096", h.Hidden)
	case h.Filters < 1 || h.Filters > 4096:
		return fmt.Errorf("filters %d: want 1 to 4096", h.Filters)
	case len(h.Widths) == 0:
		return fmt.Errorf("no filter widths")
	case h.Compare != Mult && h.Compare != SubMultNN:
		return fmt.Errorf("comparison %q: want %s or %s", h.Compare, Mult, SubMultNN)
	case h.Dropout < 0 || h.Dropout >= 1:
		return fmt.Errorf("dropout %v: want [0, 1)", h.Dropout)
	case h.WordDropout < 0 || h.WordDropout >= 1:
		return fmt.Errorf("word dropout %v: want [0, 1)", h.WordDropout)
	case h.Clusters < 0 || h.Clusters > 1024:
		return fmt.Errorf("clusters %d: want 0 to 1024", h.Clusters)
	case h.Clusters > 0 && (h.ClusterK < 1 || h.ClusterK > h.Clusters):
		return fmt.Errorf("cluster k %d: want 1 to the number of clusters, %d", h.ClusterK, h.Clusters)
	case h.RNNHidden < 0 || h.RNNHidden > 4096:
		return fmt.Errorf("rnn hidden size %d: want 0 to 4096", h.RNNHidden)
	}
	for _, w := range h.Widths {
		if w < 1 || w > 15 {
			return fmt.Errorf("filter width %d: want 1 to 15", w)
		}
	}
	switch h.Clip {
	case "", ClipNone:
	case ClipKMax:
		if h.ClipK < 1 {
			return fmt.Errorf("clip k %d: k-max attention keeps at least one word", h.ClipK)
		}
	case ClipThresh:
		if h.ClipThreshold <= 0 || h.ClipThreshold >= 1 {
			return fmt.Errorf("clip threshold %v: want (0, 1)", h.ClipThreshold)
		}
	default:
		return fmt.Errorf("clip %q: want %s, %s or %s", h.Clip, ClipNone, ClipKMax, ClipThresh)
	}
	if h.RNN != "" && !slices.Contains(nn.RecurrentKinds, h.RNN) {
		return fmt.Errorf("rnn %q: want one of none, %s", h.RNN, strings.Join(nn.RecurrentKinds, ", "))
	}
	return nil
}

// clipArgs returns ClipSoftmax's k and threshold.
func (h Hyper) clipArgs() (int, float64) {
	switch h.Clip {
	case ClipKMax:
		return h.ClipK, 0
	case ClipThresh:
		return 0, h.ClipThreshold
	}
	return 0, 0
}

// Model is a compare-aggregate ranker. It is safe for concurrent Score
// calls; Loss and ParamsChanged are for training, which owns the model
// meanwhile.
type Model struct {
	hyper Hyper
	vecs  *embed.Vectors
	enc   Encoder
	ps    *nn.Params[float32]
	model.TrainingRecord

	gate, update *nn.Linear[float32] // context representation σ(Wⁱx) ⊙ tanh(Wᵘx)
	keyQ, keyA   *nn.Linear[float32] // attention projections Wᵍ (of the question) and, for Comp-Clip, Wᴬ
	cmp          *nn.Linear[float32] // SUBMULT+NN
	aggA, aggQ   []*nn.Conv1D[float32]

	// Latent clustering, and the shifts that concatenating the cluster
	// vector to each side's comparison vectors adds to its pooled filters.
	clusters       *nn.LatentClusters[float32]
	lcToA, lcToQ   *nn.Linear[float32]
	rnn            nn.SeqLayer[float32]
	out            *nn.Linear[float32]
	*model.Network // Score and Loss
}

// New creates an untrained model over vecs, initialised from seed.
func New(h Hyper, vecs *embed.Vectors, seed uint64) (*Model, error) {
	if h.Clip == "" {
		h.Clip = ClipNone
	}
	if h.Encoder == "" {
		h.Encoder = StaticEncoder
	}
	if err := h.validate(); err != nil {
		return nil, err
	}
	if vecs == nil || vecs.Len() == 0 {
		return nil, fmt.Errorf("%s needs word embeddings", h.Variant)
	}
	enc, err := newEncoder(h.Encoder, vecs)
	if err != nil {
		return nil, err
	}
	m := &Model{hyper: h, vecs: vecs, enc: enc, ps: nn.NewParams[float32]()}
	m.Network = model.NewNetwork(m.forward)
	rng := nn.NewRNG(seed)
	d, l := enc.Dim(), h.Hidden
	m.gate = nn.NewLinear(m.ps, "context.gate", d, l, true, rng)
	m.update = nn.NewLinear(m.ps, "context.update", d, l, true, rng)
	m.keyQ = nn.NewLinear(m.ps, "attention.question", l, l, true, rng)
	if h.Compare == SubMultNN {
		m.cmp = nn.NewLinear(m.ps, "compare", 2*l, l, true, rng)
	}
	in := l
	if h.ExactMatch {
		in++
	}
	m.aggA = m.newCNN("aggregate.candidate", in, rng)
	pair := len(h.Widths) * h.Filters
	if h.Variant == CompClip {
		m.keyA = nn.NewLinear(m.ps, "attention.candidate", l, l, true, rng)
		m.aggQ = m.newCNN("aggregate.question", in, rng)
		pair *= 2
	}
	if h.Clusters > 0 {
		m.clusters = nn.NewLatentClusters(m.ps, "cluster", l, l, h.Clusters, h.ClusterK, rng)
		m.lcToA = nn.NewLinear(m.ps, "cluster.to_candidate", l, len(h.Widths)*h.Filters, false, rng)
		if h.Variant == CompClip {
			m.lcToQ = nn.NewLinear(m.ps, "cluster.to_question", l, len(h.Widths)*h.Filters, false, rng)
		}
	}
	if h.RNN != "" {
		if m.rnn, err = nn.NewRecurrent(h.RNN, m.ps, "rnn", pair, h.RNNHidden, rng); err != nil {
			return nil, err
		}
		pair = m.rnn.OutDim()
	}
	m.out = nn.NewLinear(m.ps, "out", pair, 1, true, rng)
	return m, nil
}

func (m *Model) newCNN(name string, in int, rng *rand.Rand) []*nn.Conv1D[float32] {
	var convs []*nn.Conv1D[float32]
	for _, w := range m.hyper.Widths {
		convs = append(convs, nn.NewConv1D(m.ps, fmt.Sprintf("%s.w%d", name, w), in, m.hyper.Filters, w, rng))
	}
	return convs
}

// Hyper returns the model's hyperparameters.
func (m *Model) Hyper() Hyper { return m.hyper }

// Params implements train.Model.
func (m *Model) Params() *nn.Params[float32] { return m.ps }

// ParamsChanged implements train.Model; the model keeps no caches.
func (m *Model) ParamsChanged() {}

// sentence is a tokenized sentence and its set of words (no punctuation),
// for the exact-match feature.
type sentence struct {
	toks  []string
	words map[string]bool
}

func newSentence(s string) sentence {
	toks := text.Tokenize(s)
	if len(toks) == 0 {
		// An empty sentence still needs one step: a token without a vector.
		toks = []string{""}
	}
	words := make(map[string]bool, len(toks))
	for _, t := range toks {
		if !text.IsPunctuation(t) {
			words[t] = true
		}
	}
	return sentence{toks: toks, words: words}
}

// exactMatch is the column [T, 1] saying which of a's words occur in b.
func exactMatch(a, b sentence) *nn.Tensor[float32] {
	f := nn.NewTensor[float32](len(a.toks), 1)
	for i, t := range a.toks {
		if b.words[t] { // words leaves punctuation out
			f.Data[i] = 1
		}
	}
	return f
}

// words encodes a sentence's tokens, with word dropout in training.
func (m *Model) words(tp *nn.Tape[float32], toks []string) *nn.Var[float32] {
	x := m.enc.Encode(tp, toks)
	if m.hyper.WordDropout > 0 {
		x = tp.Dropout(x, m.hyper.WordDropout)
	}
	return x
}

// context is equation 1: σ(Wⁱx + bⁱ) ⊙ tanh(Wᵘx + bᵘ), row by row.
func (m *Model) context(tp *nn.Tape[float32], x *nn.Var[float32]) *nn.Var[float32] {
	return tp.Mul(tp.Sigmoid(m.gate.Forward(tp, x)), tp.Tanh(m.update.Forward(tp, x)))
}

// attend is equation 2 for one direction: every row of a attends over the
// rows of b through keys = W·b̄ + bias, with dynamic clipping.
func (m *Model) attend(tp *nn.Tape[float32], a, b, keys *nn.Var[float32]) *nn.Var[float32] {
	k, thr := m.hyper.clipArgs()
	return tp.ClipAttention(a, b, keys, k, thr)
}

// compare is equation 3 (or SUBMULT+NN), with the exact-match column.
func (m *Model) compare(tp *nn.Tape[float32], a, h *nn.Var[float32], em *nn.Tensor[float32]) *nn.Var[float32] {
	c := tp.Mul(a, h)
	if m.cmp != nil {
		d := tp.Sub(a, h)
		c = tp.ReLU(m.cmp.Forward(tp, tp.Concat(tp.Mul(d, d), c)))
	}
	if em != nil {
		c = tp.Concat(c, tp.Const(em))
	}
	return c
}

// aggregate is the CNN of equation 4 before its ReLU: every width's
// filters, max-pooled over time, concatenated.
func (m *Model) aggregate(tp *nn.Tape[float32], convs []*nn.Conv1D[float32], c *nn.Var[float32]) *nn.Var[float32] {
	parts := make([]*nn.Var[float32], len(convs))
	for i, conv := range convs {
		parts[i] = tp.MaxPool(conv.Forward(tp, c))
	}
	return tp.Concat(parts...)
}

// cluster is equations 5-6 for a sentence's context representation x
// [T, l]: the cluster vector of its mean.
func (m *Model) cluster(tp *nn.Tape[float32], x *nn.Var[float32]) *nn.Var[float32] {
	return m.clusters.Forward(tp, tp.MeanPool(x))
}

// forward computes the scores [n] of q's candidates on tp; infer spreads
// the candidates over the cores (see nn.TapePool.StackRows).
func (m *Model) forward(tp *nn.Tape[float32], q *dataset.Question, infer bool) *nn.Var[float32] {
	h := m.hyper
	qs := newSentence(q.Text)
	qBar := m.context(tp, m.words(tp, qs.toks))
	cands := make([]sentence, len(q.Candidates))
	nn.Parallel(len(cands), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cands[i] = newSentence(q.Candidates[i].Text)
		}
	})
	// The candidates' context representations in one pass: the projections
	// are one GEMM over all of the question's candidate words.
	encoded := make([]*nn.Var[float32], len(q.Candidates))
	offsets := make([]int, len(q.Candidates)+1) // candidate i's rows of cBar
	for i, cs := range cands {
		encoded[i] = m.words(tp, cs.toks)
		offsets[i+1] = offsets[i] + len(cs.toks)
	}
	cBar := m.context(tp, tp.Stack(encoded...))
	keysQ := m.keyQ.Forward(tp, qBar)
	var clusterQ *nn.Var[float32]
	if m.clusters != nil {
		clusterQ = m.cluster(tp, qBar)
	}
	// pair is candidate i's vector [Rᵠ] (CA) or [Rᵠ; Rᴬ] (Comp-Clip).
	pair := func(tp *nn.Tape[float32], i int) *nn.Var[float32] {
		cs := cands[i]
		a := tp.Rows(cBar, offsets[i], offsets[i+1])
		var emA, emQ *nn.Tensor[float32]
		if h.ExactMatch {
			emA, emQ = exactMatch(cs, qs), exactMatch(qs, cs)
		}
		// Each candidate word against its soft alignment in the question:
		// the paper's Cᵠ = Ā ⊙ Hᵠ, aggregated into Rᵠ.
		r := m.aggregate(tp, m.aggA, m.compare(tp, a, m.attend(tp, a, qBar, keysQ), emA))
		if clusterQ != nil {
			// Equation 6 concatenates the question's cluster vector to Cᵠ.
			r = tp.Add(r, m.lcToA.Forward(tp, clusterQ))
		}
		r = tp.ReLU(r)
		if h.Variant == CompClip {
			// And each question word against the candidate: Cᴬ = Q̄ ⊙ Hᴬ.
			rq := m.aggregate(tp, m.aggQ, m.compare(tp, qBar, m.attend(tp, qBar, a, m.keyA.Forward(tp, a)), emQ))
			if m.clusters != nil {
				rq = tp.Add(rq, m.lcToQ.Forward(tp, m.cluster(tp, a)))
			}
			r = tp.Concat(r, tp.ReLU(rq))
		}
		return r
	}
	x := m.Tapes().StackRows(tp, len(cands), infer, pair)
	if h.Dropout > 0 {
		x = tp.Dropout(x, h.Dropout)
	}
	if m.rnn != nil {
		x = m.rnn.Forward(tp, x)
	}
	return tp.Reshape(m.out.Forward(tp, x), len(q.Candidates))
}

// Config implements model.Model.
func (m *Model) Config() model.Config {
	return model.NeuralConfig(m.hyper.Variant, m.hyper, m.vecs, m.ps, m.TrainingRecord)
}

// Tensors implements model.Model: the parameters, then the embeddings.
func (m *Model) Tensors() []safetensors.Tensor { return model.NeuralTensors(m.ps, m.vecs) }

func decode(cfg model.Config, tensors []safetensors.Tensor) (model.Model, error) {
	return model.DecodeNeural(cfg, tensors, func(h Hyper, vecs *embed.Vectors) (*Model, error) {
		if h.Variant != cfg.Architecture {
			return nil, fmt.Errorf("hyperparameters are for %q, the file says %q: the file is corrupt", h.Variant, cfg.Architecture)
		}
		return New(h, vecs, 0)
	})
}
