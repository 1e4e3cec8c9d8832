// Package hftokenizer reads a Hugging Face tokenizer.json whose model is
// byte-level BPE (RoBERTa, GPT-2, ModernBERT) or Unigram (XLM-RoBERTa's
// SentencePiece vocabulary), with the added (special) tokens, normalizer,
// pre-tokenizer and post-processor the file declares: the special tokens
// and the single and pair templates a model's input is built with.
//
// The Unigram model is text/sentencepiece's (its ReadTokenizerJSON already
// reads that form), and so is the reader of a BPE file's normalizer
// (sentencepiece.HFNormalizer); BPE is text/bpe. Anything the file declares that is not
// implemented is an error naming the field, never a silent difference.
package hftokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"

	"github.com/as2/as2/text/bpe"
	"github.com/as2/as2/text/jsonerr"
	"github.com/as2/as2/text/sentencepiece"
)

// maxTokens bounds a vocabulary, so that a hostile file cannot ask for
// absurd allocations.
const maxTokens = 1 << 24

// Tokenizer is a tokenizer.json's tokenizer.
type Tokenizer struct {
	encode   func(s string, toks []string, ids []int) ([]string, []int)
	added    []added // longest content first
	tokens   []string
	ids      map[string]int
	unk      int
	single   []item
	pair     []item
	raw      []byte
	identity string
	kind     string
}

type added struct {
	content        string
	id             int
	lstrip, rstrip bool
}

// item is one element of a post-processor template: a special token's ids,
// or sequence 0 (A) or 1 (B), with its token type.
type item struct {
	special []int
	seq     int // -1 for a special token
	typ     int
}

// Load reads a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("hftokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

type file struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		LStrip  bool   `json:"lstrip"`
		RStrip  bool   `json:"rstrip"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Model         *struct {
		Type                    string          `json:"type"`
		Vocab                   json.RawMessage `json:"vocab"`
		Merges                  json.RawMessage `json:"merges"`
		UnkToken                *string         `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
		ByteFallback            bool            `json:"byte_fallback"`
		Dropout                 *float64        `json:"dropout"`
	} `json:"model"`
}

// Parse reads a tokenizer.json's bytes.
func Parse(data []byte) (*Tokenizer, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("hftokenizer: tokenizer.json: %w", jsonerr.Locate(err))
	}
	if f.Model == nil {
		return nil, errors.New("hftokenizer: tokenizer.json: no model")
	}
	sum := sha256.Sum256(data)
	t := &Tokenizer{ids: map[string]int{}, unk: -1, raw: data, kind: f.Model.Type}
	t.identity = "hf-" + strings.ToLower(f.Model.Type) + ":" + hex.EncodeToString(sum[:])[:12]
	var err error
	switch f.Model.Type {
	case "BPE":
		err = t.readBPE(&f)
	case "Unigram":
		err = t.readUnigram(data)
	default:
		err = fmt.Errorf("model.type %q is not supported (want BPE or Unigram)", f.Model.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("hftokenizer: tokenizer.json: %w", err)
	}
	limit := len(t.tokens) + len(f.AddedTokens)
	for i, a := range f.AddedTokens {
		if a.ID < 0 || a.ID >= limit || a.Content == "" {
			return nil, fmt.Errorf("hftokenizer: tokenizer.json: added_tokens[%d]: id %d, content %q", i, a.ID, a.Content)
		}
		t.setToken(a.ID, a.Content)
		t.added = append(t.added, added{content: a.Content, id: a.ID, lstrip: a.LStrip, rstrip: a.RStrip})
	}
	sort.SliceStable(t.added, func(i, j int) bool { return len(t.added[i].content) > len(t.added[j].content) })
	if id, ok := t.ids["<unk>"]; ok && t.unk < 0 {
		t.unk = id
	}
	if err := t.readPost(f.PostProcessor); err != nil {
		return nil, fmt.Errorf("hftokenizer: tokenizer.json: post_processor: %w", err)
	}
	return t, nil
}

func (t *Tokenizer) setToken(id int, tok string) {
	for len(t.tokens) <= id {
		t.tokens = append(t.tokens, "")
	}
	t.tokens[id] = tok
	if _, ok := t.ids[tok]; !ok {
		t.ids[tok] = id
	}
}

