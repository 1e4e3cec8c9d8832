package deberta

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/text/jsonerr"
)

// Architectures this package reads (model_type "deberta-v2", which
// DeBERTa-v3 checkpoints also declare).
var architectures = []string{"DebertaV2Model", "DebertaV2ForSequenceClassification"}

// ModelType is config.json's model_type of the family.
const ModelType = "deberta-v2"

// Bounds on config.json's sizes, so that a hostile file cannot ask for
// absurd allocations before any tensor is read.
const (
	maxVocab     = 1 << 22
	maxWidth     = 1 << 14
	maxLayers    = 256
	maxPositions = 1 << 16
	maxTypes     = 1 << 10
	maxLabels    = 1 << 16
)

// Config is a DeBERTa-v2/v3 config.json, with Hugging Face's defaults
// applied (DebertaV2Config and the modules that read it).
type Config struct {
	// Architecture is config.json's, e.g. "DebertaV2ForSequenceClassification".
	Architecture string

	VocabSize, HiddenSize, NumHiddenLayers, NumAttentionHeads, IntermediateSize int
	HiddenAct                                                                   nn.Activation
	LayerNormEps                                                                float64
	HiddenDropout                                                               float64

	// EmbeddingSize is the word embeddings' width; when it differs from
	// HiddenSize, embed_proj maps them to it.
	EmbeddingSize int
	// PositionBiasedInput adds absolute position embeddings
	// (MaxPositionEmbeddings rows) to the input, as BERT does; DeBERTa-v3
	// has none. TypeVocabSize is 0 without token type embeddings.
	PositionBiasedInput   bool
	MaxPositionEmbeddings int
	TypeVocabSize         int

	// MaxRelativePositions is the farthest relative distance (k in He et
	// al. 2021, eq. 3), max_position_embeddings when config.json has none;
	// PositionBuckets > 0 maps distances into that many log buckets on
	// each side (DeBERTa-v3), and is then the span of rel_embeddings.
	MaxRelativePositions int
	PositionBuckets      int
	// C2P and P2C are pos_att_type's content-to-position and
	// position-to-content terms.
	C2P, P2C bool
	// ShareAttKey projects the relative embeddings with the content's
	// query and key maps, not pos_query_proj and pos_key_proj.
	ShareAttKey bool
	// NormRelEmbeddings is norm_rel_ebd "layer_norm": the relative
	// embeddings pass the encoder's LayerNorm first.
	NormRelEmbeddings bool

	// PoolerAct is pooler_hidden_act as a bert.Head activation; NumLabels
	// the classifier's outputs (0 when the config does not say).
	PoolerAct string
	NumLabels int
}

// Classifier reports whether the architecture has a sequence classifier.
func (c *Config) Classifier() bool { return c.Architecture == "DebertaV2ForSequenceClassification" }

// Span is the number of relative positions on each side that
// rel_embeddings holds (2·Span rows): position_buckets, or
// max_relative_positions without buckets.
func (c *Config) Span() int {
	if c.PositionBuckets > 0 {
		return c.PositionBuckets
	}
	return c.MaxRelativePositions
}

// ScaleFactor is 1 + the number of position terms: the scores are divided
// by √(d_head·ScaleFactor) (He et al. 2021, §3.1, after eq. 4).
func (c *Config) ScaleFactor() int {
	f := 1
	if c.C2P {
		f++
	}
	if c.P2C {
		f++
	}
	return f
}

