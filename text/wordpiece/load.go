package wordpiece

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/as2/as2/text/jsonerr"
)

// maxLine bounds one vocab.txt line; real tokens are a few bytes, and a
// longer line means the file is not a vocabulary.
const maxLine = 1 << 16

// Load reads a vocab.txt or a Hugging Face tokenizer.json (see [Read]).
func Load(path string) (*Tokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("wordpiece: %w", err)
	}
	defer f.Close()
	t, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Read reads a tokenizer.json when the content starts with "{" and a
// vocab.txt otherwise. A vocab.txt carries no settings: it gets
// [DefaultConfig], except that Lowercase and StripAccents are turned off
// when the vocabulary itself is cased (see [LooksCased]), so that
// bert-base-cased's vocab.txt is not lowercased into [UNK]s.
func Read(r io.Reader) (*Tokenizer, error) {
	br := bufio.NewReader(r)
	// Sniff without consuming: leading blank lines are ids in a vocab.txt.
	head, err := br.Peek(512)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("wordpiece: %w", err)
	}
	if len(head) == 0 {
		return nil, errors.New("wordpiece: empty input")
	}
	if t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return ReadTokenizerJSON(br)
	}
	toks, err := ReadVocab(br)
	if err != nil {
		return nil, err
	}
	c := DefaultConfig()
	if LooksCased(toks) {
		c.Lowercase, c.StripAccents = false, false
	}
	return New(toks, c)
}

// LooksCased reports whether a vocabulary has upper-case word pieces
// (outside bracketed specials such as [CLS]): bert-base-cased has thousands,
// uncased vocabularies have none, because their training text was
// lowercased.
func LooksCased(tokens []string) bool {
	n := 0
	for _, t := range tokens {
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			continue
		}
		for _, r := range t {
			if unicode.IsUpper(r) {
				n++
				break
			}
		}
	}
	// A handful of stray capitals would not make a cased vocabulary.
	return n > 100 && n*100 > len(tokens)
}

// ReadVocab reads vocab.txt: one token a line, the line number (from 0) its
// id. A trailing "\r" is dropped (files edited on Windows), nothing else is
// trimmed, because some vocabularies have tokens with spaces.
func ReadVocab(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var toks []string
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if !utf8.Valid(b) {
			return nil, fmt.Errorf("wordpiece: vocab line %d: invalid UTF-8", line)
		}
		toks = append(toks, string(b))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordpiece: vocab line %d: %w", line+1, err)
	}
	if len(toks) == 0 {
		return nil, errors.New("wordpiece: vocab has no lines")
	}
	return toks, nil
}

// tokenizerJSON is the part of a Hugging Face tokenizer.json this package
// understands.
type tokenizerJSON struct {
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        *struct {
		Type                    string          `json:"type"`
		UnkToken                *string         `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    *int            `json:"max_input_chars_per_word"`
		Vocab                   json.RawMessage `json:"vocab"`
	} `json:"model"`
}

type bertNormalizer struct {
	Type               string `json:"type"`
	CleanText          *bool  `json:"clean_text"`
	HandleChineseChars *bool  `json:"handle_chinese_chars"`
	StripAccents       *bool  `json:"strip_accents"`
	Lowercase          *bool  `json:"lowercase"`
}

// ReadTokenizerJSON reads a Hugging Face tokenizer.json whose model is
// WordPiece, normalizer BertNormalizer (or null) and pre_tokenizer
// BertPreTokenizer. Any other shape is an error naming the field, because
// silently tokenizing differently from the model's training is worse than
// failing.
func ReadTokenizerJSON(r io.Reader) (*Tokenizer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("wordpiece: tokenizer.json: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var tj tokenizerJSON
	if err := json.Unmarshal(data, &tj); err != nil {
		return nil, fmt.Errorf("wordpiece: tokenizer.json: %w", jsonerr.Locate(err))
	}
	m := tj.Model
	if m == nil {
		return nil, errors.New("wordpiece: tokenizer.json: no model")
	}
	// Files written by old tokenizers versions have no model.type.
	if m.Type != "WordPiece" && !(m.Type == "" && m.ContinuingSubwordPrefix != nil) {
		return nil, fmt.Errorf("wordpiece: tokenizer.json: model.type %q is not WordPiece", m.Type)
	}
	c := DefaultConfig()
	if m.UnkToken != nil {
		c.Unknown = *m.UnkToken
	}
	if m.ContinuingSubwordPrefix != nil {
		c.Prefix = *m.ContinuingSubwordPrefix
	}
	if m.MaxInputCharsPerWord != nil {
		c.MaxWordChars = *m.MaxInputCharsPerWord
	}
	if err := readNormalizer(tj.Normalizer, &c); err != nil {
		return nil, err
	}
	if err := checkPreTokenizer(tj.PreTokenizer); err != nil {
		return nil, err
	}
	var vocab map[string]int
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil || vocab == nil {
		if err == nil {
			err = errors.New("missing")
		}
		return nil, fmt.Errorf("wordpiece: tokenizer.json: model.vocab: %w", err)
	}
	if len(vocab) == 0 {
		return nil, errors.New("wordpiece: tokenizer.json: model.vocab is empty")
	}
	// Ids must be dense, 0..n-1: the model's embedding rows are indexed by
	// them, and a gap would mean a token we cannot name.
	toks := make([]string, len(vocab))
	seen := make([]bool, len(vocab))
	for tok, id := range vocab {
		if id < 0 || id >= len(vocab) {
			return nil, fmt.Errorf("wordpiece: tokenizer.json: model.vocab[%q] = %d: ids must be 0..%d", tok, id, len(vocab)-1)
		}
		if seen[id] {
			return nil, fmt.Errorf("wordpiece: tokenizer.json: model.vocab: id %d used twice", id)
		}
		seen[id] = true
		toks[id] = tok
	}
	t, err := New(toks, c)
	if err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	return t, nil
}

func readNormalizer(raw json.RawMessage, c *Config) error {
	if len(raw) == 0 || string(raw) == "null" {
		c.Lowercase, c.StripAccents, c.ChineseChars, c.CleanText = false, false, false, false
		return nil
	}
	var n bertNormalizer
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("wordpiece: tokenizer.json: normalizer: %w", err)
	}
	if n.Type != "BertNormalizer" {
		return fmt.Errorf("wordpiece: tokenizer.json: normalizer.type %q not supported (want BertNormalizer)", n.Type)
	}
	// Missing fields take Hugging Face's defaults (all true, strip_accents
	// following lowercase).
	get := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	c.CleanText = get(n.CleanText, true)
	c.ChineseChars = get(n.HandleChineseChars, true)
	c.Lowercase = get(n.Lowercase, true)
	c.StripAccents = get(n.StripAccents, c.Lowercase)
	return nil
}

func checkPreTokenizer(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return errors.New("wordpiece: tokenizer.json: pre_tokenizer is null (want BertPreTokenizer)")
	}
	var p struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("wordpiece: tokenizer.json: pre_tokenizer: %w", err)
	}
	if p.Type != "BertPreTokenizer" {
		return fmt.Errorf("wordpiece: tokenizer.json: pre_tokenizer.type %q not supported (want BertPreTokenizer)", p.Type)
	}
	return nil
}
