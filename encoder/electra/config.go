package electra

import (
	"encoding/json"
	"fmt"

	"github.com/as2/as2/encoder/bert"
)

// Architectures this package reads.
const (
	ArchModel              = "ElectraModel"
	ArchSequenceClassifier = "ElectraForSequenceClassification"
)

// defaultEmbeddingSize is ElectraConfig's embedding_size when config.json
// names none.
const defaultEmbeddingSize = 128

// Config is an ELECTRA config.json: its architecture and the equivalent
// BERT's config, which runs it.
type Config struct {
	// Architecture is config.json's, e.g. "ElectraForSequenceClassification".
	Architecture string
	// BERT is the equivalent BERT's config; its EmbeddingSize is
	// embedding_size when that differs from hidden_size.
	BERT bert.Config
}

// Classifier reports whether the architecture has a sequence classifier.
func (c *Config) Classifier() bool { return c.Architecture == ArchSequenceClassifier }

// ParseConfig reads an ELECTRA config.json. Its fields are BERT's, plus
// embedding_size, and are checked as BERT's are (bert.ParseConfig).
func ParseConfig(data []byte) (*Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("electra: config.json: %w", err)
	}
	var r struct {
		ModelType     *string  `json:"model_type"`
		Architectures []string `json:"architectures"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("electra: config.json: %w", err)
	}
	if r.ModelType == nil {
		return nil, fmt.Errorf("electra: config.json: model_type is missing (want %q)", "electra")
	}
	if *r.ModelType != "electra" {
		return nil, fmt.Errorf("electra: config.json: model_type %q is not supported (want %q)", *r.ModelType, "electra")
	}
	c := &Config{Architecture: ArchModel}
	switch len(r.Architectures) {
	case 0:
	case 1:
		c.Architecture = r.Architectures[0]
		if c.Architecture != ArchModel && c.Architecture != ArchSequenceClassifier {
			return nil, fmt.Errorf("electra: config.json: architecture %q is not supported (want %s or %s)", c.Architecture, ArchModel, ArchSequenceClassifier)
		}
	default:
		return nil, fmt.Errorf("electra: config.json: architectures %q: want exactly one", r.Architectures)
	}
	// The rest is BERT's config: hand it to bert.ParseConfig as one.
	arch := bert.ArchBertModel
	if c.Classifier() {
		arch = bert.ArchSequenceClassifier
	}
	enc := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	raw["architectures"] = enc([]string{arch})
	raw["model_type"] = enc("bert")
	if v, ok := raw["embedding_size"]; !ok || string(v) == "null" {
		raw["embedding_size"] = enc(defaultEmbeddingSize)
	}
	bc, err := bert.ParseConfig(enc(raw))
	if err != nil {
		return nil, fmt.Errorf("electra: %w", err)
	}
	c.BERT = *bc
	return c, nil
}