func (t *Tokenizer) readBPE(f *file) error {
	m := f.Model
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("model.dropout %v: BPE dropout is for training, not supported", *m.Dropout)
	}
	if (m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "") || (m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "") {
		return errors.New("model: continuing_subword_prefix and end_of_word_suffix are not supported")
	}
	if m.ByteFallback {
		return errors.New("model.byte_fallback is not supported for BPE")
	}
	var vocab map[string]int
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil {
		return fmt.Errorf("model.vocab: %w", jsonerr.Locate(err))
	}
	if len(vocab) == 0 || len(vocab) > maxTokens {
		return fmt.Errorf("model.vocab has %d tokens", len(vocab))
	}
	// Ids are dense in real files; added tokens may follow the vocabulary.
	limit := len(vocab) + len(f.AddedTokens)
	for tok, id := range vocab {
		if id < 0 || id >= limit {
			return fmt.Errorf("model.vocab: %q has id %d, outside [0, %d)", tok, id, limit)
		}
		t.setToken(id, tok)
	}
	// Merges are "a b" strings in older files, [a, b] pairs in newer ones.
	var raw []json.RawMessage
	if len(m.Merges) > 0 && string(m.Merges) != "null" {
		if err := json.Unmarshal(m.Merges, &raw); err != nil {
			return fmt.Errorf("model.merges: %w", jsonerr.Locate(err))
		}
	}
	merges := make([][2]string, len(raw))
	for i, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return fmt.Errorf("model.merges[%d] %q: want two tokens", i, s)
			}
			merges[i] = [2]string{a, b}
			continue
		}
		var p []string
		if err := json.Unmarshal(r, &p); err != nil || len(p) != 2 {
			return fmt.Errorf("model.merges[%d]: want \"a b\" or [a, b]", i)
		}
		merges[i] = [2]string{p[0], p[1]}
	}
	unk := ""
	if m.UnkToken != nil {
		unk = *m.UnkToken
	}
	model, err := bpe.New(vocab, merges, unk)
	if err != nil {
		return err
	}
	if unk != "" {
		t.unk = vocab[unk]
	}
	normalize, err := sentencepiece.HFNormalizer(f.Normalizer, "normalizer")
	if err != nil {
		return err
	}
	split, prefix, err := byteLevel(f.PreTokenizer)
	if err != nil {
		return err
	}
	t.encode = func(s string, toks []string, ids []int) ([]string, []int) {
		if normalize != nil {
			s = normalize(s)
		}
		if prefix && s != "" && s[0] != ' ' {
			s = " " + s
		}
		words := []string{s}
		if split {
			words = bpe.Split(s)
		}
		for _, w := range words {
			toks, ids = model.Word(bpe.ByteLevel(w), toks, ids)
		}
		return toks, ids
	}
	return nil
}

type step struct {
	Type           string            `json:"type"`
	Pretokenizers  []json.RawMessage `json:"pretokenizers"`
	AddPrefixSpace *bool             `json:"add_prefix_space"`
	UseRegex       *bool             `json:"use_regex"`
}

// byteLevel reads a BPE file's pre-tokenizer: ByteLevel, alone or in a
// Sequence; it reports whether to split by GPT-2's pattern and whether to
// add a leading space.
func byteLevel(raw json.RawMessage) (split, prefix bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return false, false, errors.New("pre_tokenizer is null: only byte-level BPE (pre_tokenizer ByteLevel) is supported")
	}
	var st step
	if err := json.Unmarshal(raw, &st); err != nil {
		return false, false, fmt.Errorf("pre_tokenizer: %w", jsonerr.Locate(err))
	}
	if st.Type == "Sequence" && len(st.Pretokenizers) == 1 {
		return byteLevel(st.Pretokenizers[0])
	}
	if st.Type != "ByteLevel" {
		return false, false, fmt.Errorf("pre_tokenizer.type %q is not supported (want ByteLevel)", st.Type)
	}
	split = st.UseRegex == nil || *st.UseRegex
	prefix = st.AddPrefixSpace != nil && *st.AddPrefixSpace
	return split, prefix, nil
}

