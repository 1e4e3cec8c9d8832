package deberta

import (
	"fmt"
	"math"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// Model is a DeBERTa-v2/v3 encoder (He et al. 2021): embeddings, then
// post-LN layers whose self-attention is disentangled (§3.1). Its
// parameters are named as nn's layers name them:
//
//	embeddings.word_embeddings.weight [vocab, embedding_size]
//	embeddings.position_embeddings.weight, embeddings.token_type_embeddings.weight (when used)
//	embeddings.embed_proj.weight [embedding_size, hidden] (when the widths differ)
//	embeddings.norm.{gain,bias}
//	encoder.rel_embeddings.weight [2·span, hidden], encoder.rel_norm.{gain,bias} (norm_rel_ebd)
//	encoder.layer.N.{attn.qkv, attn.out, norm1, ffn.in, ffn.out, norm2}.*
//	encoder.layer.N.attn.pos_key, .attn.pos_query (without share_att_key)
type Model struct {
	Config Config

	params    *nn.Params[float32]
	word      *nn.Param[float32]
	pos       *nn.Param[float32] // nil unless position_biased_input
	types     *nn.Param[float32] // nil without token types
	embedProj *nn.Linear[float32]
	embNorm   *nn.LayerNormLayer[float32]
	rel       *nn.Param[float32]
	relNorm   *nn.LayerNormLayer[float32]
	layers    []*layer
}

// layer is BERT's post-LN layer (nn.TransformerEncoderLayer's parameters)
// with disentangled attention in place of its attention.
type layer struct {
	*nn.TransformerEncoderLayer[float32]
	posKey, posQuery *nn.Linear[float32] // without share_att_key
}

// newModel allocates a model of cfg's shape (values to be overwritten).
func newModel(cfg *Config) *Model {
	c := cfg
	h, e := c.HiddenSize, c.EmbeddingSize
	ps := nn.NewParams[float32]()
	rng := nn.NewRNG(0)
	m := &Model{Config: *cfg, params: ps}
	m.word = ps.New("embeddings.word_embeddings.weight", c.VocabSize, e)
	if c.PositionBiasedInput {
		m.pos = ps.New("embeddings.position_embeddings.weight", c.MaxPositionEmbeddings, e)
	}
	if c.TypeVocabSize > 0 {
		m.types = ps.New("embeddings.token_type_embeddings.weight", c.TypeVocabSize, e)
	}
	if e != h {
		m.embedProj = nn.NewLinear(ps, "embeddings.embed_proj", e, h, false, rng)
	}
	m.embNorm = nn.NewLayerNorm(ps, "embeddings.norm", h)
	m.embNorm.Eps = c.LayerNormEps
	m.rel = ps.New("encoder.rel_embeddings.weight", 2*c.Span(), h)
	if c.NormRelEmbeddings {
		m.relNorm = nn.NewLayerNorm(ps, "encoder.rel_norm", h)
		m.relNorm.Eps = c.LayerNormEps
	}
	lcfg := nn.EncoderLayerConfig{D: h, Heads: c.NumAttentionHeads, FFN: c.IntermediateSize, Act: c.HiddenAct, Eps: c.LayerNormEps, Dropout: c.HiddenDropout}
	for i := 0; i < c.NumHiddenLayers; i++ {
		name := fmt.Sprintf("encoder.layer.%d", i)
		l := &layer{TransformerEncoderLayer: nn.NewTransformerEncoderLayer(ps, name, lcfg, rng)}
		if !c.ShareAttKey {
			if c.C2P {
				l.posKey = nn.NewLinear(ps, name+".attn.pos_key", h, h, true, rng)
			}
			if c.P2C {
				l.posQuery = nn.NewLinear(ps, name+".attn.pos_query", h, h, true, rng)
			}
		}
		m.layers = append(m.layers, l)
	}
	return m
}

// paramCount is the number of values newModel allocates for cfg.
func paramCount(c *Config) int {
	h, e, in := c.HiddenSize, c.EmbeddingSize, c.IntermediateSize
	n := c.VocabSize*e + 2*h + 2*c.Span()*h
	if c.PositionBiasedInput {
		n += c.MaxPositionEmbeddings * e
	}
	n += c.TypeVocabSize * e
	if e != h {
		n += e * h
	}
	if c.NormRelEmbeddings {
		n += 2 * h
	}
	perLayer := 4*h*h + 2*h*in + in + 9*h
	if !c.ShareAttKey {
		if c.C2P {
			perLayer += h*h + h
		}
		if c.P2C {
			perLayer += h*h + h
		}
	}
	return n + c.NumHiddenLayers*perLayer
}

// Params returns the model's parameters.
func (m *Model) Params() *nn.Params[float32] { return m.params }

// Linears returns the linear layers int8 inference runs as int8 (see
// package model/quant): each layer's four, its position projections when
// it has its own, and embed_proj.
func (m *Model) Linears() []*nn.Linear[float32] {
	var ls []*nn.Linear[float32]
	if m.embedProj != nil {
		ls = append(ls, m.embedProj)
	}
	for _, l := range m.layers {
		ls = append(ls, l.TransformerEncoderLayer.Linears()...)
		for _, p := range []*nn.Linear[float32]{l.posKey, l.posQuery} {
			if p != nil {
				ls = append(ls, p)
			}
		}
	}
	return ls
}

// ForwardBatch runs a batch of sequences padded to the longest, T: it
// returns the states [B·T, H], sequence b's in rows [b·T, b·T+len_b), and
// T. Padded keys get no attention, so the real rows equal those of the
// sequence alone. ids must lie in the vocabulary, types (nil, or nil
// entries: all 0) below type_vocab_size, and no sequence may be longer
// than max_position_embeddings when the model adds absolute positions.
func (m *Model) ForwardBatch(tp *nn.Tape[float32], ids, typeIDs [][]int) (*nn.Var[float32], int) {
	c := &m.Config
	b := len(ids)
	t := 1
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
	// Embeddings: words, plus absolute positions and token types where
	// the checkpoint has them, projected to the hidden width, normalised.
	x := tp.Embedding(tp.Param(m.word), flat)
	if m.pos != nil {
		x = tp.AddPositions(x, tp.Param(m.pos), t)
	}
	if m.types != nil {
		x = tp.Add(x, tp.Embedding(tp.Param(m.types), ftypes))
	}
	if m.embedProj != nil {
		x = m.embedProj.Forward(tp, x)
	}
	x = tp.Dropout(m.embNorm.Forward(tp, x), c.HiddenDropout)

	// The relative embeddings, normalised once for every layer.
	rel := tp.Param(m.rel)
	if m.relNorm != nil {
		rel = m.relNorm.Forward(tp, rel)
	}
	c2p, p2c := c.relativeIndex(t)
	h := c.HiddenSize
	scale := 1 / math.Sqrt(float64(h/c.NumAttentionHeads*c.ScaleFactor()))
	for _, l := range m.layers {
		qkv := l.Attn.QKV.Forward(tp, x)
		var posQ, posK *nn.Var[float32]
		if c.ShareAttKey {
			// The content's own query and key maps project the
			// positions (DeBERTa-v3's share_att_key).
			if l.Attn.QKV.Int8 != nil {
				// int8 inference keeps only the int8 weights (model/quant
				// releases the float copy): project through them whole.
				all := l.Attn.QKV.Forward(tp, rel)
				if c.P2C {
					posQ = tp.SliceCols(all, 0, h)
				}
				if c.C2P {
					posK = tp.SliceCols(all, h, 2*h)
				}
			} else {
				w, bias := tp.Param(l.Attn.QKV.W), tp.Param(l.Attn.QKV.B)
				if c.P2C {
					posQ = tp.LinearColumns(rel, w, bias, 0, h)
				}
				if c.C2P {
					posK = tp.LinearColumns(rel, w, bias, h, 2*h)
				}
			}
		} else {
			if l.posQuery != nil {
				posQ = l.posQuery.Forward(tp, rel)
			}
			if l.posKey != nil {
				posK = l.posKey.Forward(tp, rel)
			}
		}
		a := tp.DisentangledAttention(qkv, posQ, posK, c.NumAttentionHeads, mask, c2p, p2c, scale)
		p := c.HiddenDropout
		hid := l.Norm1.Forward(tp, tp.Add(x, tp.Dropout(l.Attn.Out.Forward(tp, a), p)))
		x = l.Norm2.Forward(tp, tp.Add(hid, tp.Dropout(l.FFN.Forward(tp, hid), p)))
	}
	return x, t
}

// build maps HF's tensors (under "deberta." or none) onto a new Model.
// Every tensor is checked against config.json before the model is
// allocated.
func build(cfg *Config, src *encoder.HFTensors) (*Model, error) {
	c := cfg
	h, e, inter := c.HiddenSize, c.EmbeddingSize, c.IntermediateSize
	nt := map[string][]float32{}
	norm := func(hf, as string) { src.Norm(nt, hf, as, h) }
	linear := func(hf, as string, out, in int, bias bool) { src.Linear(nt, hf, as, out, in, bias) }
	nt["embeddings.word_embeddings.weight"] = src.Get("embeddings.word_embeddings.weight", c.VocabSize, e)
	if c.PositionBiasedInput {
		nt["embeddings.position_embeddings.weight"] = src.Get("embeddings.position_embeddings.weight", c.MaxPositionEmbeddings, e)
	}
	if c.TypeVocabSize > 0 {
		nt["embeddings.token_type_embeddings.weight"] = src.Get("embeddings.token_type_embeddings.weight", c.TypeVocabSize, e)
	}
	if e != h {
		linear("embeddings.embed_proj", "embeddings.embed_proj", h, e, false)
	}
	norm("embeddings.LayerNorm", "embeddings.norm")
	nt["encoder.rel_embeddings.weight"] = src.Get("encoder.rel_embeddings.weight", 2*c.Span(), h)
	if c.NormRelEmbeddings {
		norm("encoder.LayerNorm", "encoder.rel_norm")
	}
	for i := 0; i < c.NumHiddenLayers && len(src.Errs) == 0; i++ {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		// Query, key and value are one [H, 3H] projection in nn.
		src.QKV(nt, p+"attention.self.", [3]string{"query_proj", "key_proj", "value_proj"}, p+"attn.qkv", h)
		if !c.ShareAttKey {
			if c.C2P {
				linear(p+"attention.self.pos_key_proj", p+"attn.pos_key", h, h, true)
			}
			if c.P2C {
				linear(p+"attention.self.pos_query_proj", p+"attn.pos_query", h, h, true)
			}
		}
		linear(p+"attention.output.dense", p+"attn.out", h, h, true)
		norm(p+"attention.output.LayerNorm", p+"norm1")
		linear(p+"intermediate.dense", p+"ffn.in", inter, h, true)
		linear(p+"output.dense", p+"ffn.out", h, inter, true)
		norm(p+"output.LayerNorm", p+"norm2")
	}
	if len(src.Errs) > 0 {
		return nil, src.Errs[0]
	}
	m := newModel(cfg)
	var tensors []safetensors.Tensor
	for name, data := range nt {
		p := m.params.Get(name)
		if p == nil {
			return nil, fmt.Errorf("deberta: internal: no parameter %q", name)
		}
		tensors = append(tensors, safetensors.Tensor{Name: name, Shape: p.Shape(), Data: data})
	}
	if len(tensors) != len(m.params.All()) {
		return nil, fmt.Errorf("deberta: internal: %d tensors for %d parameters", len(tensors), len(m.params.All()))
	}
	if err := encoder.LoadParams(m.params, "", tensors); err != nil {
		return nil, fmt.Errorf("deberta: %w", err)
	}
	return m, nil
}
