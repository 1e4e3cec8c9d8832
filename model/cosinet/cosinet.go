package cosinet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/safetensors"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/text"
)

// Architecture is the name under which Cosinet models are registered.
const Architecture = "cosinet"

func init() { model.Register(Architecture, decode) }

// Hyper are Cosinet's hyperparameters, saved in the model file.
type Hyper struct {
	Filters      int     `json:"filters"`       // convolution filters per side (paper: 300)
	Kernel       int     `json:"kernel"`        // convolution width (paper: 5)
	Relatedness  bool    `json:"relatedness"`   // the max-cosine channel (paper: yes)
	ExactMatch   bool    `json:"exact_match"`   // the exact-match channel
	PairFeatures bool    `json:"pair_features"` // word overlap, IDF-weighted overlap and reciprocal rank at the scorer
	RNN          string  `json:"rnn"`           // "", rnn, birnn, lstm, bilstm, gru, bigru
	RNNHidden    int     `json:"rnn_hidden"`    // 0: the paper's sizes (input size; half per direction)
	Dropout      float64 `json:"dropout"`       // on the pair vectors, in training
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
	hyper Hyper
	vecs  *embed.Vectors // the static embeddings
	table *nn.Tensor[float32]
	unit  *embed.Vectors // unit-length copy, for cosines
	ps    *nn.Params[float32]

	convQ, convC side
	rnn          nn.SeqLayer[float32]
	out          *nn.Linear[float32]
	model.TrainingRecord
	*model.Network // Score and Loss

	// Inference caches of word projections, one per side, dropped when the
	// parameters change.
	cacheQ, cacheC atomic.Pointer[nn.ProjectionCache[float32]]
}

// cacheBytes bounds each side's projection cache.
const cacheBytes = 128 << 20

func (m *Model) cache(p *atomic.Pointer[nn.ProjectionCache[float32]], w *nn.Param[float32]) *nn.ProjectionCache[float32] {
	if c := p.Load(); c != nil {
		return c
	}
	c := nn.NewProjectionCache(m.table, w.Value, m.hyper.Kernel, cacheBytes/(4*w.Value.Len()/m.vecs.Dim))
	if p.CompareAndSwap(nil, c) {
		return c
	}
	return p.Load()
}

// side is one sentence encoder: the convolution split into its embedding
// part (nn.EmbedConv) and its word-feature part (nn.Conv1d), which sum to
// one convolution over the concatenated input.
type side struct {
	wE, wF, b *nn.Param[float32]
}