type rawConfig struct {
	ModelType           *string         `json:"model_type"`
	Architectures       []string        `json:"architectures"`
	VocabSize           *int            `json:"vocab_size"`
	HiddenSize          *int            `json:"hidden_size"`
	NumHiddenLayers     *int            `json:"num_hidden_layers"`
	NumAttentionHeads   *int            `json:"num_attention_heads"`
	IntermediateSize    *int            `json:"intermediate_size"`
	HiddenAct           *string         `json:"hidden_act"`
	HiddenDropout       *float64        `json:"hidden_dropout_prob"`
	MaxPositions        *int            `json:"max_position_embeddings"`
	TypeVocabSize       *int            `json:"type_vocab_size"`
	LayerNormEps        *float64        `json:"layer_norm_eps"`
	EmbeddingSize       *int            `json:"embedding_size"`
	PositionBiasedInput *bool           `json:"position_biased_input"`
	RelativeAttention   *bool           `json:"relative_attention"`
	MaxRelative         *int            `json:"max_relative_positions"`
	PositionBuckets     *int            `json:"position_buckets"`
	PosAttType          json.RawMessage `json:"pos_att_type"`
	ShareAttKey         *bool           `json:"share_att_key"`
	NormRelEbd          *string         `json:"norm_rel_ebd"`
	ConvKernelSize      *int            `json:"conv_kernel_size"`
	AttentionHeadSize   *int            `json:"attention_head_size"`
	PoolerHiddenSize    *int            `json:"pooler_hidden_size"`
	PoolerHiddenAct     *string         `json:"pooler_hidden_act"`
	NumLabels           *int            `json:"num_labels"`
	ID2Label            map[string]any  `json:"id2label"`
}

