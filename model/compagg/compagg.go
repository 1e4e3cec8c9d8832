package compagg

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text"
)

// The variants, which are also the architecture names in model files.
const (
	CA       = "ca"       // Wang & Jiang (2017): one direction, plain softmax attention
	CompClip = "compclip" // Bian et al. (2017): both directions, dynamic-clip attention
)

// Hyper are the hyperparameters, saved in the model file.
type Hyper struct {
	Variant       string  `json:"variant" flag:"-"`           // CA or CompClip
	Hidden        int     `json:"hidden"`                     // context representation size l
	Filters       int     `json:"filters"`                    // aggregation filters per width
	Widths        []int   `json:"widths"`                     // aggregation filter widths
	Compare       string  `json:"compare"`                    // mult or submult+nn
	Clip          string  `json:"clip" flag:"attention-clip"` // attention clipping: none, kmax or threshold
	ClipK         int     `json:"clip_k"`                     // words kept by kmax
	ClipThreshold float64 `json:"clip_threshold"`             // least weight kept by threshold
	Clusters      int     `json:"clusters"`                   // latent memory vectors n; 0: no latent clustering
	ClusterK      int     `json:"cluster_k"`                  // k of the k-max pooling over the memories
	ExactMatch    bool    `json:"exact_match"`                // add to every comparison vector whether its word occurs in the other sentence
	RNN           string  `json:"rnn" common:"true"`          // "", or a layer of nn.RecurrentKinds over the candidates
	RNNHidden     int     `json:"rnn_hidden"`                 // 0: the Cosinet paper's sizes
	Dropout       float64 `json:"dropout"`                    // on the aggregated vectors, in training
	WordDropout   float64 `json:"word_dropout"`               // on the word vectors, in training
	Encoder       string  `json:"encoder" recipe:"-"`         // the encoder's kind (static); the model file's encoder spec says the rest
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
		return Hyper{Variant: CA, Hidden: 150, Filters: 150, Widths: []int{1, 2, 3, 4, 5}, Compare: SubMultNN, Clip: ClipNone, ClusterK: 6}
	}
	return Hyper{Variant: CompClip, Hidden: 100, Filters: 100, Widths: []int{1, 2, 3, 4, 5}, Compare: Mult,
		Clip: ClipKMax, ClipK: 5, ClusterK: 6, Dropout: 0.5}
}

// RecipeHyper is as2's default for the variant, chosen on the WikiQA dev
// set (never on test; see notes/2026-11-22-compare-aggregate.md): the paper's, plus the
// exact-match feature (the GloVe vectors as2 uses have none for numbers or
// single letters, which then still match themselves), and dropout 0.3 on
// the word vectors in place of dropout at the scorer.
func RecipeHyper(variant string) Hyper {
	h := PaperHyper(variant)
	h.ExactMatch, h.WordDropout, h.Dropout = true, 0.3, 0
	return h
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
	*net[float32]
	*model.Network[*input[float32]] // Score, Prepare and Loss
	model.TrainingRecord
}

// net is the network at float type T: float32 to rank and train, float64
// for the gradient checks of the real code.
type net[T nn.Float] struct {
	hyper Hyper
	enc   encoder.Encoder[T]
	ps    *nn.Params[T]
	rows  nn.TapePool[T] // inference tapes for the candidates

	gate, update *nn.Linear[T] // context representation σ(Wⁱx) ⊙ tanh(Wᵘx)
	keyQ, keyA   *nn.Linear[T] // attention projections Wᵍ (of the question) and, for Comp-Clip, Wᴬ
	cmp          *nn.Linear[T] // SUBMULT+NN
	aggA, aggQ   []*nn.Conv1D[T]

	// Latent clustering, and the shifts that concatenating the cluster
	// vector to each side's comparison vectors adds to its pooled filters.
	clusters     *latentClusters[T]
	lcToA, lcToQ *nn.Linear[T]
	rnn          nn.SeqLayer[T]
	out          *nn.Linear[T]
}

// New creates an untrained model over enc, initialised from seed.
func New(h Hyper, enc encoder.Encoder[float32], seed uint64) (*Model, error) {
	n, err := newNet(h, enc, seed)
	if err != nil {
		return nil, err
	}
	m := &Model{net: n, Network: model.NewNetwork(n.prepare, n.forward)}
	// Without the RNN over the candidates each is scored alone, so a large question may be scored in chunks.
	m.SetIndependent(n.rnn == nil)
	return m, nil
}

