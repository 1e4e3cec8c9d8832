package modernbert

import (
	"fmt"
	"math/rand/v2"

	"github.com/as2/as2/nn"
)

// Model is ModernBERT's encoder (Warner et al. 2024, §2.1): token
// embeddings and a LayerNorm, pre-norm layers of rotary self-attention
// (global or local) and a GeGLU feed-forward block, and a final LayerNorm.
// Its parameters are named as Hugging Face names the tensors, without the
// "model." prefix, in nn's [in, out] layout.
type Model struct {
	Config Config

	params  *nn.Params[float32]
	tok     *nn.Param[float32]
	embNorm *norm
	layers  []*layer
	final   *norm
}

// norm is a LayerNorm whose bias is optional (norm_bias false in the
// released checkpoints): without one it adds a constant zero, not a
// parameter, so fine-tuning keeps the architecture and float32 still runs
// the fused LayerNorm kernel.
type norm struct {
	gain, bias *nn.Param[float32]
	zero       *nn.Tensor[float32]
	eps        float64
}

func newNorm(ps *nn.Params[float32], name string, c *Config) *norm {
	n := &norm{gain: ps.New(name+".weight", c.HiddenSize), eps: c.NormEps}
	n.gain.Value.Fill(1)
	if c.NormBias {
		n.bias = ps.New(name+".bias", c.HiddenSize)
	} else {
		n.zero = nn.NewTensor[float32](c.HiddenSize)
	}
	return n
}

func (n *norm) forward(tp *nn.Tape[float32], x *nn.Var[float32]) *nn.Var[float32] {
	b := tp.Const(n.zero)
	if n.bias != nil {
		b = tp.Param(n.bias)
	}
	return tp.LayerNorm(x, tp.Param(n.gain), b, n.eps)
}

// layer is ModernBertEncoderLayer: attn_norm (none in layer 0, whose
// input is the embeddings' norm), Wqkv, Wo, mlp_norm, Wi and Wo.
type layer struct {
	attnNorm       *norm
	qkv, attnOut   *nn.Linear[float32]
	mlpNorm        *norm
	wi, mlpOut     *nn.Linear[float32]
	global         bool
	theta          float64
	radius         int // local layers: keys within ±radius
	heads, interSz int
}

// newModel allocates a model of c's sizes, randomly initialised (every
// value is overwritten when a checkpoint is read).
func newModel(c *Config, rng *rand.Rand) *Model {
	h := c.HiddenSize
	m := &Model{Config: *c, params: nn.NewParams[float32]()}
	ps := m.params
	m.tok = ps.New("embeddings.tok_embeddings.weight", c.VocabSize, h)
	nn.Normal(m.tok.Value, 0.02, rng)
	m.embNorm = newNorm(ps, "embeddings.norm", c)
	for i := 0; i < c.NumHiddenLayers; i++ {
		p := fmt.Sprintf("layers.%d.", i)
		l := &layer{global: c.Global[i], heads: c.NumAttentionHeads, interSz: c.IntermediateSize}
		if i > 0 {
			l.attnNorm = newNorm(ps, p+"attn_norm", c)
		}
		l.qkv = nn.NewLinear(ps, p+"attn.Wqkv", h, 3*h, c.AttentionBias, rng)
		l.attnOut = nn.NewLinear(ps, p+"attn.Wo", h, h, c.AttentionBias, rng)
		l.mlpNorm = newNorm(ps, p+"mlp_norm", c)
		l.wi = nn.NewLinear(ps, p+"mlp.Wi", h, 2*c.IntermediateSize, c.MLPBias, rng)
		l.mlpOut = nn.NewLinear(ps, p+"mlp.Wo", c.IntermediateSize, h, c.MLPBias, rng)
		l.theta, l.radius = c.GlobalRopeTheta, -1
		if !l.global {
			l.theta, l.radius = c.LocalRopeTheta, c.LocalAttention/2
		}
		m.layers = append(m.layers, l)
	}
	m.final = newNorm(ps, "final_norm", c)
	return m
}

