package cosinet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text"
)

// Architecture is the name under which Cosinet models are registered.
const Architecture = "cosinet"

// Hyper are Cosinet's hyperparameters, saved in the model file.
type Hyper struct {
	Filters      int     `json:"filters"`           // convolution filters per side (paper: 300)
	Kernel       int     `json:"kernel"`            // convolution width (paper: 5)
	Relatedness  bool    `json:"relatedness"`       // the max-cosine channel (paper: yes)
	ExactMatch   bool    `json:"exact_match"`       // the exact-match channel
	PairFeatures bool    `json:"pair_features"`     // word overlap, IDF-weighted overlap and reciprocal rank at the scorer
	RNN          string  `json:"rnn" common:"true"` // "", rnn, birnn, lstm, bilstm, gru, bigru
	RNNHidden    int     `json:"rnn_hidden"`        // 0: the paper's sizes (input size; half per direction)
	Dropout      float64 `json:"dropout"`           // on the pair vectors, in training
}

// RNNKinds lists the accepted values of Hyper.RNN.
var RNNKinds = append([]string{""}, nn.RecurrentKinds...)

func (h Hyper) validate() error {
	if h.Filters < 1 || h.Filters > 4096 {
		return fmt.Errorf("filters %d: want 1 to 4096", h.Filters)
	}
	if h.Kernel < 1 || h.Kernel > 15 {
		return fmt.Errorf("kernel %d: want 1 to 15", h.Kernel)
	}
	if h.Dropout < 0 || h.Dropout >= 1 {
		return fmt.Errorf("dropout %v: want [0, 1)", h.Dropout)
	}
	if h.RNNHidden < 0 || h.RNNHidden > 4096 {
		return fmt.Errorf("rnn hidden size %d: want 0 to 4096", h.RNNHidden)
	}
	for _, k := range RNNKinds {
		if h.RNN == k {
			return nil
		}
	}
	return fmt.Errorf("rnn %q: want one of none, %s", h.RNN, strings.Join(RNNKinds[1:], ", "))
}

// wordFeatures is the number of per-word channels besides the embedding.
func (h Hyper) wordFeatures() int {
	n := 0
	if h.Relatedness {
		n++
	}
	if h.ExactMatch {
		n++
	}
	return n
}

const pairFeatures = 3

// Model is a Cosinet ranker. It is safe for concurrent Score calls; Loss
// and ParamsChanged are for training, which owns the model meanwhile.
type Model struct {
	*net[float32]
	*model.Network[*input] // Score, Prepare and Loss
	model.TrainingRecord
}

// net is the Cosinet network at float type T: float32 to rank and train,
// float64 for the gradient checks of the real code.
type net[T nn.Float] struct {
	hyper Hyper
	enc   *encoder.Static[T]
	unit  *embed.Vectors // unit-length copy of the vectors, for cosines
	ps    *nn.Params[T]
	rows  nn.TapePool[T] // inference tapes for the candidates

	convQ, convC side[T]
	rnn          nn.SeqLayer[T]
	out          *nn.Linear[T]

	// Inference caches of word projections, one per side, dropped when the
	// parameters change.
	cacheQ, cacheC atomic.Pointer[projectionCache[T]]
}

// cacheBytes bounds each side's projection cache.
const cacheBytes = 128 << 20

func (m *net[T]) cache(p *atomic.Pointer[projectionCache[T]], w *nn.Param[T]) *projectionCache[T] {
	if c := p.Load(); c != nil {
		return c
	}
	c := newProjectionCache(m.enc.Table(), w.Value, m.hyper.Kernel, cacheBytes/(4*w.Value.Len()/m.enc.Dim()))
	if p.CompareAndSwap(nil, c) {
		return c
	}
	return p.Load()
}

// side is one sentence encoder: the convolution split into its embedding
// part (embedConv) and its word-feature part (nn.Conv1d), which sum to
// one convolution over the concatenated input.
type side[T nn.Float] struct {
	wE, wF, b *nn.Param[T]
}

// New creates an untrained Cosinet over enc, which must be static word
// vectors (the paper's frozen embeddings), initialised from seed.
func New(h Hyper, enc encoder.Encoder[float32], seed uint64) (*Model, error) {
	n, err := newNet[float32](h, enc, seed)
	if err != nil {
		return nil, err
	}
	m := &Model{net: n, Network: model.NewNetwork(n.prepare, n.forward)}
	// No RNN over the candidates and no IDF over them: each is scored alone, so a large question may be scored in chunks.
	m.SetIndependent(n.rnn == nil && !h.PairFeatures)
	return m, nil
}