// ParseConfig reads a DeBERTa-v2/v3 config.json. Every field the model
// reads is checked; what this package does not implement (the convolution
// layer, absolute-only attention, other position terms or a pooler of
// another width) is an error naming the field.
func ParseConfig(data []byte) (*Config, error) {
	var r rawConfig
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("deberta: config.json: %w", jsonerr.Locate(err))
	}
	fail := func(format string, a ...any) (*Config, error) {
		return nil, fmt.Errorf("deberta: config.json: "+format, a...)
	}
	if r.ModelType == nil {
		return fail("model_type is missing (want %q)", ModelType)
	}
	if *r.ModelType != ModelType {
		return fail("model_type %q is not supported (want %q)", *r.ModelType, ModelType)
	}
	c := &Config{Architecture: architectures[0]}
	switch len(r.Architectures) {
	case 0:
	case 1:
		if !slices.Contains(architectures, r.Architectures[0]) {
			return fail("architecture %q is not supported (want %s)", r.Architectures[0], strings.Join(architectures, " or "))
		}
		c.Architecture = r.Architectures[0]
	default:
		return fail("architectures %q: want exactly one", r.Architectures)
	}
	size := func(field string, p *int, lo, hi int, def int, required bool) (int, error) {
		if p == nil {
			if required {
				return 0, fmt.Errorf("deberta: config.json: %s is missing", field)
			}
			return def, nil
		}
		if *p < lo || *p > hi {
			return 0, fmt.Errorf("deberta: config.json: %s = %d is outside [%d, %d]", field, *p, lo, hi)
		}
		return *p, nil
	}
	var err error
	for _, f := range []struct {
		name     string
		p        *int
		dst      *int
		lo, hi   int
		def      int
		required bool
	}{
		{"vocab_size", r.VocabSize, &c.VocabSize, 1, maxVocab, 0, true},
		{"hidden_size", r.HiddenSize, &c.HiddenSize, 1, maxWidth, 0, true},
		{"num_hidden_layers", r.NumHiddenLayers, &c.NumHiddenLayers, 1, maxLayers, 0, true},
		{"num_attention_heads", r.NumAttentionHeads, &c.NumAttentionHeads, 1, maxWidth, 0, true},
		{"intermediate_size", r.IntermediateSize, &c.IntermediateSize, 1, 4 * maxWidth, 0, true},
		{"max_position_embeddings", r.MaxPositions, &c.MaxPositionEmbeddings, 1, maxPositions, 512, false},
		{"type_vocab_size", r.TypeVocabSize, &c.TypeVocabSize, 0, maxTypes, 0, false},
		{"position_buckets", r.PositionBuckets, &c.PositionBuckets, math.MinInt32, maxPositions, -1, false},
		{"max_relative_positions", r.MaxRelative, &c.MaxRelativePositions, math.MinInt32, maxPositions, -1, false},
	} {
		if *f.dst, err = size(f.name, f.p, f.lo, f.hi, f.def, f.required); err != nil {
			return nil, err
		}
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 {
		return fail("hidden_size %d is not a multiple of num_attention_heads %d", c.HiddenSize, c.NumAttentionHeads)
	}
	if r.AttentionHeadSize != nil && *r.AttentionHeadSize != c.HiddenSize/c.NumAttentionHeads {
		return fail("attention_head_size = %d is not supported (want hidden_size / num_attention_heads = %d)", *r.AttentionHeadSize, c.HiddenSize/c.NumAttentionHeads)
	}
	if c.EmbeddingSize, err = size("embedding_size", r.EmbeddingSize, 1, maxWidth, c.HiddenSize, false); err != nil {
		return nil, err
	}
	c.HiddenAct = nn.ActGELU
	if r.HiddenAct != nil {
		switch *r.HiddenAct {
		case "gelu":
		case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
			c.HiddenAct = nn.ActGELUTanh
		case "relu":
			c.HiddenAct = nn.ActReLU
		default:
			return fail("hidden_act %q is not supported (want gelu, gelu_new, gelu_pytorch_tanh or relu)", *r.HiddenAct)
		}
	}
	c.LayerNormEps = 1e-7
	if r.LayerNormEps != nil {
		if !(*r.LayerNormEps > 0 && *r.LayerNormEps < 1) {
			return fail("layer_norm_eps = %v is outside (0, 1)", *r.LayerNormEps)
		}
		c.LayerNormEps = *r.LayerNormEps
	}
	if r.HiddenDropout != nil {
		if !(*r.HiddenDropout >= 0 && *r.HiddenDropout < 1) {
			return fail("hidden_dropout_prob = %v is outside [0, 1)", *r.HiddenDropout)
		}
		c.HiddenDropout = *r.HiddenDropout
	}
	c.PositionBiasedInput = r.PositionBiasedInput == nil || *r.PositionBiasedInput
	// Relative attention is what makes a DeBERTa: a config without it
	// (HF's default) runs BERT's attention under another scale, which no
	// published checkpoint does.
	if r.RelativeAttention == nil || !*r.RelativeAttention {
		return fail("relative_attention is false or missing: only DeBERTa's relative (disentangled) attention is supported")
	}
	if r.ConvKernelSize != nil && *r.ConvKernelSize > 0 {
		return fail("conv_kernel_size = %d: the convolution layer (DeBERTa-v2's nGiE) is not supported", *r.ConvKernelSize)
	}
	if c.MaxRelativePositions < 1 {
		c.MaxRelativePositions = c.MaxPositionEmbeddings
	}
	if c.PositionBuckets > 0 && (c.PositionBuckets < 2 || c.MaxRelativePositions <= c.PositionBuckets/2+1) {
		return fail("position_buckets = %d needs max_relative_positions (%d) above position_buckets/2 + 1", c.PositionBuckets, c.MaxRelativePositions)
	}
	types, err := posAttTypes(r.PosAttType)
	if err != nil {
		return nil, err
	}
	for _, t := range types {
		switch t {
		case "c2p":
			c.C2P = true
		case "p2c":
			c.P2C = true
		default:
			return fail("pos_att_type %q is not supported (want c2p and/or p2c)", t)
		}
	}
	c.ShareAttKey = r.ShareAttKey != nil && *r.ShareAttKey
	if r.NormRelEbd != nil {
		for _, n := range strings.Split(strings.ToLower(*r.NormRelEbd), "|") {
			switch strings.TrimSpace(n) {
			case "none", "":
			case "layer_norm":
				c.NormRelEmbeddings = true
			default:
				return fail("norm_rel_ebd %q is not supported (want none or layer_norm)", *r.NormRelEbd)
			}
		}
	}
	if r.PoolerHiddenSize != nil && *r.PoolerHiddenSize != c.HiddenSize {
		return fail("pooler_hidden_size = %d is not supported (want hidden_size %d)", *r.PoolerHiddenSize, c.HiddenSize)
	}
	c.PoolerAct = bert.HeadGELU
	if r.PoolerHiddenAct != nil {
		switch *r.PoolerHiddenAct {
		case "gelu":
		case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
			c.PoolerAct = bert.HeadGELUTanh
		case "tanh":
			c.PoolerAct = bert.HeadTanh
		case "relu":
			c.PoolerAct = bert.HeadReLU
		default:
			return fail("pooler_hidden_act %q is not supported (want gelu, gelu_new, tanh or relu)", *r.PoolerHiddenAct)
		}
	}
	if len(r.ID2Label) > maxLabels {
		return fail("id2label has %d labels", len(r.ID2Label))
	}
	c.NumLabels = len(r.ID2Label)
	if r.NumLabels != nil {
		if *r.NumLabels < 1 || *r.NumLabels > maxLabels || (c.NumLabels != 0 && *r.NumLabels != c.NumLabels) {
			return fail("num_labels = %d does not match id2label's %d labels", *r.NumLabels, c.NumLabels)
		}
		c.NumLabels = *r.NumLabels
	}
	return c, nil
}