// New creates an untrained Cosinet over vecs, initialised from seed.
func New(h Hyper, vecs *embed.Vectors, seed uint64) (*Model, error) {
	if err := h.validate(); err != nil {
		return nil, err
	}
	if vecs == nil || vecs.Len() == 0 {
		return nil, fmt.Errorf("cosinet needs word embeddings")
	}
	m := &Model{hyper: h, vecs: vecs, ps: nn.NewParams[float32]()}
	m.Network = model.NewNetwork(m.forward)
	m.table = nn.FromSlice(vecs.Data, vecs.Len(), vecs.Dim)
	m.unit = vecs.Normalized()
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

func (m *Model) newSide(name string, rng *rand.Rand) side {
	h, d, nf := m.hyper, m.vecs.Dim, m.hyper.wordFeatures()
	s := side{
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
func (m *Model) Hyper() Hyper { return m.hyper }

// Params implements train.Model.
func (m *Model) Params() *nn.Params[float32] { return m.ps }

// ParamsChanged implements train.Model: it drops the inference caches.
func (m *Model) ParamsChanged() {
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

func (m *Model) sentence(s string) sentence {
	toks := text.Tokenize(s)
	if len(toks) == 0 {
		// An empty (or all-space) sentence still needs one step: a padding
		// token without a vector.
		toks = []string{""}
	}
	out := sentence{toks: toks, ids: make([]int, len(toks)), units: make([][]float32, len(toks)), word: make([]bool, len(toks))}
	for i, t := range toks {
		out.ids[i] = -1
		if id, ok := m.vecs.Index(t); ok {
			out.ids[i] = id
			out.units[i] = m.unit.Vector(id)
		}
		out.word[i] = !text.IsPunctuation(t)
	}
	return out
}

// features builds the per-word channels [T, nf] of a against b.
func (m *Model) features(a, b sentence, related []float32) *nn.Tensor[float32] {
	nf := m.hyper.wordFeatures()
	f := nn.NewTensor[float32](len(a.toks), nf)
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
			f.Data[i*nf+c] = related[i]
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
func (m *Model) encode(tp *nn.Tape[float32], s side, emb *nn.Var[float32], feats *nn.Tensor[float32]) *nn.Var[float32] {
	k := m.hyper.Kernel
	x := emb
	if s.wF != nil {
		x = tp.Add(x, tp.Conv1d(tp.Const(feats), tp.Param(s.wF), nil, k, k/2))
	}
	return tp.ReLU(tp.Add(tp.MaxPool(x), tp.Param(s.b)))
}

// forward computes the scores [n] of q's candidates on tp; infer uses the
// projection caches, which carry no gradient.
func (m *Model) forward(tp *nn.Tape[float32], q *dataset.Question, infer bool) *nn.Var[float32] {
	k := m.hyper.Kernel
	qs := m.sentence(q.Text)
	cands := make([]sentence, len(q.Candidates))
	cIDs := make([][]int, len(q.Candidates))
	nn.Parallel(len(cands), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cands[i] = m.sentence(q.Candidates[i].Text)
			cIDs[i] = cands[i].ids
		}
	})
	// Each side's words are projected once per question: the question's
	// convolution over its embeddings is the same for every candidate, and
	// the candidates, sentences of one document, share many words.
	var qProj, cProj *nn.WordProjection[float32]
	if infer {
		qProj = m.cache(&m.cacheQ, m.convQ.wE).Project(qs.ids)
		cProj = m.cache(&m.cacheC, m.convC.wE).Project(cIDs...)
	} else {
		qProj = tp.ProjectWords(m.table, tp.Param(m.convQ.wE), k, qs.ids)
		cProj = tp.ProjectWords(m.table, tp.Param(m.convC.wE), k, cIDs...)
	}
	qEmb := tp.ConvWords(qProj, qs.ids, k/2)
	var qTerms map[string]float64 // the question's content words and their IDF over the candidates
	if m.hyper.PairFeatures {
		qTerms = poolIDF(qs, cands)
	}
	// pair builds candidate i's pair vector [qv⊙cv; qv−cv; features].
	pair := func(tp *nn.Tape[float32], i int) *nn.Var[float32] {
		cs := cands[i]
		rq, rc := embed.RelatednessUnit(qs.units, cs.units)
		qv := m.encode(tp, m.convQ, qEmb, m.features(qs, cs, rq))
		cv := m.encode(tp, m.convC, tp.ConvWords(cProj, cs.ids, k/2), m.features(cs, qs, rc))
		parts := []*nn.Var[float32]{tp.Mul(qv, cv), tp.Sub(qv, cv)}
		if m.hyper.PairFeatures {
			pf := nn.NewTensor[float32](pairFeatures)
			pf.Data[0], pf.Data[1] = overlap(qTerms, cs)
			pf.Data[2] = 1 / float32(q.Candidates[i].Position+1)
			parts = append(parts, tp.Const(pf))
		}
		return tp.Concat(parts...)
	}
	// The candidates are independent up to the RNN: inference spreads them
	// over the cores.
	x := m.Tapes().StackRows(tp, len(cands), infer, pair)
	if m.hyper.Dropout > 0 {
		x = tp.Dropout(x, m.hyper.Dropout)
	}
	if m.rnn != nil {
		x = m.rnn.Forward(tp, x)
	}
	return tp.Reshape(m.out.Forward(tp, x), len(q.Candidates))
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
	return model.NeuralConfig(Architecture, m.hyper, m.vecs, m.ps, m.TrainingRecord)
}

// Tensors implements model.Model: the parameters, then the embeddings.
func (m *Model) Tensors() []safetensors.Tensor { return model.NeuralTensors(m.ps, m.vecs) }

func decode(cfg model.Config, tensors []safetensors.Tensor) (model.Model, error) {
	return model.DecodeNeural(cfg, tensors, func(h Hyper, vecs *embed.Vectors) (*Model, error) { return New(h, vecs, 0) })
}