func newNet[T nn.Float](h Hyper, enc encoder.Encoder[T], seed uint64) (*net[T], error) {
	if h.RNN == "none" {
		h.RNN = ""
	}
	if err := h.validate(); err != nil {
		return nil, err
	}
	static, ok := enc.(*encoder.Static[T])
	if !ok || static == nil {
		return nil, fmt.Errorf("cosinet needs static word embeddings, not a %T encoder", enc)
	}
	m := &net[T]{hyper: h, enc: static, unit: static.Vectors().Normalized(), ps: nn.NewParams[T]()}
	rng := nn.NewRNG(seed)
	m.convQ = m.newSide("conv_q", rng)
	m.convC = m.newSide("conv_c", rng)
	in := 2 * h.Filters
	if h.PairFeatures {
		in += pairFeatures
	}
	if h.RNN != "" {
		rnn, err := nn.NewRecurrent(h.RNN, m.ps, "rnn", in, h.RNNHidden, rng)
		if err != nil {
			return nil, err
		}
		m.rnn = rnn
		in = m.rnn.OutDim()
	}
	m.out = nn.NewLinear(m.ps, "out", in, 1, true, rng)
	return m, nil
}

func (m *net[T]) newSide(name string, rng *rand.Rand) side[T] {
	h, d, nf := m.hyper, m.enc.Dim(), m.hyper.wordFeatures()
	s := side[T]{
		wE: m.ps.New(name+".embed_weight", h.Filters, h.Kernel*d),
		b:  m.ps.New(name+".bias", h.Filters),
	}
	// Glorot over the whole convolution, embedding and feature inputs alike.
	fanIn := h.Kernel * (d + nf)
	nn.GlorotUniform(s.wE.Value, fanIn, h.Kernel*h.Filters, rng)
	if nf > 0 {
		s.wF = m.ps.New(name+".feature_weight", h.Filters, h.Kernel*nf)
		nn.GlorotUniform(s.wF.Value, fanIn, h.Kernel*h.Filters, rng)
	}
	return s
}

// Hyper returns the model's hyperparameters.
func (m *net[T]) Hyper() Hyper { return m.hyper }

// Params implements model.Trainable.
func (m *net[T]) Params() *nn.Params[T] { return m.ps }

// ParamsChanged implements model.Trainable: it drops the inference caches.
func (m *net[T]) ParamsChanged() {
	m.cacheQ.Store(nil)
	m.cacheC.Store(nil)
}

// sentence is one tokenized sentence: vocabulary ids (-1 without a
// vector), unit vectors for cosines, and which tokens count for exact match.
type sentence struct {
	toks  []string
	ids   []int
	units [][]float32
	word  []bool // not punctuation
}

// input is a question prepared for the model: its sentences tokenised.
type input = model.Prepared[sentence]

func (m *net[T]) prepare(q *dataset.Question) *input { return model.Prepare(q, m.sentence) }

func (m *net[T]) sentence(s string) sentence {
	t := m.enc.Tokenize(s)
	if t.Len() == 0 {
		// An empty (or all-space) sentence still needs one step: a padding
		// token without a vector.
		t = encoder.Tokens{Text: []string{""}, IDs: []int{-1}}
	}
	out := sentence{toks: t.Text, ids: t.IDs, units: make([][]float32, t.Len()), word: make([]bool, t.Len())}
	for i, tok := range t.Text {
		if id := t.IDs[i]; id >= 0 {
			out.units[i] = m.unit.Vector(id)
		}
		out.word[i] = !text.IsPunctuation(tok)
	}
	return out
}

// features builds the per-word channels [T, nf] of a against b.
func (m *net[T]) features(a, b sentence, related []float32) *nn.Tensor[T] {
	nf := m.hyper.wordFeatures()
	f := nn.NewTensor[T](len(a.toks), nf)
	var inB map[string]bool
	if m.hyper.ExactMatch {
		inB = make(map[string]bool, len(b.toks))
		for i, t := range b.toks {
			if b.word[i] {
				inB[t] = true
			}
		}
	}
	for i := range a.toks {
		c := 0
		if m.hyper.Relatedness {
			f.Data[i*nf+c] = T(related[i])
			c++
		}
		if m.hyper.ExactMatch && a.word[i] && inB[a.toks[i]] {
			f.Data[i*nf+c] = 1
		}
	}
	return f
}

// encode runs one side's convolution and global max pooling, with ReLU
// after the pool (equal to before it, as ReLU is monotone, and F times
// cheaper).
func (m *net[T]) encode(tp *nn.Tape[T], s side[T], emb *nn.Var[T], feats *nn.Tensor[T]) *nn.Var[T] {
	k := m.hyper.Kernel
	x := emb
	if s.wF != nil {
		x = tp.Add(x, tp.Conv1d(tp.Const(feats), tp.Param(s.wF), nil, k, k/2))
	}
	return tp.ReLU(tp.Add(tp.MaxPool(x), tp.Param(s.b)))
}