// paramCount is the number of values newModel allocates for c, computed
// without allocating.
func paramCount(c *Config) int {
	h, in := c.HiddenSize, c.IntermediateSize
	nb := 0
	if c.NormBias {
		nb = h
	}
	ab, mb := 0, 0
	if c.AttentionBias {
		ab = 4 * h
	}
	if c.MLPBias {
		mb = 2*in + h
	}
	perLayer := 4*h*h + ab + 3*h*in + mb + 2*(h+nb)
	return c.VocabSize*h + 2*(h+nb) + c.NumHiddenLayers*perLayer - (h + nb) // layer 0 has no attn_norm
}

// Params returns the model's parameters.
func (m *Model) Params() *nn.Params[float32] { return m.params }

// Linears returns the layers' linear maps, those int8 inference runs as
// int8 (model/quant): Wqkv, attention's Wo, Wi and the MLP's Wo. The
// embeddings, norms and attention's own products stay float32.
func (m *Model) Linears() []*nn.Linear[float32] {
	var ls []*nn.Linear[float32]
	for _, l := range m.layers {
		ls = append(ls, l.qkv, l.attnOut, l.wi, l.mlpOut)
	}
	return ls
}

// ForwardBatch runs a batch of sequences padded to the longest, T, and
// returns the final states [B·T, H] (sequence b's in rows [b·T, b·T+len_b))
// and T. Padded keys get no attention, so the real rows are those of the
// sequence alone. Ids must be below vocab_size.
func (m *Model) ForwardBatch(tp *nn.Tape[float32], ids [][]int) (*nn.Var[float32], int) {
	b, t := len(ids), 0
	for _, s := range ids {
		t = max(t, len(s))
	}
	t = max(t, 1)
	flat := make([]int, b*t)
	mask := nn.AttentionMask{Batch: b, KeyLens: make([]int, b)}
	for i, s := range ids {
		row := flat[i*t : (i+1)*t]
		copy(row, s)
		for j := len(s); j < t; j++ {
			row[j] = -1 // embeds as zeros
		}
		mask.KeyLens[i] = len(s)
	}
	// Embeddings (§2.1): tokens only, positions enter as rotations in
	// attention; then LayerNorm and dropout.
	x := tp.Dropout(m.embNorm.forward(tp, tp.Embedding(tp.Param(m.tok), flat)), m.Config.EmbeddingDrop)
	for _, l := range m.layers {
		x = l.forward(tp, x, mask, t, m.Config.HiddenAct, m.Config.MLPDrop)
	}
	return m.final.forward(tp, x), t
}

// forward is one pre-norm layer (Xiong et al. 2020; Warner et al. 2024,
// §2.1): h = x + Wo·Attn(RoPE(Wqkv·LN(x))), y = h + MLP(LN(h)), with the
// GeGLU MLP(z) = Wo·(act(z·Wiₐ) ⊙ z·Wi_g) (Shazeer 2020, eq. 6): Wi's
// first half of outputs is the input, the second the gate.
func (l *layer) forward(tp *nn.Tape[float32], x *nn.Var[float32], mask nn.AttentionMask, t int, act nn.Activation, drop float64) *nn.Var[float32] {
	h := x
	if l.attnNorm != nil {
		h = l.attnNorm.forward(tp, h)
	}
	qkv := tp.RotaryQKV(l.qkv.Forward(tp, h), l.heads, t, l.theta)
	var a *nn.Var[float32]
	if l.radius < 0 || l.radius >= t {
		a = tp.SelfAttentionQKV(qkv, l.heads, mask, 0)
	} else {
		a = tp.SelfAttentionQKVWindow(qkv, l.heads, mask, l.radius)
	}
	x = tp.Add(x, l.attnOut.Forward(tp, a))
	z := l.wi.Forward(tp, l.mlpNorm.forward(tp, x))
	g := tp.Mul(tp.Activate(tp.SliceCols(z, 0, l.interSz), act), tp.SliceCols(z, l.interSz, 2*l.interSz))
	return tp.Add(x, l.mlpOut.Forward(tp, tp.Dropout(g, drop)))
}
