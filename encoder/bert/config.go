package bert

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/as2/as2/nn"
)

// Config is the part of a Hugging Face BertConfig (config.json) the
// encoder needs.
type Config struct {
	Architecture          string // "BertModel" or "BertForSequenceClassification"
	VocabSize             int
	HiddenSize            int
	NumHiddenLayers       int
	NumAttentionHeads     int
	IntermediateSize      int
	HiddenAct             nn.Activation
	MaxPositionEmbeddings int
	// TypeVocabSize is the number of token types; 0 means no token-type
	// embeddings at all (DistilBERT's, which has none).
	TypeVocabSize int
	// EmbeddingSize is embedding_size, the embeddings' width when it
	// differs from hidden_size: ELECTRA's (Clark et al. 2020, §3.2, which
	// shrinks the embeddings of small models) are projected to
	// hidden_size by a linear layer after their LayerNorm. 0 means
	// hidden_size, with no projection.
	EmbeddingSize    int
	LayerNormEps     float64
	HiddenDropout    float64 // hidden_dropout_prob, training only
	AttentionDropout float64 // attention_probs_dropout_prob, training only
	// NumLabels is the classifier's output count from id2label or
	// num_labels; 0 when the config names none.
	NumLabels int
}

// Architectures this package implements.
const (
	ArchBertModel          = "BertModel"
	ArchSequenceClassifier = "BertForSequenceClassification"
)

// Bounds on a config's sizes: generous for any BERT, small enough that a
// hostile config.json cannot ask for absurd allocations.
const (
	maxWidth  = 1 << 16
	maxLayers = 1 << 10
	maxVocab  = 1 << 24
	maxLabels = 1 << 16
)

// rawConfig mirrors config.json; pointers tell absent from zero.
type rawConfig struct {
	Architectures         []string          `json:"architectures"`
	ModelType             *string           `json:"model_type"`
	VocabSize             *int              `json:"vocab_size"`
	HiddenSize            *int              `json:"hidden_size"`
	NumHiddenLayers       *int              `json:"num_hidden_layers"`
	NumAttentionHeads     *int              `json:"num_attention_heads"`
	IntermediateSize      *int              `json:"intermediate_size"`
	HiddenAct             *string           `json:"hidden_act"`
	MaxPositionEmbeddings *int              `json:"max_position_embeddings"`
	TypeVocabSize         *int              `json:"type_vocab_size"`
	EmbeddingSize         *int              `json:"embedding_size"`
	LayerNormEps          *float64          `json:"layer_norm_eps"`
	HiddenDropout         *float64          `json:"hidden_dropout_prob"`
	AttentionDropout      *float64          `json:"attention_probs_dropout_prob"`
	PositionEmbeddingType *string           `json:"position_embedding_type"`
	ID2Label              map[string]string `json:"id2label"`
	NumLabels             *int              `json:"num_labels"`
}

// ParseConfig reads a config.json. A missing "architectures" means
// BertModel; every other problem is an error naming the field.
func ParseConfig(data []byte) (*Config, error) {
	var r rawConfig
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("bert: config.json: %w", err)
	}
	c := &Config{Architecture: ArchBertModel, TypeVocabSize: 2, LayerNormEps: 1e-12, HiddenAct: nn.ActGELU}
	if len(r.Architectures) > 1 {
		return nil, fmt.Errorf("bert: config.json: architectures %q: want exactly one", r.Architectures)
	}
	if len(r.Architectures) == 1 {
		c.Architecture = r.Architectures[0]
	}
	if c.Architecture != ArchBertModel && c.Architecture != ArchSequenceClassifier {
		return nil, fmt.Errorf("bert: config.json: architecture %q is not supported (want %s or %s)", c.Architecture, ArchBertModel, ArchSequenceClassifier)
	}
	if r.ModelType != nil && *r.ModelType != "bert" {
		return nil, fmt.Errorf("bert: config.json: model_type %q is not \"bert\"", *r.ModelType)
	}
	if r.PositionEmbeddingType != nil && *r.PositionEmbeddingType != "absolute" {
		return nil, fmt.Errorf("bert: config.json: position_embedding_type %q is not supported (want \"absolute\")", *r.PositionEmbeddingType)
	}
	ints := []struct {
		name     string
		v        *int
		dst      *int
		min, max int
	}{
		{"vocab_size", r.VocabSize, &c.VocabSize, 1, maxVocab},
		{"hidden_size", r.HiddenSize, &c.HiddenSize, 1, maxWidth},
		{"num_hidden_layers", r.NumHiddenLayers, &c.NumHiddenLayers, 1, maxLayers},
		{"num_attention_heads", r.NumAttentionHeads, &c.NumAttentionHeads, 1, maxWidth},
		{"intermediate_size", r.IntermediateSize, &c.IntermediateSize, 1, 4 * maxWidth},
		{"max_position_embeddings", r.MaxPositionEmbeddings, &c.MaxPositionEmbeddings, 1, maxVocab},
		{"type_vocab_size", r.TypeVocabSize, &c.TypeVocabSize, 0, maxVocab},
		{"embedding_size", r.EmbeddingSize, &c.EmbeddingSize, 1, maxWidth},
	}
	for _, f := range ints {
		if f.v == nil {
			if f.name == "type_vocab_size" || f.name == "embedding_size" {
				continue // default 2, hidden_size
			}
			return nil, fmt.Errorf("bert: config.json: %s is missing", f.name)
		}
		if *f.v < f.min || *f.v > f.max {
			return nil, fmt.Errorf("bert: config.json: %s = %d is outside [%d, %d]", f.name, *f.v, f.min, f.max)
		}
		*f.dst = *f.v
	}
	if c.EmbeddingSize == c.HiddenSize {
		c.EmbeddingSize = 0 // no projection
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 {
		return nil, fmt.Errorf("bert: config.json: hidden_size %d is not a multiple of num_attention_heads %d", c.HiddenSize, c.NumAttentionHeads)
	}
	if r.HiddenAct != nil {
		act, err := activation(*r.HiddenAct)
		if err != nil {
			return nil, err
		}
		c.HiddenAct = act
	}
	if r.LayerNormEps != nil {
		if !(*r.LayerNormEps > 0 && *r.LayerNormEps < 1) {
			return nil, fmt.Errorf("bert: config.json: layer_norm_eps = %v is outside (0, 1)", *r.LayerNormEps)
		}
		c.LayerNormEps = *r.LayerNormEps
	}
	for _, p := range []struct {
		name string
		v    *float64
		dst  *float64
	}{{"hidden_dropout_prob", r.HiddenDropout, &c.HiddenDropout}, {"attention_probs_dropout_prob", r.AttentionDropout, &c.AttentionDropout}} {
		if p.v == nil {
			continue
		}
		if !(*p.v >= 0 && *p.v < 1) {
			return nil, fmt.Errorf("bert: config.json: %s = %v is outside [0, 1)", p.name, *p.v)
		}
		*p.dst = *p.v
	}
	if err := c.parseLabels(r); err != nil {
		return nil, err
	}
	return c, nil
}

