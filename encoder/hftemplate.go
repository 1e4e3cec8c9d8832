package encoder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text/hftokenizer"
)

// HFTemplate is what the tokenizer.json families (RoBERTa, DeBERTa,
// ModernBERT) share between tokens and their model: the post-processor's
// single and pair templates, cut to the model's positions, with ids
// outside the model's vocabulary read as the unknown token.
type HFTemplate struct {
	Tok *hftokenizer.Tokenizer
	// Vocab is the model's vocab_size, TypeVocab its type_vocab_size (0 or
	// 1: no token types), MaxLen the positions it reads.
	Vocab, TypeVocab, MaxLen int
	// Offset is where sequence A starts in the single template.
	Offset int
}

// NewHFTemplate checks that tok fits a model of vocab tokens and that its
// single template has a place for the sequence; family names the errors.
func NewHFTemplate(family string, tok *hftokenizer.Tokenizer, vocab, typeVocab, maxLen int) (*HFTemplate, error) {
	if tok.VocabSize() > vocab {
		return nil, fmt.Errorf("%s: tokenizer.json has %d tokens, the model embeds %d (vocab_size)", family, tok.VocabSize(), vocab)
	}
	single, _ := tok.Single([]int{-1})
	t := &HFTemplate{Tok: tok, Vocab: vocab, TypeVocab: typeVocab, MaxLen: maxLen, Offset: slices.Index(single, -1)}
	if t.Offset < 0 {
		return nil, fmt.Errorf("%s: tokenizer.json: the post-processor's single template has no sequence", family)
	}
	return t, nil
}

// Tokenize is encoder.Encoder's Tokenize: the tokenizer's tokens, cut to
// leave room for the single template's special tokens.
func (t *HFTemplate) Tokenize(s string) Tokens {
	toks, ids := t.Tok.Encode(s)
	n := min(len(ids), max(t.MaxLen-t.Tok.Added(false), 0))
	return Tokens{Text: toks[:n], IDs: ids[:n]}
}

// Clip maps ids outside the vocabulary to the unknown token (or 0, for a
// vocabulary without one).
func (t *HFTemplate) Clip(ids []int) []int {
	unk := max(t.Tok.UnknownID(), 0)
	out := slices.Clone(ids)
	for i, id := range out {
		if id < 0 || id >= t.Vocab {
			out[i] = unk
		}
	}
	return out
}

// Single returns the single template of ids, clipped and cut to MaxLen,
// and the rows [lo, hi) of its states that are ids' own (empty for no
// ids).
func (t *HFTemplate) Single(ids []int) (template []int, lo, hi int) {
	body := t.Clip(ids)
	body = body[:min(len(body), max(t.MaxLen-t.Tok.Added(false), 0))]
	template, _ = t.Tok.Single(body)
	if len(body) == 0 {
		return template, 0, 0
	}
	return template, t.Offset, t.Offset + len(body)
}

// Pair is encoder.PairEncoder's Pair: the tokenizer's pair template,
// truncated longest-first. Token types are given only when the model
// embeds more than one and every type fits.
func (t *HFTemplate) Pair(a, b Tokens) Sequence {
	x, y := t.Clip(a.IDs), t.Clip(b.IDs)
	for len(x)+len(y) > max(t.MaxLen-t.Tok.Added(true), 0) && len(x)+len(y) > 0 {
		if len(x) > len(y) {
			x = x[:len(x)-1]
		} else {
			y = y[:len(y)-1]
		}
	}
	ids, types := t.Tok.Pair(x, y)
	if t.TypeVocab <= 1 || slices.Max(append(types, 0)) >= t.TypeVocab {
		types = nil
	}
	return Sequence{IDs: ids, Types: types}
}

// Empty is the single template of no text, which an empty sequence of a
// batch reads as.
func (t *HFTemplate) Empty() []int {
	ids, _ := t.Tok.Single(nil)
	return ids
}

// hfSpecConfig is Spec.Config of a tokenizer.json family: config.json and
// tokenizer.json as they were (the tokenizer's bytes are its identity).
type hfSpecConfig struct {
	Config    json.RawMessage `json:"config"`
	Tokenizer []byte          `json:"tokenizer"`
}

// HFSpec is the Spec of a tokenizer.json family's encoder.
func HFSpec(kind string, cfgJSON []byte, tok *hftokenizer.Tokenizer, identity string, dim int) Spec {
	js, _ := json.Marshal(hfSpecConfig{Config: cfgJSON, Tokenizer: tok.JSON()})
	return Spec{Kind: kind, Tokenizer: tok.Identity(), Identity: identity, Dim: dim, Config: js}
}

// ParseHFSpec reads back HFSpec's config.json and tokenizer, checking the
// tokenizer against the spec's identity.
func ParseHFSpec(spec Spec) (cfgJSON []byte, tok *hftokenizer.Tokenizer, err error) {
	var sc hfSpecConfig
	if err := json.Unmarshal(spec.Config, &sc); err != nil {
		return nil, nil, fmt.Errorf("configuration: %w", err)
	}
	tok, err = hftokenizer.Parse(sc.Tokenizer)
	if err != nil {
		return nil, nil, err
	}
	if tok.Identity() != spec.Tokenizer {
		return nil, nil, fmt.Errorf("the tokenizer is %s, the configuration says %s: the file is corrupt", tok.Identity(), spec.Tokenizer)
	}
	return sc.Config, tok, nil
}

// EncoderValues counts the encoder's values (TensorPrefix) in a model
// file's tensors, so that a decoder can check them against its
// configuration before allocating anything of that size.
func EncoderValues(tensors []safetensors.Tensor) int {
	total := 0
	for _, t := range tensors {
		if strings.HasPrefix(t.Name, TensorPrefix) {
			total += len(t.Data)
		}
	}
	return total
}

// ReadHFConfig reads a checkpoint folder's config.json through the
// family's parse, returning the bytes (which model files keep) and the
// parsed config.
func ReadHFConfig[C any](dir, family string, parse func([]byte) (C, error)) ([]byte, C, error) {
	var zero C
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, zero, fmt.Errorf("%s: %w", family, err)
	}
	cfg, err := parse(data)
	if err != nil {
		return nil, zero, fmt.Errorf("%w (in %s)", err, dir)
	}
	return data, cfg, nil
}

// LoadHFTokenizer reads a checkpoint folder's tokenizer.json; without one,
// the error says so, followed by hint (the forms the family's checkpoints
// also come in that are not read).
func LoadHFTokenizer(dir, family, hint string) (*hftokenizer.Tokenizer, error) {
	tok, err := hftokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %s has no tokenizer.json%s", family, dir, hint)
	}
	return tok, err
}
