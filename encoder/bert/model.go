package bert

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// Model is a BERT encoder with, when the checkpoint has them, the pooler
// and a sequence classifier. Its parameters are nn parameters named as
// the nn layers name them (encoder.layer.N.attn.qkv.weight, ...).
type Model struct {
	Config Config
	// Pooling says how Pool reduces states to one vector per sequence:
	// from 1_Pooling/config.json when present, otherwise [CLS].
	Pooling []PoolMode
	// Normalize scales pooled vectors to unit length (a sentence-transformers
	// Normalize module in modules.json).
	Normalize bool

	params      *nn.Params[float32]
	word, pos   *nn.Param[float32]
	types       *nn.Param[float32]
	embNorm     *nn.LayerNormLayer[float32]
	embProj     *nn.Linear[float32] // nil unless Config.EmbeddingSize is set
	layers      []*nn.TransformerEncoderLayer[float32]
	pooler      *nn.Linear[float32] // nil when the checkpoint has none
	classifier  *nn.Linear[float32] // nil unless BertForSequenceClassification
	maxBatchTok int
}

// Params returns the model's parameters (for fine-tuning or saving).
func (m *Model) Params() *nn.Params[float32] { return m.params }

// HasPooler reports whether the checkpoint holds the pooler weights.
func (m *Model) HasPooler() bool { return m.pooler != nil }

// NumLabels is the classifier's output count (0 without a classifier).
func (m *Model) NumLabels() int {
	if m.classifier == nil {
		return 0
	}
	return m.classifier.W.Value.Shape[1]
}

// Load reads a Hugging Face BERT directory: config.json, model.safetensors
// and, for sentence-transformers models, 1_Pooling/config.json and
// modules.json.
func Load(dir string) (*Model, error) {
	cfgData, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("bert: %w", err)
	}
	cfg, err := ParseConfig(cfgData)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	f, err := os.Open(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("bert: %s has no model.safetensors (only the safetensors format is read; sharded checkpoints are not supported)", dir)
		}
		return nil, fmt.Errorf("bert: %w", err)
	}
	defer f.Close()
	tensors, _, err := safetensors.Read(f)
	if err != nil {
		return nil, fmt.Errorf("bert: %s: %w", f.Name(), err)
	}
	m, err := build(cfg, tensors)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	if err := m.ReadPooling(dir); err != nil {
		return nil, err
	}
	return m, nil
}