// forward computes the scores [n] of the question's candidates on tp; infer
// uses the projection caches, which carry no gradient.
func (m *net[T]) forward(tp *nn.Tape[T], in *input, infer bool) *nn.Var[T] {
	k := m.hyper.Kernel
	q, qs, cands := in.Q, in.Text, in.Candidates
	cIDs := make([][]int, len(cands))
	for i, c := range cands {
		cIDs[i] = c.ids
	}
	// Each side's words are projected once per question: the question's
	// convolution over its embeddings is the same for every candidate, and
	// the candidates, sentences of one document, share many words.
	var qProj, cProj *wordProjection[T]
	if infer {
		qProj = m.cache(&m.cacheQ, m.convQ.wE).Project(qs.ids)
		cProj = m.cache(&m.cacheC, m.convC.wE).Project(cIDs...)
	} else {
		table := m.enc.Table()
		qProj = projectWords(tp, table, tp.Param(m.convQ.wE), k, qs.ids)
		cProj = projectWords(tp, table, tp.Param(m.convC.wE), k, cIDs...)
	}
	qEmb := convWords(tp, qProj, qs.ids, k/2)
	var qTerms map[string]float64 // the question's content words and their IDF over the candidates
	if m.hyper.PairFeatures {
		qTerms = poolIDF(qs, cands)
	}
	// pair builds candidate i's pair vector [qv⊙cv; qv−cv; features].
	pair := func(tp *nn.Tape[T], i int) *nn.Var[T] {
		cs := cands[i]
		rq, rc := embed.RelatednessUnit(qs.units, cs.units)
		qv := m.encode(tp, m.convQ, qEmb, m.features(qs, cs, rq))
		cv := m.encode(tp, m.convC, convWords(tp, cProj, cs.ids, k/2), m.features(cs, qs, rc))
		parts := []*nn.Var[T]{tp.Mul(qv, cv), tp.Sub(qv, cv)}
		if m.hyper.PairFeatures {
			pf := nn.NewTensor[T](pairFeatures)
			plain, weighted := overlap(qTerms, cs)
			pf.Data[0], pf.Data[1] = T(plain), T(weighted)
			pf.Data[2] = T(1 / float32(q.Candidates[i].Position+1))
			parts = append(parts, tp.Const(pf))
		}
		return tp.Concat(parts...)
	}
	// The candidates are independent up to the RNN: inference spreads them
	// over the cores.
	x := m.rows.StackRows(tp, len(cands), infer, pair)
	if m.hyper.Dropout > 0 {
		x = tp.Dropout(x, m.hyper.Dropout)
	}
	if m.rnn != nil {
		x = m.rnn.Forward(tp, x)
	}
	return tp.Reshape(m.out.Forward(tp, x), len(cands))
}

// poolIDF returns the question's content words (no punctuation, no
// stopwords) with their IDF over the question's candidates, BM25's
// ln(1 + (N − df + 0.5)/(df + 0.5)): a word every sentence of the document
// shares says little about which one answers.
func poolIDF(q sentence, cands []sentence) map[string]float64 {
	terms := map[string]float64{}
	for i, t := range q.toks {
		if q.word[i] && !text.IsStopword(t) {
			terms[t] = 0
		}
	}
	for _, c := range cands {
		seen := map[string]bool{}
		for _, t := range c.toks {
			if _, ok := terms[t]; ok && !seen[t] {
				seen[t] = true
				terms[t]++
			}
		}
	}
	n := float64(len(cands))
	for t, df := range terms {
		terms[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	return terms
}

// overlap returns the share of the question's content words found in c,
// plain and weighted by their IDF.
func overlap(terms map[string]float64, c sentence) (plain, weighted float32) {
	if len(terms) == 0 {
		return 0, 0
	}
	var n int
	var w, total float64
	seen := map[string]bool{}
	for _, t := range c.toks {
		if idf, ok := terms[t]; ok && !seen[t] {
			seen[t] = true
			n++
			w += idf
		}
	}
	for _, idf := range terms {
		total += idf
	}
	plain = float32(n) / float32(len(terms))
	if total > 0 {
		weighted = float32(w / total)
	}
	return plain, weighted
}

// Config implements model.Model.
func (m *Model) Config() model.Config {
	return model.NeuralConfig(Architecture, m.hyper, m.enc, m.ps, m.TrainingRecord)
}

// Tensors implements model.Model: the parameters, then the embeddings.
func (m *Model) Tensors() []safetensors.Tensor { return model.NeuralTensors(m.ps, m.enc) }