func (t *Tokenizer) readUnigram(data []byte) error {
	sp, err := sentencepiece.ReadTokenizerJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if sp.VocabSize() > maxTokens {
		return fmt.Errorf("model.vocab has %d pieces", sp.VocabSize())
	}
	for id := 0; id < sp.VocabSize(); id++ {
		p, _ := sp.Piece(id)
		t.setToken(id, p.Text)
	}
	t.unk = sp.UnknownID()
	t.encode = func(s string, toks []string, ids []int) ([]string, []int) {
		for _, id := range sp.Encode(s) {
			p, _ := sp.Piece(id)
			toks, ids = append(toks, p.Text), append(ids, id)
		}
		return toks, ids
	}
	return nil
}

type templateItem struct {
	SpecialToken *struct {
		ID     string `json:"id"`
		TypeID int    `json:"type_id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID     string `json:"id"`
		TypeID int    `json:"type_id"`
	} `json:"Sequence"`
}

type postProcessor struct {
	Type          string            `json:"type"`
	Sep           []json.RawMessage `json:"sep"`
	Cls           []json.RawMessage `json:"cls"`
	Single        []templateItem    `json:"single"`
	Pair          []templateItem    `json:"pair"`
	Processors    []json.RawMessage `json:"processors"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
}

// readPost reads the post-processor into the single and pair templates.
func (t *Tokenizer) readPost(raw json.RawMessage) error {
	seqA, seqB := item{seq: 0}, item{seq: 1}
	if len(raw) == 0 || string(raw) == "null" {
		t.single, t.pair = []item{seqA}, []item{seqA, seqB}
		return nil
	}
	var p postProcessor
	if err := json.Unmarshal(raw, &p); err != nil {
		return jsonerr.Locate(err)
	}
	special := func(name string, v []json.RawMessage) (item, error) {
		var tok string
		var id int
		if len(v) != 2 || json.Unmarshal(v[0], &tok) != nil || json.Unmarshal(v[1], &id) != nil {
			return item{}, fmt.Errorf("%s: want [token, id]", name)
		}
		if id < 0 || id >= len(t.tokens) {
			return item{}, fmt.Errorf("%s: id %d is outside the vocabulary of %d", name, id, len(t.tokens))
		}
		return item{special: []int{id}, seq: -1}, nil
	}
	switch p.Type {
	case "ByteLevel": // offsets only
		t.single, t.pair = []item{seqA}, []item{seqA, seqB}
		return nil
	case "Sequence":
		found := false
		for i, q := range p.Processors {
			var st step
			if err := json.Unmarshal(q, &st); err != nil {
				return fmt.Errorf("processors[%d]: %w", i, jsonerr.Locate(err))
			}
			if st.Type == "ByteLevel" {
				continue
			}
			if found {
				return errors.New("more than one processor adds special tokens")
			}
			if err := t.readPost(q); err != nil {
				return fmt.Errorf("processors[%d]: %w", i, err)
			}
			found = true
		}
		if !found {
			t.single, t.pair = []item{seqA}, []item{seqA, seqB}
		}
		return nil
	case "RobertaProcessing", "BertProcessing":
		cls, err := special("cls", p.Cls)
		if err != nil {
			return err
		}
		sep, err := special("sep", p.Sep)
		if err != nil {
			return err
		}
		t.single = []item{cls, seqA, sep}
		if p.Type == "RobertaProcessing" {
			// <s> A </s></s> B </s>: RoBERTa reads no token types.
			t.pair = []item{cls, seqA, sep, sep, seqB, sep}
		} else {
			b, sepB := seqB, sep
			b.typ, sepB.typ = 1, 1
			t.pair = []item{cls, seqA, sep, b, sepB}
		}
		return nil
	case "TemplateProcessing":
		conv := func(name string, its []templateItem) ([]item, error) {
			var out []item
			for i, it := range its {
				switch {
				case it.SpecialToken != nil:
					st, ok := p.SpecialTokens[it.SpecialToken.ID]
					if !ok || len(st.IDs) == 0 {
						return nil, fmt.Errorf("%s[%d]: special token %q is not in special_tokens", name, i, it.SpecialToken.ID)
					}
					for _, id := range st.IDs {
						if id < 0 || id >= len(t.tokens) {
							return nil, fmt.Errorf("%s[%d]: special token %q has id %d outside the vocabulary of %d", name, i, it.SpecialToken.ID, id, len(t.tokens))
						}
					}
					out = append(out, item{special: st.IDs, seq: -1, typ: it.SpecialToken.TypeID})
				case it.Sequence != nil && (it.Sequence.ID == "A" || it.Sequence.ID == "B"):
					out = append(out, item{seq: int(it.Sequence.ID[0] - 'A'), typ: it.Sequence.TypeID})
				default:
					return nil, fmt.Errorf("%s[%d]: want SpecialToken or Sequence A or B", name, i)
				}
			}
			return out, nil
		}
		var err error
		if t.single, err = conv("single", p.Single); err != nil {
			return err
		}
		if t.pair, err = conv("pair", p.Pair); err != nil {
			return err
		}
		return nil
	}
	return fmt.Errorf("type %q is not supported (want RobertaProcessing, BertProcessing, TemplateProcessing, ByteLevel or Sequence)", p.Type)
}

// Encode returns s's tokens and ids, without the post-processor's special
// tokens. Added tokens in s (such as "<mask>") are matched first, taking
// the white space next to them that their lstrip and rstrip say.
func (t *Tokenizer) Encode(s string) (toks []string, ids []int) {
	for s != "" {
		at, a := t.nextAdded(s)
		if at < 0 {
			return t.encode(s, toks, ids)
		}
		before, after := s[:at], s[at+len(a.content):]
		if a.lstrip {
			before = strings.TrimRightFunc(before, unicode.IsSpace)
		}
		if a.rstrip {
			after = strings.TrimLeftFunc(after, unicode.IsSpace)
		}
		if before != "" {
			toks, ids = t.encode(before, toks, ids)
		}
		toks, ids = append(toks, a.content), append(ids, a.id)
		s = after
	}
	return toks, ids
}

// nextAdded finds the leftmost added token in s (the longest at a tie).
func (t *Tokenizer) nextAdded(s string) (int, added) {
	best, ba := -1, added{}
	for _, a := range t.added {
		if i := strings.Index(s, a.content); i >= 0 && (best < 0 || i < best) {
			best, ba = i, a
		}
	}
	return best, ba
}

// Single builds the model input of one sequence of ids by the
// post-processor's single template: ids and token types.
func (t *Tokenizer) Single(a []int) (ids, types []int) { return t.apply(t.single, a, nil) }

// Pair builds the model input of two sequences by the pair template.
func (t *Tokenizer) Pair(a, b []int) (ids, types []int) { return t.apply(t.pair, a, b) }

// Added is the number of special positions the template adds to one
// sequence (pair false) or a pair.
func (t *Tokenizer) Added(pair bool) int {
	tpl := t.single
	if pair {
		tpl = t.pair
	}
	n := 0
	for _, it := range tpl {
		n += len(it.special)
	}
	return n
}

func (t *Tokenizer) apply(tpl []item, a, b []int) (ids, types []int) {
	for _, it := range tpl {
		part := it.special
		switch it.seq {
		case 0:
			part = a
		case 1:
			part = b
		}
		ids = append(ids, part...)
		for range part {
			types = append(types, it.typ)
		}
	}
	return ids, types
}

// ID returns a token's id.
func (t *Tokenizer) ID(tok string) (int, bool) {
	id, ok := t.ids[tok]
	return id, ok
}

// Token returns the token with id.
func (t *Tokenizer) Token(id int) (string, bool) {
	if id < 0 || id >= len(t.tokens) {
		return "", false
	}
	return t.tokens[id], true
}

// VocabSize is one more than the largest id the file names.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// UnknownID is the unknown token's id, or -1.
func (t *Tokenizer) UnknownID() int { return t.unk }

// Model is the file's model type, "BPE" or "Unigram".
func (t *Tokenizer) Model() string { return t.kind }

// Identity names the file by its content, e.g. "hf-bpe:1a2b3c4d5e6f".
func (t *Tokenizer) Identity() string { return t.identity }

// JSON returns the file's bytes, for model files to carry.
func (t *Tokenizer) JSON() []byte { return t.raw }