// ReadPooling sets m's pooling and normalisation from a sentence-transformers
// checkpoint folder: 1_Pooling/config.json and modules.json' Normalize
// module. A folder without them keeps m's. The BERT family's loaders (this
// package's, RoBERTa's) share it.
func (m *Model) ReadPooling(dir string) error {
	if data, err := os.ReadFile(filepath.Join(dir, "1_Pooling", "config.json")); err == nil {
		if m.Pooling, err = parsePooling(data); err != nil {
			return fmt.Errorf("%w (in %s)", err, dir)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("bert: %w", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "modules.json")); err == nil {
		m.Normalize = strings.Contains(string(data), "sentence_transformers.models.Normalize")
	}
	return nil
}

// source is a checkpoint's tensors by name, under an optional prefix
// ("bert." in task models).
type source struct {
	byName map[string]safetensors.Tensor
	prefix string
}

// get returns a tensor by its name below the prefix, checking its shape.
func (s source) get(name string, shape ...int) ([]float32, error) {
	t, ok := s.byName[s.prefix+name]
	if !ok {
		return nil, fmt.Errorf("bert: model.safetensors: missing tensor %q", s.prefix+name)
	}
	if !slices.Equal(t.Shape, shape) {
		return nil, fmt.Errorf("bert: model.safetensors: tensor %q has shape %v, want %v (from config.json)", s.prefix+name, t.Shape, shape)
	}
	return t.Data, nil
}

// getAny is get for the first name present (LayerNorm.weight or the older
// LayerNorm.gamma).
func (s source) getAny(names []string, shape ...int) ([]float32, error) {
	for _, n := range names[1:] {
		if _, ok := s.byName[s.prefix+n]; ok {
			return s.get(n, shape...)
		}
	}
	return s.get(names[0], shape...)
}

// load is one parameter's source: every needed tensor is checked before
// any parameter is allocated, so sizes are bounded by the file's.
type load struct {
	data      []float32
	transpose bool // PyTorch Linear weight [out, in] into nn's [in, out]
}

// build checks and maps the checkpoint's tensors onto a new Model.
func build(cfg *Config, list []safetensors.Tensor) (*Model, error) {
	src := source{byName: map[string]safetensors.Tensor{}}
	for _, t := range list {
		src.byName[t.Name] = t
	}
	if _, ok := src.byName["bert.embeddings.word_embeddings.weight"]; ok {
		src.prefix = "bert."
	}
	h, inter := cfg.HiddenSize, cfg.IntermediateSize
	if cfg.EmbeddingSize != 0 {
		return nil, fmt.Errorf("bert: config.json: embedding_size %d differs from hidden_size %d, and a BERT checkpoint has no projection between them (ELECTRA's has: model_type \"electra\")", cfg.EmbeddingSize, h)
	}
	var errs []error
	get := func(name string, shape ...int) []float32 {
		d, err := src.get(name, shape...)
		if err != nil {
			errs = append(errs, err)
		}
		return d
	}
	norm := func(name string) (gain, bias []float32) {
		g, err := src.getAny([]string{name + ".weight", name + ".gamma"}, h)
		if err != nil {
			errs = append(errs, err)
		}
		b, err := src.getAny([]string{name + ".bias", name + ".beta"}, h)
		if err != nil {
			errs = append(errs, err)
		}
		return g, b
	}
	// Linear weights stay [out, in] here; they are transposed when set.
	linear := func(name string, out, in int) (w, b []float32) {
		return get(name+".weight", out, in), get(name+".bias", out)
	}

	m := &Model{Config: *cfg, Pooling: []PoolMode{PoolCLS}, params: nn.NewParams[float32](), maxBatchTok: 8192}
	ps := m.params
	word := get("embeddings.word_embeddings.weight", cfg.VocabSize, h)
	pos := get("embeddings.position_embeddings.weight", cfg.MaxPositionEmbeddings, h)
	var types []float32
	if cfg.TypeVocabSize > 0 {
		types = get("embeddings.token_type_embeddings.weight", cfg.TypeVocabSize, h)
	}
	eg, eb := norm("embeddings.LayerNorm")
	type layerSrc struct {
		q, k, v, o, i, out [2][]float32
		g1, b1, g2, b2     []float32
	}
	ls := make([]layerSrc, cfg.NumHiddenLayers)
	for i := range ls {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		l := &ls[i]
		l.q[0], l.q[1] = linear(p+"attention.self.query", h, h)
		l.k[0], l.k[1] = linear(p+"attention.self.key", h, h)
		l.v[0], l.v[1] = linear(p+"attention.self.value", h, h)
		l.o[0], l.o[1] = linear(p+"attention.output.dense", h, h)
		l.g1, l.b1 = norm(p + "attention.output.LayerNorm")
		l.i[0], l.i[1] = linear(p+"intermediate.dense", inter, h)
		l.out[0], l.out[1] = linear(p+"output.dense", h, inter)
		l.g2, l.b2 = norm(p + "output.LayerNorm")
		if len(errs) > 0 {
			break
		}
	}
	var poolW, poolB, clsW, clsB []float32
	if _, ok := src.byName[src.prefix+"pooler.dense.weight"]; ok || cfg.Architecture == ArchSequenceClassifier {
		poolW, poolB = linear("pooler.dense", h, h)
	}
	if cfg.Architecture == ArchSequenceClassifier {
		ct, ok := src.byName["classifier.weight"]
		switch {
		case !ok:
			errs = append(errs, errors.New(`bert: model.safetensors: missing tensor "classifier.weight"`))
		case len(ct.Shape) != 2 || ct.Shape[1] != h || ct.Shape[0] < 1 || ct.Shape[0] > maxLabels:
			errs = append(errs, fmt.Errorf(`bert: model.safetensors: tensor "classifier.weight" has shape %v, want [num_labels %d]`, ct.Shape, h))
		case cfg.NumLabels != 0 && ct.Shape[0] != cfg.NumLabels:
			errs = append(errs, fmt.Errorf(`bert: model.safetensors: tensor "classifier.weight" has %d rows but config.json has %d labels`, ct.Shape[0], cfg.NumLabels))
		default:
			s := source{byName: src.byName}
			clsW, _ = s.get("classifier.weight", ct.Shape...)
			var err error
			if clsB, err = s.get("classifier.bias", ct.Shape[0]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}

	// Every tensor is present with its shape: allocate and copy.
	m.word = ps.New("embeddings.word_embeddings.weight", cfg.VocabSize, h)
	m.pos = ps.New("embeddings.position_embeddings.weight", cfg.MaxPositionEmbeddings, h)
	copy(m.word.Value.Data, word)
	copy(m.pos.Value.Data, pos)
	if cfg.TypeVocabSize > 0 {
		m.types = ps.New("embeddings.token_type_embeddings.weight", cfg.TypeVocabSize, h)
		copy(m.types.Value.Data, types)
	}
	m.embNorm = nn.NewLayerNorm(ps, "embeddings.norm", h)
	m.embNorm.Eps = cfg.LayerNormEps
	copy(m.embNorm.Gain.Value.Data, eg)
	copy(m.embNorm.Bias.Value.Data, eb)
	lcfg := nn.EncoderLayerConfig{
		D: h, Heads: cfg.NumAttentionHeads, FFN: inter, Act: cfg.HiddenAct, Eps: cfg.LayerNormEps,
		Dropout: cfg.HiddenDropout, AttnDropout: cfg.AttentionDropout,
	}
	rng := nn.NewRNG(0) // initial values are all overwritten
	for i, l := range ls {
		layer := nn.NewTransformerEncoderLayer(ps, fmt.Sprintf("encoder.layer.%d", i), lcfg, rng)
		qkv := layer.Attn.QKV
		for j, part := range [][2][]float32{l.q, l.k, l.v} {
			setLinear(qkv.W.Value, part[0], j*h)
			copy(qkv.B.Value.Data[j*h:], part[1])
		}
		setLinear(layer.Attn.Out.W.Value, l.o[0], 0)
		copy(layer.Attn.Out.B.Value.Data, l.o[1])
		setLinear(layer.FFN.In.W.Value, l.i[0], 0)
		copy(layer.FFN.In.B.Value.Data, l.i[1])
		setLinear(layer.FFN.Out.W.Value, l.out[0], 0)
		copy(layer.FFN.Out.B.Value.Data, l.out[1])
		copy(layer.Norm1.Gain.Value.Data, l.g1)
		copy(layer.Norm1.Bias.Value.Data, l.b1)
		copy(layer.Norm2.Gain.Value.Data, l.g2)
		copy(layer.Norm2.Bias.Value.Data, l.b2)
		m.layers = append(m.layers, layer)
	}
	if poolW != nil {
		m.pooler = nn.NewLinear(ps, "pooler.dense", h, h, true, rng)
		setLinear(m.pooler.W.Value, poolW, 0)
		copy(m.pooler.B.Value.Data, poolB)
	}
	if clsW != nil {
		n := len(clsB)
		m.classifier = nn.NewLinear(ps, "classifier", h, n, true, rng)
		setLinear(m.classifier.W.Value, clsW, 0)
		copy(m.classifier.B.Value.Data, clsB)
		m.Config.NumLabels = n
	}
	return m, nil
}

// setLinear writes a PyTorch Linear weight w [out, in] (y = x·wᵀ) into
// columns [off, off+out) of the nn weight dst [in, ·] (y = x·dst).
func setLinear(dst *nn.Tensor[float32], w []float32, off int) {
	in, cols := dst.Shape[0], dst.Shape[1]
	out := len(w) / in
	for o := 0; o < out; o++ {
		for i, v := range w[o*in : (o+1)*in] {
			dst.Data[i*cols+off+o] = v
		}
	}
}

// Check reports whether a sequence is valid input: 1 to
// max_position_embeddings token ids below vocab_size and, if typeIDs is
// not nil, as many token types below type_vocab_size.
func (m *Model) Check(ids, typeIDs []int) error {
	c := &m.Config
	if len(ids) == 0 || len(ids) > c.MaxPositionEmbeddings {
		return fmt.Errorf("bert: %d tokens, want 1 to %d (max_position_embeddings)", len(ids), c.MaxPositionEmbeddings)
	}
	for i, id := range ids {
		if id < 0 || id >= c.VocabSize {
			return fmt.Errorf("bert: token %d has id %d outside the vocabulary of %d", i, id, c.VocabSize)
		}
	}
	if typeIDs == nil {
		return nil
	}
	if len(typeIDs) != len(ids) {
		return fmt.Errorf("bert: %d token types for %d tokens", len(typeIDs), len(ids))
	}
	for i, t := range typeIDs {
		if t < 0 || t >= c.TypeVocabSize {
			return fmt.Errorf("bert: token %d has type %d outside [0, %d)", i, t, c.TypeVocabSize)
		}
	}
	return nil
}

// Forward computes the final hidden states [T, H] of one sequence of
// token ids and token types (nil: all 0), differentiably on tp (dropout
// in training mode). The input must pass Check; Forward panics otherwise.
func (m *Model) Forward(tp *nn.Tape[float32], ids, typeIDs []int) *nn.Var[float32] {
	var types [][]int
	if typeIDs != nil {
		types = [][]int{typeIDs}
	}
	x, _ := m.ForwardBatch(tp, [][]int{ids}, types)
	return x
}

// ForwardBatch runs a batch of sequences padded to the longest, T: it
// returns the states [B·T, H], sequence b's in rows [b·T, b·T+len_b), and
// T. Padded keys get no attention, so the real rows equal Forward's.
// Inputs must pass Check.
func (m *Model) ForwardBatch(tp *nn.Tape[float32], ids, typeIDs [][]int) (*nn.Var[float32], int) {
	b := len(ids)
	t := 0
	for _, s := range ids {
		t = max(t, len(s))
	}
	flat := make([]int, b*t)
	ftypes := make([]int, b*t)
	mask := nn.AttentionMask{Batch: b, KeyLens: make([]int, b)}
	for i, s := range ids {
		row, trow := flat[i*t:(i+1)*t], ftypes[i*t:(i+1)*t]
		copy(row, s)
		for j := len(s); j < t; j++ {
			row[j], trow[j] = -1, -1 // negative ids embed as zeros
		}
		if typeIDs != nil && typeIDs[i] != nil {
			copy(trow, typeIDs[i])
		}
		mask.KeyLens[i] = len(s)
	}
	// Embeddings (Devlin et al. 2019, §3.2): word + position + token type
	// (when the model has token types), then layer norm and dropout, and
	// ELECTRA's projection to the layers' width when the embeddings are
	// narrower (Clark et al. 2020, §3.2).
	x := tp.Embedding(tp.Param(m.word), flat)
	if m.types != nil {
		x = tp.Add(x, tp.Embedding(tp.Param(m.types), ftypes))
	}
	x = tp.AddPositions(x, tp.Param(m.pos), t)
	x = tp.Dropout(m.embNorm.Forward(tp, x), m.Config.HiddenDropout)
	if m.embProj != nil {
		x = m.embProj.Forward(tp, x)
	}
	for _, l := range m.layers {
		x = l.Forward(tp, x, mask)
	}
	return x, t
}

// PoolerForward is BERT's pooler on states [T, H] (or a batch's rows):
// tanh(W·h_[CLS] + b) of the first row. It panics without a pooler (see
// HasPooler).
func (m *Model) PoolerForward(tp *nn.Tape[float32], states *nn.Var[float32]) *nn.Var[float32] {
	if m.pooler == nil {
		panic("bert: the checkpoint has no pooler")
	}
	return tp.Tanh(m.pooler.Forward(tp, tp.Row(states, 0)))
}

// Logits is the sequence classifier on one sequence's states [T, H]:
// classifier(dropout(pooler(states))), [NumLabels]. It panics without a
// classifier (NumLabels() == 0).
func (m *Model) Logits(tp *nn.Tape[float32], states *nn.Var[float32]) *nn.Var[float32] {
	if m.classifier == nil {
		panic("bert: the checkpoint has no classifier")
	}
	return m.classifier.Forward(tp, tp.Dropout(m.PoolerForward(tp, states), m.Config.HiddenDropout))
}

// States computes the final hidden states of a batch of sequences, one
// [len, H] tensor each, without recording gradients. typeIDs may be nil
// (all 0) or hold nil entries. Sequences are grouped by length into
// buckets padded to their longest (with key-padding masks), so short
// sequences do not pay for long ones, and buckets run in parallel.
func (m *Model) States(ids, typeIDs [][]int) ([]*nn.Tensor[float32], error) {
	if typeIDs != nil && len(typeIDs) != len(ids) {
		return nil, fmt.Errorf("bert: %d token type sequences for %d sequences", len(typeIDs), len(ids))
	}
	for i, s := range ids {
		var ty []int
		if typeIDs != nil {
			ty = typeIDs[i]
		}
		if err := m.Check(s, ty); err != nil {
			return nil, fmt.Errorf("sequence %d: %w", i, err)
		}
	}
	h := m.Config.HiddenSize
	out := make([]*nn.Tensor[float32], len(ids))
	buckets := m.buckets(ids)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	workers := min(runtime.GOMAXPROCS(0), len(buckets))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, fmt.Errorf("bert: %v", r))
					mu.Unlock()
				}
			}()
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			for {
				k := int(next.Add(1)) - 1
				if k >= len(buckets) {
					return
				}
				idx := buckets[k]
				bids := make([][]int, len(idx))
				var btypes [][]int
				if typeIDs != nil {
					btypes = make([][]int, len(idx))
				}
				for j, i := range idx {
					bids[j] = ids[i]
					if typeIDs != nil {
						btypes[j] = typeIDs[i]
					}
				}
				tp.Reset()
				x, t := m.ForwardBatch(tp, bids, btypes)
				for j, i := range idx {
					n := len(ids[i])
					out[i] = nn.FromSlice(slices.Clone(x.Value.Data[j*t*h:(j*t+n)*h]), n, h)
				}
			}
		}()
	}
	wg.Wait()
	return out, firstErr
}

