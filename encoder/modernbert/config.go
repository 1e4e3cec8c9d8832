package modernbert

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/nn"
)

// The config.json values this package reads.
const (
	ModelType = "modernbert"
	// ArchModel is the bare encoder, ArchMaskedLM the pre-trained
	// checkpoints' form (its masked-language-model head is not read), and
	// ArchClassifier a cross-encoder's.
	ArchModel      = "ModernBertModel"
	ArchMaskedLM   = "ModernBertForMaskedLM"
	ArchClassifier = "ModernBertForSequenceClassification"
)

var architectures = []string{ArchModel, ArchMaskedLM, ArchClassifier}

// Config is a ModernBERT config.json, with Hugging Face's defaults
// (ModernBertConfig) for the fields a file leaves out.
type Config struct {
	Architecture      string
	VocabSize         int
	HiddenSize        int
	IntermediateSize  int // the GeGLU's width: Wi maps to twice this
	NumHiddenLayers   int
	NumAttentionHeads int
	HiddenAct         nn.Activation
	// MaxPositionEmbeddings bounds the sequence length; rotary positions
	// need no table.
	MaxPositionEmbeddings int
	NormEps               float64
	NormBias              bool // the LayerNorms have biases
	AttentionBias         bool // Wqkv and Wo have biases
	MLPBias               bool // Wi and Wo have biases
	// Global[i] says layer i attends globally (with GlobalRopeTheta);
	// the others attend within ±LocalAttention/2 tokens (with
	// LocalRopeTheta). Warner et al. (2024, §2.1): every third layer
	// global, a 128-token window.
	Global          []bool
	LocalAttention  int
	GlobalRopeTheta float64
	LocalRopeTheta  float64
	EmbeddingDrop   float64
	MLPDrop         float64
	// The sequence classifier's head: classifier_pooling "cls" or "mean",
	// head.dense's bias and activation, and the number of labels (0 when
	// config.json names none; the checkpoint's classifier then says).
	MeanPooling   bool
	ClassifierAct string // bert.HeadGELU etc.
	ClassifierB   bool
	NumLabels     int
}

// Classifier reports whether the architecture has a sequence classifier.
func (c *Config) Classifier() bool { return c.Architecture == ArchClassifier }

// HeadDim is the width of one attention head.
func (c *Config) HeadDim() int { return c.HiddenSize / c.NumAttentionHeads }

type rawConfig struct {
	ModelType         *string         `json:"model_type"`
	Architectures     []string        `json:"architectures"`
	VocabSize         *int            `json:"vocab_size"`
	HiddenSize        *int            `json:"hidden_size"`
	IntermediateSize  *int            `json:"intermediate_size"`
	NumHiddenLayers   *int            `json:"num_hidden_layers"`
	NumAttentionHeads *int            `json:"num_attention_heads"`
	HiddenActivation  *string         `json:"hidden_activation"`
	MaxPositions      *int            `json:"max_position_embeddings"`
	NormEps           *float64        `json:"norm_eps"`
	NormBias          *bool           `json:"norm_bias"`
	AttentionBias     *bool           `json:"attention_bias"`
	MLPBias           *bool           `json:"mlp_bias"`
	AttentionDropout  *float64        `json:"attention_dropout"`
	EmbeddingDropout  *float64        `json:"embedding_dropout"`
	MLPDropout        *float64        `json:"mlp_dropout"`
	GlobalEvery       *int            `json:"global_attn_every_n_layers"`
	LocalAttention    *int            `json:"local_attention"`
	GlobalRopeTheta   *float64        `json:"global_rope_theta"`
	LocalRopeTheta    json.RawMessage `json:"local_rope_theta"` // null: the global base
	LayerTypes        []string        `json:"layer_types"`
	RopeParameters    map[string]struct {
		RopeTheta *float64 `json:"rope_theta"`
		RopeType  *string  `json:"rope_type"`
	} `json:"rope_parameters"`
	RopeScaling          json.RawMessage   `json:"rope_scaling"`
	ClassifierPooling    *string           `json:"classifier_pooling"`
	ClassifierActivation *string           `json:"classifier_activation"`
	ClassifierBias       *bool             `json:"classifier_bias"`
	NumLabels            *int              `json:"num_labels"`
	ID2Label             map[string]string `json:"id2label"`
}

// Bounds that keep a hostile config.json from asking for absurd sizes.
const (
	maxVocab  = 1 << 22
	maxHidden = 1 << 14
	maxLayers = 256
	maxLabels = 1 << 16
)

