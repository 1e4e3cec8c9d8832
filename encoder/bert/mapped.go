package bert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// LoadMapped reads a mapped family's checkpoint folder: config.json
// through parse, the WordPiece tokenizer (LoadTokenizer), model.safetensors
// through build (the family's tensor names onto a Model and a Head) and,
// for sentence-transformers models, modules.json and
// 1_Pooling/config.json. It returns the encoder and the parsed config.
func LoadMapped[C any](dir, kind string, parse func([]byte) (C, error), build func(C, []safetensors.Tensor) (*Model, *Head, error)) (*Mapped, C, error) {
	var zero C
	cfgData, cfg, err := encoder.ReadHFConfig(dir, kind, parse)
	if err != nil {
		return nil, zero, err
	}
	tok, err := LoadTokenizer(dir)
	if err != nil {
		return nil, zero, fmt.Errorf("%s: %w", kind, err)
	}
	tensors, err := encoder.ReadHFSafetensors(dir, kind)
	if err != nil {
		return nil, zero, err
	}
	m, head, err := build(cfg, tensors)
	if err != nil {
		return nil, zero, fmt.Errorf("%w (in %s)", err, dir)
	}
	if err := m.ReadPooling(dir); err != nil {
		return nil, zero, err
	}
	me, err := NewMapped(kind, cfgData, m, tok, head)
	if err != nil {
		return nil, zero, fmt.Errorf("%s: %w", kind, err)
	}
	return me, cfg, nil
}

// ReadHead reads a sequence classifier's head outside the family's
// prefix, named by its dense layer (dense, [H, H]) and its classifier
// (out, [num_labels, H]), as a Head with activation act. arch names the
// architecture in the error for a missing head; numLabels is config.json's
// num_labels (0: any), set to the classifier's rows.
func ReadHead(src *encoder.HFTensors, h int, numLabels *int, arch, dense, out, act string) (*Head, error) {
	n, err := HeadLabels(src, h, *numLabels, arch, out+".weight")
	if err != nil {
		return nil, err
	}
	top := &encoder.HFTensors{ByName: src.ByName, Family: src.Family}
	dw, db := top.Get(dense+".weight", h, h), top.Get(dense+".bias", h)
	ow, ob := top.Get(out+".weight", n, h), top.Get(out+".bias", n)
	if len(top.Errs) > 0 {
		return nil, top.Errs[0]
	}
	*numLabels = n
	return &Head{
		PoolerW: nn.FromSlice(encoder.Transpose(dw, h, h), h, h), PoolerB: nn.FromSlice(slices.Clone(db), h),
		ClassifierW: nn.FromSlice(encoder.Transpose(ow, n, h), h, n), ClassifierB: nn.FromSlice(slices.Clone(ob), n),
		Act: act,
	}, nil
}

// HeadLabels returns the number of labels of a sequence classifier's
// head from its classifier weight (name, [num_labels, H], outside the
// family's prefix), checked against config.json's num_labels (0: any).
func HeadLabels(src *encoder.HFTensors, h, numLabels int, arch, name string) (int, error) {
	ct, ok := src.ByName[name]
	if !ok {
		return 0, fmt.Errorf(`%s: model.safetensors: missing tensor %q (a %s has a classification head)`, src.Family, name, arch)
	}
	if len(ct.Shape) != 2 || ct.Shape[1] != h || ct.Shape[0] < 1 || ct.Shape[0] > 1<<16 {
		return 0, fmt.Errorf(`%s: model.safetensors: tensor %q has shape %v, want [num_labels %d]`, src.Family, name, ct.Shape, h)
	}
	n := ct.Shape[0]
	if numLabels != 0 && n != numLabels {
		return 0, fmt.Errorf(`%s: model.safetensors: tensor %q has %d rows but config.json has %d labels`, src.Family, name, n, numLabels)
	}
	return n, nil
}