func cmpErr(old, e error) error {
	if old != nil {
		return old
	}
	return e
}

// buckets groups sequence indices by length: sorted by length, a bucket
// takes the next sequence while its padded size stays within maxBatchTok
// tokens and the length is within 1.25× + 8 of the bucket's shortest.
func (m *Model) buckets(ids [][]int) [][]int {
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(ids[order[a]]) < len(ids[order[b]]) })
	var out [][]int
	for lo := 0; lo < len(order); {
		first := len(ids[order[lo]])
		hi := lo + 1
		for hi < len(order) {
			n := len(ids[order[hi]])
			if (hi-lo+1)*n > m.maxBatchTok || float64(n) > 1.25*float64(first)+8 {
				break
			}
			hi++
		}
		out = append(out, order[lo:hi])
		lo = hi
	}
	return out
}

// Pool returns one vector per sequence, reduced from its states as
// m.Pooling says (modes concatenated) and unit-normalised if m.Normalize.
func (m *Model) Pool(ids, typeIDs [][]int) ([][]float32, error) {
	for _, p := range m.Pooling {
		if p == PoolPooler && m.pooler == nil {
			return nil, errors.New("bert: pooling mode pooler, but the checkpoint has no pooler")
		}
		if p < PoolCLS || p > PoolPooler {
			return nil, fmt.Errorf("bert: unknown pooling mode %d", int(p))
		}
	}
	states, err := m.States(ids, typeIDs)
	if err != nil {
		return nil, err
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	out := make([][]float32, len(states))
	for i, st := range states {
		var v []float32
		for _, p := range m.Pooling {
			v = append(v, m.pool(tp, st, p)...)
		}
		if m.Normalize {
			var s float64
			for _, x := range v {
				s += float64(x) * float64(x)
			}
			if s > 0 {
				inv := float32(1 / math.Sqrt(s))
				for j := range v {
					v[j] *= inv
				}
			}
		}
		out[i] = v
	}
	return out, nil
}

// pool reduces one sequence's states [T, H] in one mode.
func (m *Model) pool(tp *nn.Tape[float32], st *nn.Tensor[float32], p PoolMode) []float32 {
	t, h := st.Shape[0], st.Shape[1]
	v := make([]float32, h)
	switch p {
	case PoolCLS:
		copy(v, st.Row(0))
	case PoolPooler:
		tp.Reset()
		copy(v, m.PoolerForward(tp, tp.Const(st)).Value.Data)
	case PoolMax:
		copy(v, st.Row(0))
		for i := 1; i < t; i++ {
			for j, x := range st.Row(i) {
				v[j] = max(v[j], x)
			}
		}
	case PoolMean, PoolMeanSqrtLen:
		for i := 0; i < t; i++ {
			for j, x := range st.Row(i) {
				v[j] += x
			}
		}
		d := float32(t)
		if p == PoolMeanSqrtLen {
			d = float32(math.Sqrt(float64(t)))
		}
		for j := range v {
			v[j] /= d
		}
	}
	return v
}

// Classify returns the sequence classifier's logits [NumLabels] for each
// sequence (a cross-encoder scores a question–answer pair given as one
// sequence [CLS] q [SEP] a [SEP] with token types 0 and 1).
func (m *Model) Classify(ids, typeIDs [][]int) ([][]float32, error) {
	if m.classifier == nil {
		return nil, fmt.Errorf("bert: Classify needs a %s checkpoint, this is a %s", ArchSequenceClassifier, m.Config.Architecture)
	}
	states, err := m.States(ids, typeIDs)
	if err != nil {
		return nil, err
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	out := make([][]float32, len(states))
	for i, st := range states {
		tp.Reset()
		out[i] = slices.Clone(m.Logits(tp, tp.Const(st)).Value.Data)
	}
	return out, nil
}

// Linears returns the model's linear layers that int8 inference runs as
// int8 (see package model/quant): the embeddings' projection when there is
// one, each layer's four (queries/keys/values,
// attention output, both feed-forward layers) and the pooler. The
// classifier, a few outputs wide, stays float32 with the embeddings and
// the layer norms.
func (m *Model) Linears() []*nn.Linear[float32] {
	var ls []*nn.Linear[float32]
	if m.embProj != nil {
		ls = append(ls, m.embProj)
	}
	for _, l := range m.layers {
		ls = append(ls, l.Linears()...)
	}
	if m.pooler != nil {
		ls = append(ls, m.pooler)
	}
	return ls
}
