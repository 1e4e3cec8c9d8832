package distilbert

import (
	"encoding/json"
	"fmt"

	"github.com/as2/as2/encoder/bert"
)

// Architectures this package reads.
const (
	ArchModel              = "DistilBertModel"
	ArchSequenceClassifier = "DistilBertForSequenceClassification"
)

// eps is DistilBERT's LayerNorm epsilon, fixed in its code rather than
// configured (the public modeling_distilbert.py's nn.LayerNorm(dim,
// eps=1e-12) in the embeddings and both norms of every layer).
const eps = 1e-12

// Bounds on a config's sizes, as encoder/bert's: generous for any
// DistilBERT, small enough that a hostile config.json cannot ask for
// absurd allocations.
const (
	maxWidth  = 1 << 16
	maxLayers = 1 << 10
	maxVocab  = 1 << 24
)

// Config is a DistilBERT config.json: its architecture and the equivalent
// BERT's config, which runs it.
type Config struct {
	// Architecture is config.json's, e.g. "DistilBertForSequenceClassification".
	Architecture string
	// BERT is the equivalent BERT's config: dim, n_layers, n_heads,
	// hidden_dim and activation under BERT's names, no token types, and
	// DistilBERT's fixed LayerNorm epsilon.
	BERT bert.Config
}

// Classifier reports whether the architecture has a sequence classifier.
func (c *Config) Classifier() bool { return c.Architecture == ArchSequenceClassifier }

// ParseConfig reads a DistilBERT config.json. Every problem is an error
// that names the field as DistilBERT's config names it.
func ParseConfig(data []byte) (*Config, error) {
	var r struct {
		ModelType     *string         `json:"model_type"`
		Architectures []string        `json:"architectures"`
		VocabSize     *int            `json:"vocab_size"`
		Dim           *int            `json:"dim"`
		NLayers       *int            `json:"n_layers"`
		NHeads        *int            `json:"n_heads"`
		HiddenDim     *int            `json:"hidden_dim"`
		MaxPositions  *int            `json:"max_position_embeddings"`
		Activation    *string         `json:"activation"`
		Sinusoidal    *bool           `json:"sinusoidal_pos_embds"`
		Dropout       *float64        `json:"dropout"`
		AttnDropout   *float64        `json:"attention_dropout"`
		ID2Label      json.RawMessage `json:"id2label"`
		NumLabels     json.RawMessage `json:"num_labels"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("distilbert: config.json: %w", err)
	}
	if r.ModelType == nil {
		return nil, fmt.Errorf("distilbert: config.json: model_type is missing (want %q)", "distilbert")
	}
	if *r.ModelType != "distilbert" {
		return nil, fmt.Errorf("distilbert: config.json: model_type %q is not supported (want %q)", *r.ModelType, "distilbert")
	}
	c := &Config{Architecture: ArchModel}
	switch len(r.Architectures) {
	case 0:
	case 1:
		c.Architecture = r.Architectures[0]
		if c.Architecture != ArchModel && c.Architecture != ArchSequenceClassifier {
			return nil, fmt.Errorf("distilbert: config.json: architecture %q is not supported (want %s or %s)", c.Architecture, ArchModel, ArchSequenceClassifier)
		}
	default:
		return nil, fmt.Errorf("distilbert: config.json: architectures %q: want exactly one", r.Architectures)
	}
	// Sinusoidal positions (Vaswani et al. 2017, §3.5) are frozen in
	// DistilBERT; read as a learned table they would drift in fine-tuning.
	if r.Sinusoidal != nil && *r.Sinusoidal {
		return nil, fmt.Errorf("distilbert: config.json: sinusoidal_pos_embds = true is not supported (as2 reads learned position embeddings only)")
	}
	for _, f := range []struct {
		name     string
		v        *int
		min, max int
	}{
		{"vocab_size", r.VocabSize, 1, maxVocab},
		{"dim", r.Dim, 1, maxWidth},
		{"n_layers", r.NLayers, 1, maxLayers},
		{"n_heads", r.NHeads, 1, maxWidth},
		{"hidden_dim", r.HiddenDim, 1, 4 * maxWidth},
		{"max_position_embeddings", r.MaxPositions, 1, maxVocab},
	} {
		if f.v == nil {
			return nil, fmt.Errorf("distilbert: config.json: %s is missing", f.name)
		}
		if *f.v < f.min || *f.v > f.max {
			return nil, fmt.Errorf("distilbert: config.json: %s = %d is outside [%d, %d]", f.name, *f.v, f.min, f.max)
		}
	}
	if *r.Dim%*r.NHeads != 0 {
		return nil, fmt.Errorf("distilbert: config.json: dim %d is not a multiple of n_heads %d", *r.Dim, *r.NHeads)
	}
	act := "gelu" // DistilBertConfig's default
	if r.Activation != nil {
		act = *r.Activation
	}
	switch act {
	case "gelu", "relu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
	default:
		return nil, fmt.Errorf("distilbert: config.json: activation %q is not supported (want gelu, gelu_new, gelu_pytorch_tanh or relu)", act)
	}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"dropout", r.Dropout}, {"attention_dropout", r.AttnDropout}} {
		if p.v != nil && !(*p.v >= 0 && *p.v < 1) {
			return nil, fmt.Errorf("distilbert: config.json: %s = %v is outside [0, 1)", p.name, *p.v)
		}
	}
	// The rest is BERT's config under BERT's names: hand it to
	// bert.ParseConfig as one.
	arch := bert.ArchBertModel
	if c.Classifier() {
		arch = bert.ArchSequenceClassifier
	}
	b := map[string]any{
		"architectures": []string{arch}, "model_type": "bert",
		"vocab_size": *r.VocabSize, "hidden_size": *r.Dim, "num_hidden_layers": *r.NLayers,
		"num_attention_heads": *r.NHeads, "intermediate_size": *r.HiddenDim, "hidden_act": act,
		"max_position_embeddings": *r.MaxPositions, "type_vocab_size": 0, "layer_norm_eps": eps,
	}
	if r.Dropout != nil {
		b["hidden_dropout_prob"] = *r.Dropout
	}
	if r.AttnDropout != nil {
		b["attention_probs_dropout_prob"] = *r.AttnDropout
	}
	if len(r.ID2Label) > 0 {
		b["id2label"] = r.ID2Label
	}
	if len(r.NumLabels) > 0 {
		b["num_labels"] = r.NumLabels
	}
	js, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("distilbert: config.json: %w", err)
	}
	bc, err := bert.ParseConfig(js)
	if err != nil {
		return nil, fmt.Errorf("distilbert: %w", err)
	}
	c.BERT = *bc
	return c, nil
}