func newNet[T nn.Float](h Hyper, enc encoder.Encoder[T], seed uint64) (*net[T], error) {
	if h.Clip == "" {
		h.Clip = ClipNone
	}
	if h.RNN == "none" {
		h.RNN = ""
	}
	if err := h.validate(); err != nil {
		return nil, err
	}
	if enc == nil {
		return nil, fmt.Errorf("%s needs an encoder (word embeddings)", h.Variant)
	}
	if h.Encoder == "" {
		h.Encoder = enc.Spec().Kind
	}
	if kind := enc.Spec().Kind; h.Encoder != kind {
		return nil, fmt.Errorf("hyperparameters name encoder %q, the model has a %s encoder", h.Encoder, kind)
	}
	m := &net[T]{hyper: h, enc: enc, ps: nn.NewParams[T]()}
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
		m.clusters = newLatentClusters(m.ps, "cluster", l, l, h.Clusters, h.ClusterK, rng)
		m.lcToA = nn.NewLinear(m.ps, "cluster.to_candidate", l, len(h.Widths)*h.Filters, false, rng)
		if h.Variant == CompClip {
			m.lcToQ = nn.NewLinear(m.ps, "cluster.to_question", l, len(h.Widths)*h.Filters, false, rng)
		}
	}
	if h.RNN != "" {
		var err error
		if m.rnn, err = nn.NewRecurrent(h.RNN, m.ps, "rnn", pair, h.RNNHidden, rng); err != nil {
			return nil, err
		}
		pair = m.rnn.OutDim()
	}
	m.out = nn.NewLinear(m.ps, "out", pair, 1, true, rng)
	return m, nil
}

func (m *net[T]) newCNN(name string, in int, rng *rand.Rand) []*nn.Conv1D[T] {
	var convs []*nn.Conv1D[T]
	for _, w := range m.hyper.Widths {
		convs = append(convs, nn.NewConv1D(m.ps, fmt.Sprintf("%s.w%d", name, w), in, m.hyper.Filters, w, rng))
	}
	return convs
}

// Hyper returns the model's hyperparameters.
func (m *net[T]) Hyper() Hyper { return m.hyper }

// Params implements model.Trainable.
func (m *net[T]) Params() *nn.Params[T] { return m.ps }

// ParamsChanged implements model.Trainable; the model keeps no caches.
func (m *net[T]) ParamsChanged() {}

// sentence is a tokenized sentence and its set of words (no punctuation),
// for the exact-match feature.
type sentence[T nn.Float] struct {
	encoder.Frozen[T]
	words map[string]bool
}

// input is a question prepared for the model: its sentences tokenised.
type input[T nn.Float] = model.Prepared[sentence[T]]

func (m *net[T]) prepare(q *dataset.Question) *input[T] { return model.Prepare(q, m.sentence) }

// sentence prepares s. The model never trains its encoder: a pre-trained
// language model replaces the word embedding layer as ELMo does in the
// Comp-Clip paper (section 3, "Pretrained Language Model"), its weights
// fixed. A network encoder's states (USE-Lite, BERT) are then the same in
// every epoch and for every question a sentence appears in, so they are
// computed here, once per prepared sentence, instead of in every forward
// pass (encoder.Freeze).
func (m *net[T]) sentence(s string) sentence[T] {
	toks := encoder.NonEmpty(m.enc.Tokenize(s))
	words := make(map[string]bool, toks.Len())
	for _, t := range toks.Text {
		// Subword encoders' pieces mark word starts ("▁" in SentencePiece)
		// or continuations ("##" in WordPiece): punctuation is still
		// punctuation. Pieces match pieces, so the feature works on them.
		if !text.IsPunctuation(text.PieceText(t)) {
			words[t] = true
		}
	}
	return sentence[T]{Frozen: encoder.Freeze(m.enc, &m.rows, toks), words: words}
}

// exactMatch is the column [T, 1] saying which of a's words occur in b.
func exactMatch[T nn.Float](a, b sentence[T]) *nn.Tensor[T] {
	f := nn.NewTensor[T](a.Tokens.Len(), 1)
	for i, t := range a.Tokens.Text {
		if b.words[t] { // words leaves punctuation out
			f.Data[i] = 1
		}
	}
	return f
}

