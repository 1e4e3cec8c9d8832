package bert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text/wordpiece"
)

// Mapped is the encoder of a Hugging Face family that this package's
// Model runs under other tensor and config names, with WordPiece tokens
// (DistilBERT's, ELECTRA's): a BERT Encoder that model files know by the
// family's kind and configuration, so that they are rebuilt by the
// family's own reader.
type Mapped struct {
	*Encoder
	kind    string
	cfgJSON []byte
}

// NewMapped wraps a headless model (the family's weights mapped onto a
// BERT Model), its tokenizer and the checkpoint's head (nil for none) as
// an encoder of the given kind; cfgJSON is the family's config.json, which
// Spec keeps.
func NewMapped(kind string, cfgJSON []byte, m *Model, tok *wordpiece.Tokenizer, head *Head) (*Mapped, error) {
	if m != nil && (m.pooler != nil || m.classifier != nil) {
		return nil, errors.New("bert: a mapped family's head is handed over as a Head, not in the model")
	}
	e, err := NewEncoder(m, tok)
	if err != nil {
		return nil, err
	}
	e.head = head
	return &Mapped{Encoder: e, kind: kind, cfgJSON: cfgJSON}, nil
}

// LoadTokenizer reads a checkpoint folder's WordPiece tokenizer:
// tokenizer.json when present, otherwise vocab.txt.
func LoadTokenizer(dir string) (*wordpiece.Tokenizer, error) {
	for _, name := range []string{"tokenizer.json", "vocab.txt"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return wordpiece.Load(p)
	}
	return nil, fmt.Errorf("%s has neither tokenizer.json nor vocab.txt", dir)
}

// Spec implements encoder.Encoder: the family's kind and config.json, the
// tokenizer's settings and tokens.
func (e *Mapped) Spec() encoder.Spec {
	s := e.Encoder.Spec()
	s.Kind = e.kind
	s.Config, _ = json.Marshal(specConfig{Config: e.cfgJSON, Tokenizer: e.tok.Config()})
	return s
}

// DecodeMapped is the model-file decoder of a mapped family of the given
// kind: parse reads the family's config.json as the equivalent BERT's, and
// the weights are the BERT Model's, checked in total size before anything
// is allocated.
func DecodeMapped(kind string, parse func(configJSON []byte) (*Config, error)) encoder.Decoder {
	return func(spec encoder.Spec, tensors []safetensors.Tensor) (encoder.Encoder[float32], error) {
		var sc specConfig
		if err := json.Unmarshal(spec.Config, &sc); err != nil {
			return nil, fmt.Errorf("configuration: %w", err)
		}
		cfg, err := parse(sc.Config)
		if err != nil {
			return nil, err
		}
		tok, err := wordpiece.New(spec.Vocabulary, sc.Tokenizer)
		if err != nil {
			return nil, err
		}
		if tok.Identity() != spec.Tokenizer {
			return nil, fmt.Errorf("the vocabulary is %s, the configuration says %s: the file is corrupt", tok.Identity(), spec.Tokenizer)
		}
		total := 0
		for _, t := range tensors {
			if strings.HasPrefix(t.Name, encoder.TensorPrefix) {
				total += len(t.Data)
			}
		}
		if want := paramCount(cfg); total != want {
			return nil, fmt.Errorf("the file holds %d encoder values, the %s config.json needs %d", total, kind, want)
		}
		m := skeleton(cfg, nn.NewRNG(0))
		if err := encoder.LoadParams(m.params, encoder.TensorPrefix, tensors); err != nil {
			return nil, err
		}
		e, err := NewMapped(kind, sc.Config, m, tok, nil)
		if err != nil {
			return nil, err
		}
		e.identity = spec.Identity // the pre-trained weights it started from
		return e, nil
	}
}

// FromTensors builds a headless Model of c's sizes from values under the
// Model's own parameter names (embeddings.word_embeddings.weight,
// encoder.layer.N.attn.qkv.weight in nn's [in, out] layout, ...): how a
// mapped family's reader hands over a checkpoint's tensors once it has
// renamed and checked them. Every parameter must be given, at its size.
func FromTensors(c Config, values map[string][]float32) (*Model, error) {
	m, err := New(c, nn.NewRNG(0)) // every value is overwritten
	if err != nil {
		return nil, err
	}
	if len(values) != len(m.params.All()) {
		return nil, fmt.Errorf("bert: %d tensors for a model of %d parameters", len(values), len(m.params.All()))
	}
	var ts []safetensors.Tensor
	for name, data := range values {
		p := m.params.Get(name)
		if p == nil {
			return nil, fmt.Errorf("bert: no parameter %q", name)
		}
		ts = append(ts, safetensors.Tensor{Name: name, Shape: p.Shape(), Data: data})
	}
	if err := encoder.LoadParams(m.params, "", ts); err != nil {
		return nil, fmt.Errorf("bert: %w", err)
	}
	return m, nil
}
