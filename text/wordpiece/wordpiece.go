package wordpiece

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Config holds the BasicTokenizer and WordPiece settings. The zero value is
// not useful; start from [DefaultConfig].
type Config struct {
	Lowercase    bool   // lowercase (Python str.lower) before splitting
	StripAccents bool   // NFD and drop Mn; BERT ties it to Lowercase
	ChineseChars bool   // put spaces around CJK ideographs
	CleanText    bool   // drop controls, U+0000, U+FFFD; map white space to ' '
	Unknown      string // token for words that cannot be segmented
	Prefix       string // continuation prefix, "##" in BERT
	MaxWordChars int    // longer words (in runes) become Unknown
}

// DefaultConfig is BERT uncased: bert-base-uncased's settings.
func DefaultConfig() Config {
	return Config{
		Lowercase:    true,
		StripAccents: true,
		ChineseChars: true,
		CleanText:    true,
		Unknown:      "[UNK]",
		Prefix:       "##",
		MaxWordChars: 100,
	}
}

// Tokenizer is a BERT WordPiece tokenizer. It is safe for concurrent use.
type Tokenizer struct {
	vocab  map[string]int
	tokens []string // id → token; for duplicated tokens the last id wins in vocab

	lower, strip, chinese, clean bool
	unk                          string
	unkID                        int
	prefix                       string
	maxChars                     int

	cls, sep, pad, mask int // -1 when the vocabulary lacks them
	identity            string
}

// New builds a tokenizer over tokens, where a token's index is its id.
func New(tokens []string, c Config) (*Tokenizer, error) {
	if len(tokens) == 0 {
		return nil, errors.New("wordpiece: empty vocabulary")
	}
	if c.MaxWordChars <= 0 {
		return nil, fmt.Errorf("wordpiece: max_input_chars_per_word %d must be positive", c.MaxWordChars)
	}
	t := &Tokenizer{
		vocab:    make(map[string]int, len(tokens)),
		tokens:   tokens,
		lower:    c.Lowercase,
		strip:    c.StripAccents,
		chinese:  c.ChineseChars,
		clean:    c.CleanText,
		unk:      c.Unknown,
		prefix:   c.Prefix,
		maxChars: c.MaxWordChars,
	}
	h := sha256.New()
	for i, tok := range tokens {
		if !utf8.ValidString(tok) {
			return nil, fmt.Errorf("wordpiece: token %d is not valid UTF-8", i)
		}
		// Later duplicates win, as in both Python dict-based loaders.
		t.vocab[tok] = i
		h.Write([]byte(tok))
		h.Write([]byte{'\n'})
	}
	id, ok := t.vocab[c.Unknown]
	if !ok {
		return nil, fmt.Errorf("wordpiece: unknown token %q is not in the vocabulary", c.Unknown)
	}
	t.unkID = id
	t.cls, t.sep, t.pad, t.mask = t.idOr("[CLS]"), t.idOr("[SEP]"), t.idOr("[PAD]"), t.idOr("[MASK]")
	flags := "cased"
	if c.Lowercase {
		flags = "uncased"
	}
	if c.StripAccents != c.Lowercase {
		flags += fmt.Sprintf("-strip=%t", c.StripAccents)
	}
	// The hash covers the tokens in id order, so two vocabularies share an
	// identity exactly when they map every token to the same id.
	t.identity = "wordpiece:" + hex.EncodeToString(h.Sum(nil))[:12] + ":" + flags
	if c.Prefix != "##" || c.Unknown != "[UNK]" || c.MaxWordChars != 100 || !c.ChineseChars || !c.CleanText {
		t.identity += fmt.Sprintf(":%q:%q:%d:%t:%t", c.Prefix, c.Unknown, c.MaxWordChars, c.ChineseChars, c.CleanText)
	}
	return t, nil
}

func (t *Tokenizer) idOr(tok string) int {
	if id, ok := t.vocab[tok]; ok {
		return id
	}
	return -1
}

// Identity names the vocabulary and casing, e.g.
// "wordpiece:3f2a…:uncased", for model files to record and check.
func (t *Tokenizer) Identity() string { return t.identity }

// VocabSize is the number of ids (lines of vocab.txt).
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// ID returns a token's id.
func (t *Tokenizer) ID(token string) (int, bool) {
	id, ok := t.vocab[token]
	return id, ok
}

// Token returns the token with id, or "" and false when out of range.
func (t *Tokenizer) Token(id int) (string, bool) {
	if id < 0 || id >= len(t.tokens) {
		return "", false
	}
	return t.tokens[id], true
}

// Special token ids; -1 when the vocabulary lacks the token.
func (t *Tokenizer) UnknownID() int { return t.unkID }
func (t *Tokenizer) CLSID() int     { return t.cls }
func (t *Tokenizer) SEPID() int     { return t.sep }
func (t *Tokenizer) PadID() int     { return t.pad }
func (t *Tokenizer) MaskID() int    { return t.mask }

// Lowercase reports whether the tokenizer lowercases its input.
func (t *Tokenizer) Lowercase() bool { return t.lower }