// words encodes a sentence's tokens, with word dropout in training.
func (m *net[T]) words(tp *nn.Tape[T], s sentence[T]) *nn.Var[T] {
	x := s.Encode(tp, m.enc)
	if m.hyper.WordDropout > 0 {
		x = tp.Dropout(x, m.hyper.WordDropout)
	}
	return x
}

// context is equation 1: σ(Wⁱx + bⁱ) ⊙ tanh(Wᵘx + bᵘ), row by row.
func (m *net[T]) context(tp *nn.Tape[T], x *nn.Var[T]) *nn.Var[T] {
	return tp.Mul(tp.Sigmoid(m.gate.Forward(tp, x)), tp.Tanh(m.update.Forward(tp, x)))
}

// attend is equation 2 for one direction: every row of a attends over the
// rows of b through keys = W·b̄ + bias, with dynamic clipping.
func (m *net[T]) attend(tp *nn.Tape[T], a, b, keys *nn.Var[T]) *nn.Var[T] {
	k, thr := m.hyper.clipArgs()
	return clipAttention(tp, a, b, keys, k, thr)
}

// compare is equation 3 (or SUBMULT+NN), with the exact-match column.
func (m *net[T]) compare(tp *nn.Tape[T], a, h *nn.Var[T], em *nn.Tensor[T]) *nn.Var[T] {
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
func (m *net[T]) aggregate(tp *nn.Tape[T], convs []*nn.Conv1D[T], c *nn.Var[T]) *nn.Var[T] {
	parts := make([]*nn.Var[T], len(convs))
	for i, conv := range convs {
		parts[i] = tp.MaxPool(conv.Forward(tp, c))
	}
	return tp.Concat(parts...)
}

// cluster is equations 5-6 for a sentence's context representation x
// [T, l]: the cluster vector of its mean.
func (m *net[T]) cluster(tp *nn.Tape[T], x *nn.Var[T]) *nn.Var[T] {
	return m.clusters.Forward(tp, tp.MeanPool(x))
}

// forward computes the scores [n] of q's candidates on tp; infer spreads
// the candidates over the cores (see nn.TapePool.StackRows).
func (m *net[T]) forward(tp *nn.Tape[T], in *input[T], infer bool) *nn.Var[T] {
	h := m.hyper
	qs, cands := in.Text, in.Candidates
	qBar := m.context(tp, m.words(tp, qs))
	// The candidates' context representations in one pass: the projections
	// are one GEMM over all of the question's candidate words.
	encoded := make([]*nn.Var[T], len(cands))
	offsets := make([]int, len(cands)+1) // candidate i's rows of cBar
	for i, cs := range cands {
		encoded[i] = m.words(tp, cs)
		offsets[i+1] = offsets[i] + cs.Tokens.Len()
	}
	cBar := m.context(tp, tp.Stack(encoded...))
	keysQ := m.keyQ.Forward(tp, qBar)
	var clusterQ *nn.Var[T]
	if m.clusters != nil {
		clusterQ = m.cluster(tp, qBar)
	}
	// pair is candidate i's vector [Rᵠ] (CA) or [Rᵠ; Rᴬ] (Comp-Clip).
	pair := func(tp *nn.Tape[T], i int) *nn.Var[T] {
		cs := cands[i]
		a := tp.Rows(cBar, offsets[i], offsets[i+1])
		var emA, emQ *nn.Tensor[T]
		if h.ExactMatch {
			emA, emQ = exactMatch[T](cs, qs), exactMatch[T](qs, cs)
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
	x := m.rows.StackRows(tp, len(cands), infer, pair)
	if h.Dropout > 0 {
		x = tp.Dropout(x, h.Dropout)
	}
	if m.rnn != nil {
		x = m.rnn.Forward(tp, x)
	}
	return tp.Reshape(m.out.Forward(tp, x), len(cands))
}

// Config implements model.Model.
func (m *Model) Config() model.Config {
	return model.NeuralConfig(m.hyper.Variant, m.hyper, m.enc, m.ps, m.TrainingRecord)
}

// Tensors implements model.Model: the parameters, then the encoder's.
func (m *Model) Tensors() []safetensors.Tensor { return model.NeuralTensors(m.ps, m.enc) }
