package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/google/renameio/v2"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model/safetensors"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/version"
)

// FormatVersion is the model-file format this build writes and the newest
// it reads. Bump it when a change makes old readers misread new files.
// Format 2 records the encoder generally (Config.Encoder); format 1 files,
// whose static vectors were described by top-level fields, are converted
// on reading.
const FormatVersion = 2

// MetadataKey is the safetensors metadata key holding the JSON Config.
const MetadataKey = "as2"

// Config describes a model file.
type Config struct {
	Format       int             `json:"format"`          // FormatVersion of the writer
	AS2Version   string          `json:"as2_version"`     // as2 release that wrote the file
	Architecture string          `json:"architecture"`    // e.g. "cosinet"
	Encoder      encoder.Spec    `json:"encoder"`         // tokenizer and token states
	Params       int             `json:"params"`          // trainable parameters
	Hyper        json.RawMessage `json:"hyperparameters"` // architecture-specific
	Training     json.RawMessage `json:"training,omitempty"`
}

// configV1 holds the fields by which format 1 described its static word
// vectors, before the encoder had a spec of its own.
type configV1 struct {
	Tokenizer  string   `json:"tokenizer"`
	Embeddings string   `json:"embeddings"`
	Vocabulary []string `json:"vocabulary"`
}

// Model is a trained ranker that can be saved.
type Model interface {
	rank.Ranker
	// Config returns the model's configuration (Format and AS2Version are
	// filled in by Write).
	Config() Config
	// Tensors returns every tensor needed to rebuild the model.
	Tensors() []safetensors.Tensor
}

// Write writes m to w.
func Write(w io.Writer, m Model) error {
	cfg := m.Config()
	cfg.Format = FormatVersion
	cfg.AS2Version = version.String()
	js, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	return safetensors.Write(w, m.Tensors(), map[string]string{MetadataKey: string(js)})
}

// Read reads a model from r.
func Read(r io.Reader) (Model, error) {
	tensors, meta, err := safetensors.Read(r)
	if err != nil {
		return nil, err
	}
	js, ok := meta[MetadataKey]
	if !ok {
		return nil, errors.New("not an as2 model: the safetensors metadata has no \"as2\" configuration")
	}
	cfg, err := parseConfig(js)
	if err != nil {
		return nil, err
	}
	a, err := Lookup(cfg.Architecture)
	if err != nil {
		return nil, fmt.Errorf("model %w", err)
	}
	m, err := a.decode(cfg, tensors)
	if err != nil {
		return nil, fmt.Errorf("%s model: %w", cfg.Architecture, err)
	}
	return m, nil
}

// parseConfig reads a file's configuration, converting format 1.
func parseConfig(js string) (Config, error) {
	var cfg Config
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		return cfg, fmt.Errorf("model configuration: %w", err)
	}
	if cfg.Format < 1 || cfg.Format > FormatVersion {
		return cfg, fmt.Errorf("model file format %d was written by as2 %s; this as2 (%s) reads formats 1 to %d: upgrade as2", cfg.Format, cfg.AS2Version, version.String(), FormatVersion)
	}
	if cfg.Format == 1 {
		var v1 configV1
		if err := json.Unmarshal([]byte(js), &v1); err != nil {
			return cfg, fmt.Errorf("model configuration (format 1): %w", err)
		}
		cfg.Encoder = encoder.Spec{Kind: encoder.StaticKind, Tokenizer: v1.Tokenizer, Identity: v1.Embeddings, Vocabulary: v1.Vocabulary}
	}
	return cfg, nil
}

// Save writes m to path atomically: the file appears whole or not at all.
func Save(path string, m Model) error {
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		return err
	}
	return renameio.WriteFile(path, buf.Bytes(), 0o644)
}

// Load reads the model file at path.
func Load(path string) (Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Tensor returns the tensor called name with the given shape, or an error
// naming what is missing or wrong: for decoders.
func Tensor(tensors []safetensors.Tensor, name string, shape ...int) ([]float32, error) {
	for _, t := range tensors {
		if t.Name != name {
			continue
		}
		if fmt.Sprint(t.Shape) != fmt.Sprint(shape) {
			return nil, fmt.Errorf("tensor %q has shape %v, want %v", name, t.Shape, shape)
		}
		return t.Data, nil
	}
	return nil, fmt.Errorf("tensor %q is missing", name)
}