// EmbedWidth is the embeddings' width: EmbeddingSize, or HiddenSize when
// that is 0.
func (c *Config) EmbedWidth() int {
	if c.EmbeddingSize > 0 {
		return c.EmbeddingSize
	}
	return c.HiddenSize
}

// parseLabels takes the label count from id2label (keys "0".."n−1") or
// num_labels; they must agree when both are given.
func (c *Config) parseLabels(r rawConfig) error {
	if len(r.ID2Label) > 0 {
		if len(r.ID2Label) > maxLabels {
			return fmt.Errorf("bert: config.json: id2label has %d labels", len(r.ID2Label))
		}
		for k := range r.ID2Label {
			if i, err := strconv.Atoi(k); err != nil || i < 0 || i >= len(r.ID2Label) {
				return fmt.Errorf("bert: config.json: id2label key %q is not an index below %d", k, len(r.ID2Label))
			}
		}
		c.NumLabels = len(r.ID2Label)
	}
	if r.NumLabels != nil {
		if *r.NumLabels < 1 || *r.NumLabels > maxLabels {
			return fmt.Errorf("bert: config.json: num_labels = %d is outside [1, %d]", *r.NumLabels, maxLabels)
		}
		if c.NumLabels != 0 && c.NumLabels != *r.NumLabels {
			return fmt.Errorf("bert: config.json: num_labels = %d but id2label has %d labels", *r.NumLabels, c.NumLabels)
		}
		c.NumLabels = *r.NumLabels
	}
	return nil
}

// activation maps Hugging Face's hidden_act names.
func activation(name string) (nn.Activation, error) {
	switch name {
	case "gelu":
		return nn.ActGELU, nil
	case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
		return nn.ActGELUTanh, nil
	case "relu":
		return nn.ActReLU, nil
	}
	return 0, fmt.Errorf("bert: config.json: hidden_act %q is not supported (want gelu, gelu_new, gelu_pytorch_tanh or relu)", name)
}

// PoolMode is one way of reducing a sequence's states to a vector.
type PoolMode int

const (
	PoolCLS         PoolMode = iota // the [CLS] (first) state
	PoolMean                        // mean over the sequence's tokens
	PoolMax                         // element-wise maximum over tokens
	PoolMeanSqrtLen                 // sum over tokens / √length
	PoolPooler                      // BERT's pooler: tanh(W·[CLS] + b)
)

// String names the mode.
func (p PoolMode) String() string {
	switch p {
	case PoolCLS:
		return "cls"
	case PoolMean:
		return "mean"
	case PoolMax:
		return "max"
	case PoolMeanSqrtLen:
		return "mean_sqrt_len"
	case PoolPooler:
		return "pooler"
	}
	return fmt.Sprintf("PoolMode(%d)", int(p))
}

// parsePooling reads a sentence-transformers 1_Pooling/config.json. Several
// modes may be on; their vectors are concatenated in sentence-transformers'
// order (cls, max, mean, mean_sqrt_len).
func parsePooling(data []byte) ([]PoolMode, error) {
	var r struct {
		CLS         bool `json:"pooling_mode_cls_token"`
		Mean        bool `json:"pooling_mode_mean_tokens"`
		Max         bool `json:"pooling_mode_max_tokens"`
		MeanSqrtLen bool `json:"pooling_mode_mean_sqrt_len_tokens"`
		Weighted    bool `json:"pooling_mode_weightedmean_tokens"`
		LastToken   bool `json:"pooling_mode_lasttoken"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("bert: 1_Pooling/config.json: %w", err)
	}
	if r.Weighted || r.LastToken {
		return nil, errors.New("bert: 1_Pooling/config.json: weighted-mean and last-token pooling are not supported")
	}
	var modes []PoolMode
	for _, m := range []struct {
		on   bool
		mode PoolMode
	}{{r.CLS, PoolCLS}, {r.Max, PoolMax}, {r.Mean, PoolMean}, {r.MeanSqrtLen, PoolMeanSqrtLen}} {
		if m.on {
			modes = append(modes, m.mode)
		}
	}
	if len(modes) == 0 {
		return nil, errors.New("bert: 1_Pooling/config.json: no pooling mode is on")
	}
	return modes, nil
}
