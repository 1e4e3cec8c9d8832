package sentencepiece

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/as2/as2/text/jsonerr"
	"golang.org/x/text/unicode/norm"
)

// Load reads a USE-Lite vocab.json (a JSON array) or a Hugging Face
// tokenizer.json with a Unigram model (a JSON object), by content.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sentencepiece: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var t *Tokenizer
	switch trimmed := bytes.TrimLeft(data, " \t\r\n"); {
	case len(trimmed) > 0 && trimmed[0] == '[':
		t, err = ReadUSELite(bytes.NewReader(data))
	case len(trimmed) > 0 && trimmed[0] == '{':
		t, err = ReadTokenizerJSON(bytes.NewReader(data))
	default:
		err = errors.New("sentencepiece: want a JSON array (USE-Lite vocab.json) or object (tokenizer.json)")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ReadUSELite reads USE-Lite's vocab.json, an array of [piece, score]
// pairs, and returns a tokenizer that gives exactly the ids of the model's
// JavaScript runtime (@energetic-ai/embeddings 0.2.0, the same tokenizer as
// tfjs-models' universal-sentence-encoder):
//
//   - the text is NFKC-normalized; if that leaves it non-empty, "▁" is put
//     in front and every ASCII space (only U+0020: tabs and newlines stay)
//     becomes "▁", without trimming or collapsing;
//   - ids are vocabulary indices, with no offset; ids 0-5 are reserved and
//     never produced except 0, the unknown id (the embedding table's 8,002
//     rows leave 8000 and 8001 unused by the tokenizer);
//   - a character where no piece starts is one unknown piece with score 0,
//     and runs of unknowns collapse into one id 0;
//   - a null score counts as 0 (JavaScript's null + x = x), which makes the
//     seven null-scored pieces (":", "://", "▁:", "▁:)", "▁:(", "):",
//     "▁:-)") and the unknown piece the cheapest of all; ":30" has score
//     +30 and ":00" 0 in the file, and are used as such;
//   - Viterbi keeps a later candidate on ties and treats a best score of
//     exactly 0 as unset; backtracking steps by UTF-16 length.
func ReadUSELite(r io.Reader) (*Tokenizer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("sentencepiece: vocab.json: %w", err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\ufeff")), &raw); err != nil {
		return nil, fmt.Errorf("sentencepiece: vocab.json: %w", jsonerr.Locate(err))
	}
	pieces, err := pairs(raw, "vocab.json", true)
	if err != nil {
		return nil, err
	}
	if len(pieces) <= useLiteReserved {
		return nil, fmt.Errorf("sentencepiece: vocab.json: %d entries, want more than the %d reserved", len(pieces), useLiteReserved)
	}
	return New(pieces, Options{Algorithm: USELiteJS})
}

// pairs decodes [piece, score] arrays; null scores are 0 when allowNull.
func pairs(raw []json.RawMessage, where string, allowNull bool) ([]Piece, error) {
	pieces := make([]Piece, len(raw))
	for i, e := range raw {
		var pair []json.RawMessage
		if err := json.Unmarshal(e, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("sentencepiece: %s: entry %d: want [piece, score], got %.40s", where, i, e)
		}
		if err := json.Unmarshal(pair[0], &pieces[i].Text); err != nil {
			return nil, fmt.Errorf("sentencepiece: %s: entry %d: piece: %w", where, i, err)
		}
		if string(pair[1]) == "null" {
			if !allowNull {
				return nil, fmt.Errorf("sentencepiece: %s: entry %d (%q): null score", where, i, pieces[i].Text)
			}
			continue
		}
		if err := json.Unmarshal(pair[1], &pieces[i].Score); err != nil {
			return nil, fmt.Errorf("sentencepiece: %s: entry %d (%q): score: %w", where, i, pieces[i].Text, err)
		}
	}
	return pieces, nil
}

// ReadTokenizerJSON reads a Hugging Face tokenizer.json whose model is
// Unigram. Supported normalizers: null, NFC, NFD, NFKC, NFKD, Lowercase,
// Strip, Replace, Prepend, Sequence, and Precompiled, which is taken to be
// SentencePiece's default nmt_nfkc (what T5, ALBERT, XLNet and most
// converted models carry; its compiled table is not decoded). Supported
// pre_tokenizers: null, Metaspace with "▁", WhitespaceSplit, and Sequence of
// those. Anything else is an error naming the field.
func ReadTokenizerJSON(r io.Reader) (*Tokenizer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("sentencepiece: tokenizer.json: %w", err)
	}
	var tj struct {
		Normalizer   json.RawMessage `json:"normalizer"`
		PreTokenizer json.RawMessage `json:"pre_tokenizer"`
		Model        *struct {
			Type         string            `json:"type"`
			UnkID        *int              `json:"unk_id"`
			Vocab        []json.RawMessage `json:"vocab"`
			ByteFallback bool              `json:"byte_fallback"`
		} `json:"model"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\ufeff")), &tj); err != nil {
		return nil, fmt.Errorf("sentencepiece: tokenizer.json: %w", jsonerr.Locate(err))
	}
	m := tj.Model
	if m == nil {
		return nil, errors.New("sentencepiece: tokenizer.json: no model")
	}
	if m.Type != "Unigram" {
		return nil, fmt.Errorf("sentencepiece: tokenizer.json: model.type %q is not Unigram", m.Type)
	}
	pieces, err := pairs(m.Vocab, "tokenizer.json: model.vocab", false)
	if err != nil {
		return nil, err
	}
	if len(pieces) == 0 {
		return nil, errors.New("sentencepiece: tokenizer.json: model.vocab is empty")
	}
	if m.UnkID == nil {
		return nil, errors.New("sentencepiece: tokenizer.json: model.unk_id is null; a tokenizer without an unknown piece cannot segment arbitrary text")
	}
	if *m.UnkID < 0 || *m.UnkID >= len(pieces) {
		return nil, fmt.Errorf("sentencepiece: tokenizer.json: model.unk_id %d out of range [0, %d)", *m.UnkID, len(pieces))
	}
	pieces[*m.UnkID].Type = Unknown
	o := Options{Algorithm: HuggingFace, ByteFallback: m.ByteFallback}
	if o.Normalize, err = HFNormalizer(tj.Normalizer, "normalizer"); err != nil {
		return nil, fmt.Errorf("sentencepiece: tokenizer.json: %w", err)
	}
	if err := hfPreTokenizer(tj.PreTokenizer, "pre_tokenizer", &o); err != nil {
		return nil, err
	}
	t, err := New(pieces, o)
	if err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	return t, nil
}

type hfStep struct {
	Type        string            `json:"type"`
	Normalizers []json.RawMessage `json:"normalizers"`
	Pretok      []json.RawMessage `json:"pretokenizers"`
	Pattern     *struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	} `json:"pattern"`
	Content        *string `json:"content"`
	Prepend        *string `json:"prepend"`
	Left           *bool   `json:"left"`
	Right          *bool   `json:"right"`
	StripLeft      *bool   `json:"strip_left"`
	StripRight     *bool   `json:"strip_right"`
	Replacement    *string `json:"replacement"`
	AddPrefixSpace *bool   `json:"add_prefix_space"`
	PrependScheme  *string `json:"prepend_scheme"`
}

// HFNormalizer reads a tokenizer.json's normalizer (field names it in
// errors) into a function; null gives nil. The normalizers do not depend on
// the model, so text/hftokenizer reads its BPE files' with this one too.
// Precompiled is taken to be SentencePiece's default nmt_nfkc: its compiled
// table is not decoded.
func HFNormalizer(raw json.RawMessage, field string) (func(string) string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var st hfStep
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", field, jsonerr.Locate(err))
	}
	switch st.Type {
	case "NFKC":
		return NFKC, nil
	case "NFC":
		return norm.NFC.String, nil
	case "NFD":
		return norm.NFD.String, nil
	case "NFKD":
		return norm.NFKD.String, nil
	case "Precompiled":
		return NMTNFKC, nil
	case "Lowercase":
		return strings.ToLower, nil
	case "Strip":
		left, right := st.Left == nil || *st.Left, st.Right == nil || *st.Right
		if st.StripLeft != nil {
			left = *st.StripLeft
		}
		if st.StripRight != nil {
			right = *st.StripRight
		}
		return func(s string) string {
			if left {
				s = strings.TrimLeftFunc(s, isSpace)
			}
			if right {
				s = strings.TrimRightFunc(s, isSpace)
			}
			return s
		}, nil
	case "Prepend":
		if st.Prepend == nil {
			return nil, fmt.Errorf("%s.prepend missing", field)
		}
		p := *st.Prepend
		return func(s string) string {
			if s == "" {
				return s
			}
			return p + s
		}, nil
	case "Replace":
		if st.Pattern == nil || st.Content == nil {
			return nil, fmt.Errorf("%s: Replace needs pattern and content", field)
		}
		content := *st.Content
		switch {
		case st.Pattern.String != nil:
			old := *st.Pattern.String
			if old == "" {
				return nil, fmt.Errorf("%s.pattern.String is empty", field)
			}
			return func(s string) string { return strings.ReplaceAll(s, old, content) }, nil
		case st.Pattern.Regex != nil:
			re, err := regexp.Compile(*st.Pattern.Regex)
			if err != nil {
				return nil, fmt.Errorf("%s.pattern.Regex: %w", field, err)
			}
			return func(s string) string { return re.ReplaceAllLiteralString(s, content) }, nil
		}
		return nil, fmt.Errorf("%s.pattern needs String or Regex", field)
	case "Sequence":
		var fs []func(string) string
		for i, n := range st.Normalizers {
			f, err := HFNormalizer(n, fmt.Sprintf("%s.normalizers[%d]", field, i))
			if err != nil {
				return nil, err
			}
			if f != nil {
				fs = append(fs, f)
			}
		}
		return func(s string) string {
			for _, f := range fs {
				s = f(s)
			}
			return s
		}, nil
	}
	return nil, fmt.Errorf("%s.type %q is not supported (want NFC, NFD, NFKC, NFKD, Lowercase, Strip, Replace, Prepend, Precompiled or Sequence)", field, st.Type)
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// hfPreTokenizer maps Metaspace and WhitespaceSplit onto Options: splitting
// on white space and marking each word with "▁" is the same as collapsing
// spaces and adding the dummy prefix, since pieces never hold "▁" inside.
func hfPreTokenizer(raw json.RawMessage, field string, o *Options) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var st hfStep
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("sentencepiece: tokenizer.json: %s: %w", field, jsonerr.Locate(err))
	}
	switch st.Type {
	case "Metaspace":
		if st.Replacement != nil && *st.Replacement != Space {
			return fmt.Errorf("sentencepiece: tokenizer.json: %s.replacement %q not supported (want %q)", field, *st.Replacement, Space)
		}
		o.AddDummyPrefix = st.AddPrefixSpace == nil || *st.AddPrefixSpace
		if st.PrependScheme != nil {
			o.AddDummyPrefix = *st.PrependScheme != "never"
		}
		return nil
	case "WhitespaceSplit":
		o.RemoveExtraWhitespaces = true
		return nil
	case "Sequence":
		for i, p := range st.Pretok {
			if err := hfPreTokenizer(p, fmt.Sprintf("%s.pretokenizers[%d]", field, i), o); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("sentencepiece: tokenizer.json: %s.type %q not supported", field, st.Type)
}
