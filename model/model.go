// Package model stores trained rankers. A model file is one safetensors
// file (package safetensors): the weights as float32 tensors, and in its
// metadata, under the key "as2", a JSON Config naming the architecture, its
// hyperparameters, the tokenizer and embeddings it was trained with, and the
// as2 version and file-format version that wrote it.
//
// Architectures (package model/cosinet, ...) register a decoder with
// Register; Read looks the architecture up, checks compatibility, and
// returns a Model, which is a rank.Ranker. Files are written atomically.
package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/google/renameio/v2"

	"github.com/as2/as2/model/safetensors"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
)

// FormatVersion is the model-file format this build writes and the newest
// it reads. Bump it when a change makes old readers misread new files.
const FormatVersion = 1

// Version is the as2 version recorded in the files this build writes.
var Version = "0.1.0-dev"

// MetadataKey is the safetensors metadata key holding the JSON Config.
const MetadataKey = "as2"

// Config describes a model file.
type Config struct {
	Format       int             `json:"format"`          // FormatVersion of the writer
	AS2Version   string          `json:"as2_version"`     // as2 release that wrote the file
	Architecture string          `json:"architecture"`    // e.g. "cosinet"
	Tokenizer    string          `json:"tokenizer"`       // e.g. text.TokenizerID
	Embeddings   string          `json:"embeddings"`      // identity of the word vectors
	Params       int             `json:"params"`          // trainable parameters
	Hyper        json.RawMessage `json:"hyperparameters"` // architecture-specific
	Training     json.RawMessage `json:"training,omitempty"`
	// Vocabulary lists the words of the embeddings tensor, if the model
	// stores one, row by row.
	Vocabulary []string `json:"vocabulary,omitempty"`
}

// CheckTokenizer reports whether the model was trained with this as2's
// tokenizer.
func (c Config) CheckTokenizer() error {
	if c.Tokenizer != text.TokenizerID {
		return fmt.Errorf("trained with tokenizer %q; this as2 has %q", c.Tokenizer, text.TokenizerID)
	}
	return nil
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

// Decoder rebuilds a model of one architecture from its file.
type Decoder func(cfg Config, tensors []safetensors.Tensor) (Model, error)

var (
	mu       sync.RWMutex
	decoders = map[string]Decoder{}
)

// Register makes an architecture readable. It panics on a duplicate name,
// a programming error.
func Register(arch string, d Decoder) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := decoders[arch]; dup {
		panic("model: architecture " + arch + " registered twice")
	}
	decoders[arch] = d
}

// Architectures lists the registered architectures.
func Architectures() []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for a := range decoders {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Write writes m to w.
func Write(w io.Writer, m Model) error {
	cfg := m.Config()
	cfg.Format = FormatVersion
	cfg.AS2Version = Version
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
	var cfg Config
	dec := json.NewDecoder(strings.NewReader(js))
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("model configuration: %w", err)
	}
	if cfg.Format < 1 || cfg.Format > FormatVersion {
		return nil, fmt.Errorf("model file format %d was written by as2 %s; this as2 (%s) reads formats 1 to %d: upgrade as2", cfg.Format, cfg.AS2Version, Version, FormatVersion)
	}
	mu.RLock()
	d, ok := decoders[cfg.Architecture]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("model architecture %q is unknown to this as2 (it knows %s)", cfg.Architecture, strings.Join(Architectures(), ", "))
	}
	m, err := d(cfg, tensors)
	if err != nil {
		return nil, fmt.Errorf("%s model: %w", cfg.Architecture, err)
	}
	return m, nil
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
