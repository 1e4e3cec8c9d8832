package roberta

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/as2/as2/encoder/bert"
)

// Architectures this package reads, by model_type.
var architectures = map[string][]string{
	"roberta":     {"RobertaModel", "RobertaForSequenceClassification"},
	"xlm-roberta": {"XLMRobertaModel", "XLMRobertaForSequenceClassification"},
}

// Config is a RoBERTa-family config.json: the BERT sizes it shares, with
// the position table already past the padding offset.
type Config struct {
	// Architecture is config.json's, e.g. "XLMRobertaForSequenceClassification".
	Architecture string
	ModelType    string // "roberta" or "xlm-roberta"
	// PaddingIdx is pad_token_id: positions count from PaddingIdx + 1, so
	// rows 0..PaddingIdx of position_embeddings are never read.
	PaddingIdx int
	// BERT is the equivalent BERT's config: max_position_embeddings less
	// the PaddingIdx + 1 rows never read.
	BERT bert.Config
}

// Classifier reports whether the architecture has a sequence classifier.
func (c *Config) Classifier() bool {
	return c.Architecture == "RobertaForSequenceClassification" || c.Architecture == "XLMRobertaForSequenceClassification"
}

// ParseConfig reads a RoBERTa or XLM-RoBERTa config.json. The sizes are
// checked as BERT's are (bert.ParseConfig), since the layers are BERT's.
func ParseConfig(data []byte) (*Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("roberta: config.json: %w", err)
	}
	var r struct {
		ModelType     *string  `json:"model_type"`
		Architectures []string `json:"architectures"`
		PadTokenID    *int     `json:"pad_token_id"`
		MaxPositions  *int     `json:"max_position_embeddings"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("roberta: config.json: %w", err)
	}
	if r.ModelType == nil {
		return nil, fmt.Errorf("roberta: config.json: model_type is missing (want %q or %q)", "roberta", "xlm-roberta")
	}
	archs, ok := architectures[*r.ModelType]
	if !ok {
		return nil, fmt.Errorf("roberta: config.json: model_type %q is not supported (want %q or %q)", *r.ModelType, "roberta", "xlm-roberta")
	}
	c := &Config{ModelType: *r.ModelType, Architecture: archs[0], PaddingIdx: 1}
	switch len(r.Architectures) {
	case 0:
	case 1:
		if !slices.Contains(archs, r.Architectures[0]) {
			return nil, fmt.Errorf("roberta: config.json: architecture %q is not supported for model_type %q (want %s or %s)", r.Architectures[0], c.ModelType, archs[0], archs[1])
		}
		c.Architecture = r.Architectures[0]
	default:
		return nil, fmt.Errorf("roberta: config.json: architectures %q: want exactly one", r.Architectures)
	}
	if r.PadTokenID != nil {
		c.PaddingIdx = *r.PadTokenID
	}
	if c.PaddingIdx < 0 || c.PaddingIdx > 1<<20 {
		return nil, fmt.Errorf("roberta: config.json: pad_token_id = %d is out of range", c.PaddingIdx)
	}
	if r.MaxPositions == nil {
		return nil, fmt.Errorf("roberta: config.json: max_position_embeddings is missing")
	}
	usable := *r.MaxPositions - c.PaddingIdx - 1
	if usable < 1 {
		return nil, fmt.Errorf("roberta: config.json: max_position_embeddings = %d leaves no position after pad_token_id %d + 1", *r.MaxPositions, c.PaddingIdx)
	}
	// The rest is BERT's config: hand it to bert.ParseConfig as one.
	bertArch := bert.ArchBertModel
	if c.Classifier() {
		bertArch = bert.ArchSequenceClassifier
	}
	enc := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	raw["architectures"] = enc([]string{bertArch})
	raw["model_type"] = enc("bert")
	raw["max_position_embeddings"] = enc(usable)
	if _, ok := raw["type_vocab_size"]; !ok {
		raw["type_vocab_size"] = enc(1)
	}
	bc, err := bert.ParseConfig(enc(raw))
	if err != nil {
		return nil, fmt.Errorf("roberta: %w", err)
	}
	if c.PaddingIdx >= bc.VocabSize {
		return nil, fmt.Errorf("roberta: config.json: pad_token_id = %d is outside the vocabulary of %d", c.PaddingIdx, bc.VocabSize)
	}
	c.BERT = *bc
	return c, nil
}