// Config returns the settings the tokenizer was built with, so that New
// over the same tokens rebuilds it (model files keep both).
func (t *Tokenizer) Config() Config {
	return Config{Lowercase: t.lower, StripAccents: t.strip, ChineseChars: t.chinese, CleanText: t.clean, Unknown: t.unk, Prefix: t.prefix, MaxWordChars: t.maxChars}
}

// TokenIDs returns the tokens of s and their ids, in one pass.
func (t *Tokenizer) TokenIDs(s string) (tokens []string, ids []int) {
	t.each(s, func(tok string, id int) {
		tokens = append(tokens, tok)
		ids = append(ids, id)
	})
	return tokens, ids
}

// Tokenize returns the WordPiece tokens of s, without [CLS]/[SEP].
func (t *Tokenizer) Tokenize(s string) []string {
	var out []string
	t.each(s, func(tok string, _ int) { out = append(out, tok) })
	return out
}

// IDs returns the ids of Tokenize(s).
func (t *Tokenizer) IDs(s string) []int {
	var out []int
	t.each(s, func(_ string, id int) { out = append(out, id) })
	return out
}

// Encode returns [CLS] IDs(s) [SEP], with IDs(s) cut so that the whole fits
// in maxLen ids; maxLen <= 0 means no limit. A vocabulary without [CLS] or
// [SEP] gets no such ids (and they take no room).
func (t *Tokenizer) Encode(s string, maxLen int) []int {
	ids := t.IDs(s)
	if maxLen > 0 {
		room := maxLen - t.specials(2)
		if room < 0 {
			room = 0
		}
		if len(ids) > room {
			ids = ids[:room]
		}
	}
	out := make([]int, 0, len(ids)+2)
	out = t.appendSpecial(out, t.cls)
	out = append(out, ids...)
	return t.appendSpecial(out, t.sep)
}

// EncodePair is BERT's sentence-pair input: [CLS] a [SEP] b [SEP], with
// token type 0 up to the first [SEP] and 1 after it. When maxLen > 0 the
// pair is truncated longest-first one token at a time, taking from b when
// the two are equally long (BERT's _truncate_seq_pair and Hugging Face's
// slow tokenizers).
func (t *Tokenizer) EncodePair(a, b string, maxLen int) (ids, typeIDs []int) {
	x, y := t.IDs(a), t.IDs(b)
	if maxLen > 0 {
		room := maxLen - t.specials(3)
		if room < 0 {
			room = 0
		}
		for len(x)+len(y) > room {
			if len(x) > len(y) {
				x = x[:len(x)-1]
			} else {
				y = y[:len(y)-1]
			}
		}
	}
	ids = make([]int, 0, len(x)+len(y)+3)
	ids = t.appendSpecial(ids, t.cls)
	ids = append(ids, x...)
	ids = t.appendSpecial(ids, t.sep)
	n := len(ids)
	ids = append(ids, y...)
	ids = t.appendSpecial(ids, t.sep)
	typeIDs = make([]int, len(ids))
	for i := n; i < len(ids); i++ {
		typeIDs[i] = 1
	}
	return ids, typeIDs
}

func (t *Tokenizer) appendSpecial(ids []int, id int) []int {
	if id < 0 {
		return ids
	}
	return append(ids, id)
}

// specials counts the special ids a sequence with n separators/classifiers
// uses: n-1 [SEP] plus one [CLS] when present.
func (t *Tokenizer) specials(n int) int {
	c := 0
	if t.cls >= 0 {
		c++
	}
	if t.sep >= 0 {
		c += n - 1
	}
	return c
}

// each runs the whole pipeline and calls f for every token with its id.
func (t *Tokenizer) each(s string, f func(string, int)) {
	var buf []byte
	t.basicWords(s, func(w string) {
		buf = t.wordpiece(w, buf, f)
	})
}

// wordpiece is greedy longest-match-first segmentation of one word; a word
// with any unmatched remainder becomes a single unknown token. buf is
// scratch space for the prefixed candidates, returned for reuse.
func (t *Tokenizer) wordpiece(w string, buf []byte, f func(string, int)) []byte {
	if utf8.RuneCountInString(w) > t.maxChars {
		f(t.unk, t.unkID)
		return buf
	}
	type piece struct {
		tok string
		id  int
	}
	var small [16]piece
	pieces := small[:0]
	for start := 0; start < len(w); {
		found := false
		for end := len(w); end > start; {
			var id int
			var ok bool
			if start == 0 {
				id, ok = t.vocab[w[:end]]
			} else {
				buf = append(append(buf[:0], t.prefix...), w[start:end]...)
				id, ok = t.vocab[string(buf)] // no allocation for a map lookup
			}
			if ok {
				pieces = append(pieces, piece{t.tokens[id], id})
				start = end
				found = true
				break
			}
			// Step back one rune.
			_, n := utf8.DecodeLastRuneInString(w[start:end])
			end -= n
		}
		if !found {
			f(t.unk, t.unkID)
			return buf
		}
	}
	for _, p := range pieces {
		f(p.tok, p.id)
	}
	return buf
}