// posAttTypes reads pos_att_type, a list or a "|"-separated string; null
// or missing is none.
func posAttTypes(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		for i := range list {
			list[i] = strings.ToLower(strings.TrimSpace(list[i]))
		}
		return list, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("deberta: config.json: pos_att_type %s: want a list or a string such as \"p2c|c2p\"", raw)
	}
	var out []string
	for _, t := range strings.Split(s, "|") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			out = append(out, t)
		}
	}
	return out, nil
}

// relativeBucket is DeBERTa's relative position of a query d = i − j
// places after a key (He et al. 2021, §3.1 eq. 3, and DeBERTa-v3's log
// buckets, make_log_bucket_position in the public model code): without
// buckets d itself; with them d within ±mid (mid = buckets/2), beyond it
// sign(d)·(mid + ⌈log(|d|/mid) / log((maxRel − 1)/mid)·(mid − 1)⌉). The
// logarithms are taken in float32, as PyTorch does, so that a bucket
// boundary falls where it does for the checkpoint.
func relativeBucket(d, buckets, maxRel int) int {
	if buckets <= 0 || maxRel <= 0 {
		return d
	}
	mid := buckets / 2
	abs := d
	if abs < 0 {
		abs = -abs
	}
	if abs <= mid {
		return d // also when d is within ±(mid−1), which the log branch would not read
	}
	num := float32(math.Log(float64(float32(abs) / float32(mid))))
	den := float32(math.Log(float64(float32(maxRel-1) / float32(mid))))
	b := int(math.Ceil(float64(num/den*float32(mid-1)))) + mid
	if d < 0 {
		return -b
	}
	return b
}

// relativeIndex is the two tables DisentangledAttention reads for n
// positions: c2p[i·n+j] = clamp(δ(i, j) + span) for query i and key j,
// p2c[i·n+j] = clamp(−δ(j, i) + span), the rows of the 2·span projected
// relative embeddings each term reads, as in the public model code.
func (c *Config) relativeIndex(n int) (c2p, p2c []int) {
	span := c.Span()
	clamp := func(v int) int { return min(max(v, 0), 2*span-1) }
	bucket := make([]int, 2*n-1) // δ = d for d in (−n, n)
	for d := -(n - 1); d < n; d++ {
		bucket[d+n-1] = relativeBucket(d, c.PositionBuckets, c.MaxRelativePositions)
	}
	if c.C2P {
		c2p = make([]int, n*n)
	}
	if c.P2C {
		p2c = make([]int, n*n)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if c2p != nil {
				c2p[i*n+j] = clamp(bucket[i-j+n-1] + span)
			}
			if p2c != nil {
				p2c[i*n+j] = clamp(-bucket[j-i+n-1] + span)
			}
		}
	}
	return c2p, p2c
}