// ParseConfig reads a ModernBERT config.json. A field as2 does not
// implement (attention dropout, RoPE scaling, an activation it lacks) is
// an error naming it.
func ParseConfig(data []byte) (*Config, error) {
	var r rawConfig
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("modernbert: config.json: %w", err)
	}
	fail := func(format string, a ...any) (*Config, error) {
		return nil, fmt.Errorf("modernbert: config.json: "+format, a...)
	}
	if r.ModelType == nil {
		return fail("model_type is missing (want %q)", ModelType)
	}
	if *r.ModelType != ModelType {
		return fail("model_type %q is not supported (want %q)", *r.ModelType, ModelType)
	}
	c := &Config{
		Architecture: ArchModel, HiddenAct: nn.ActGELU, MaxPositionEmbeddings: 8192, NormEps: 1e-5,
		LocalAttention: 128, GlobalRopeTheta: 160000, LocalRopeTheta: 10000, ClassifierAct: bert.HeadGELU,
	}
	switch len(r.Architectures) {
	case 0:
	case 1:
		if !slices.Contains(architectures, r.Architectures[0]) {
			return fail("architecture %q is not supported (want %s, %s or %s)", r.Architectures[0], ArchModel, ArchMaskedLM, ArchClassifier)
		}
		c.Architecture = r.Architectures[0]
	default:
		return fail("architectures %q: want exactly one", r.Architectures)
	}
	for _, f := range []struct {
		name     string
		v        *int
		dst      *int
		min, max int
	}{
		{"vocab_size", r.VocabSize, &c.VocabSize, 1, maxVocab},
		{"hidden_size", r.HiddenSize, &c.HiddenSize, 2, maxHidden},
		{"intermediate_size", r.IntermediateSize, &c.IntermediateSize, 1, 8 * maxHidden},
		{"num_hidden_layers", r.NumHiddenLayers, &c.NumHiddenLayers, 1, maxLayers},
		{"num_attention_heads", r.NumAttentionHeads, &c.NumAttentionHeads, 1, maxHidden},
	} {
		if f.v == nil {
			return fail("%s is missing", f.name)
		}
		if *f.v < f.min || *f.v > f.max {
			return fail("%s = %d is outside [%d, %d]", f.name, *f.v, f.min, f.max)
		}
		*f.dst = *f.v
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 || c.HeadDim()%2 != 0 {
		return fail("hidden_size %d is not num_attention_heads %d heads of an even width (rotary positions rotate pairs)", c.HiddenSize, c.NumAttentionHeads)
	}
	if r.HiddenActivation != nil {
		switch *r.HiddenActivation {
		case "gelu":
			c.HiddenAct = nn.ActGELU
		case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
			c.HiddenAct = nn.ActGELUTanh
		case "relu":
			c.HiddenAct = nn.ActReLU
		default:
			return fail("hidden_activation %q is not supported (want gelu, gelu_new, gelu_pytorch_tanh or relu)", *r.HiddenActivation)
		}
	}
	if r.MaxPositions != nil {
		if *r.MaxPositions < 1 || *r.MaxPositions > 1<<20 {
			return fail("max_position_embeddings = %d is out of range", *r.MaxPositions)
		}
		c.MaxPositionEmbeddings = *r.MaxPositions
	}
	if r.NormEps != nil {
		if !(*r.NormEps > 0 && *r.NormEps < 1) {
			return fail("norm_eps = %v: want a small positive number", *r.NormEps)
		}
		c.NormEps = *r.NormEps
	}
	for _, b := range []struct {
		v   *bool
		dst *bool
	}{{r.NormBias, &c.NormBias}, {r.AttentionBias, &c.AttentionBias}, {r.MLPBias, &c.MLPBias}, {r.ClassifierBias, &c.ClassifierB}} {
		if b.v != nil {
			*b.dst = *b.v
		}
	}
	if r.AttentionDropout != nil && *r.AttentionDropout != 0 {
		return fail("attention_dropout = %v is not supported (only 0, as the released checkpoints have)", *r.AttentionDropout)
	}
	for _, d := range []struct {
		name string
		v    *float64
		dst  *float64
	}{{"embedding_dropout", r.EmbeddingDropout, &c.EmbeddingDrop}, {"mlp_dropout", r.MLPDropout, &c.MLPDrop}} {
		if d.v != nil {
			if !(*d.v >= 0 && *d.v < 1) {
				return fail("%s = %v is outside [0, 1)", d.name, *d.v)
			}
			*d.dst = *d.v
		}
	}
	if err := c.readLayers(&r); err != nil {
		return nil, fmt.Errorf("modernbert: config.json: %w", err)
	}
	if err := c.readHead(&r); err != nil {
		return nil, fmt.Errorf("modernbert: config.json: %w", err)
	}
	return c, nil
}

// readLayers reads which layers are global, the window and the rotary
// bases: global_attn_every_n_layers (layer i is global when i is a
// multiple of it, as Hugging Face's ModernBertAttention decides) or a
// layer_types list, and the thetas or a rope_parameters map by layer type.
func (c *Config) readLayers(r *rawConfig) error {
	every := 3
	if r.GlobalEvery != nil {
		every = *r.GlobalEvery
		if every < 1 || every > maxLayers {
			return fmt.Errorf("global_attn_every_n_layers = %d: want 1 to %d", every, maxLayers)
		}
	}
	c.Global = make([]bool, c.NumHiddenLayers)
	for i := range c.Global {
		c.Global[i] = i%every == 0
	}
	if r.LayerTypes != nil {
		if len(r.LayerTypes) != c.NumHiddenLayers {
			return fmt.Errorf("layer_types has %d entries for %d layers", len(r.LayerTypes), c.NumHiddenLayers)
		}
		for i, t := range r.LayerTypes {
			switch t {
			case "full_attention":
				c.Global[i] = true
			case "sliding_attention":
				c.Global[i] = false
			default:
				return fmt.Errorf("layer_types[%d] = %q: want full_attention or sliding_attention", i, t)
			}
		}
	}
	if r.LocalAttention != nil {
		if *r.LocalAttention < 0 || *r.LocalAttention > 1<<20 {
			return fmt.Errorf("local_attention = %d is out of range", *r.LocalAttention)
		}
		c.LocalAttention = *r.LocalAttention
	}
	theta := func(name string, v *float64, dst *float64) error {
		if v == nil {
			return nil
		}
		if !(*v > 1) || math.IsInf(*v, 0) {
			return fmt.Errorf("%s = %v: want a base above 1", name, *v)
		}
		*dst = *v
		return nil
	}
	if err := theta("global_rope_theta", r.GlobalRopeTheta, &c.GlobalRopeTheta); err != nil {
		return err
	}
	switch {
	case len(r.LocalRopeTheta) == 0: // left out: ModernBertConfig's 10000
	case string(r.LocalRopeTheta) == "null":
		c.LocalRopeTheta = c.GlobalRopeTheta // as ModernBertAttention reads null
	default:
		var v float64
		if err := json.Unmarshal(r.LocalRopeTheta, &v); err != nil {
			return fmt.Errorf("local_rope_theta %s: want a number or null", r.LocalRopeTheta)
		}
		if err := theta("local_rope_theta", &v, &c.LocalRopeTheta); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.RopeParameters)) {
		p := r.RopeParameters[k]
		if p.RopeType != nil && *p.RopeType != "default" {
			return fmt.Errorf("rope_parameters.%s.rope_type %q is not supported (only default)", k, *p.RopeType)
		}
		var dst *float64
		switch k {
		case "full_attention":
			dst = &c.GlobalRopeTheta
		case "sliding_attention":
			dst = &c.LocalRopeTheta
		default:
			return fmt.Errorf("rope_parameters.%s: want full_attention or sliding_attention", k)
		}
		if err := theta("rope_parameters."+k+".rope_theta", p.RopeTheta, dst); err != nil {
			return err
		}
	}
	if len(r.RopeScaling) > 0 && string(r.RopeScaling) != "null" {
		return fmt.Errorf("rope_scaling %s is not supported", r.RopeScaling)
	}
	return nil
}

// readHead reads the classification head's settings and labels.
func (c *Config) readHead(r *rawConfig) error {
	if r.ClassifierPooling != nil {
		switch *r.ClassifierPooling {
		case "cls":
		case "mean":
			c.MeanPooling = true
		default:
			return fmt.Errorf("classifier_pooling %q is not supported (want cls or mean)", *r.ClassifierPooling)
		}
	}
	if r.ClassifierActivation != nil {
		switch *r.ClassifierActivation {
		case "gelu":
			c.ClassifierAct = bert.HeadGELU
		case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
			c.ClassifierAct = bert.HeadGELUTanh
		case "relu":
			c.ClassifierAct = bert.HeadReLU
		case "tanh":
			c.ClassifierAct = bert.HeadTanh
		default:
			return fmt.Errorf("classifier_activation %q is not supported (want gelu, gelu_new, gelu_pytorch_tanh, relu or tanh)", *r.ClassifierActivation)
		}
	}
	if len(r.ID2Label) > maxLabels {
		return fmt.Errorf("id2label has %d labels", len(r.ID2Label))
	}
	for k := range r.ID2Label {
		if i, err := strconv.Atoi(k); err != nil || i < 0 || i >= len(r.ID2Label) {
			return fmt.Errorf("id2label key %q: want 0 to %d", k, len(r.ID2Label)-1)
		}
	}
	c.NumLabels = len(r.ID2Label)
	if r.NumLabels != nil {
		if *r.NumLabels < 1 || *r.NumLabels > maxLabels {
			return fmt.Errorf("num_labels = %d is out of range", *r.NumLabels)
		}
		if c.NumLabels != 0 && c.NumLabels != *r.NumLabels {
			return fmt.Errorf("num_labels = %d but id2label has %d labels", *r.NumLabels, c.NumLabels)
		}
		c.NumLabels = *r.NumLabels
	}
	return nil
}
