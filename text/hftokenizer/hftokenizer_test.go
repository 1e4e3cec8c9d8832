package hftokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fixtures are made by scripts/reference/roberta-reference.py: byte-level
// BPE ids from a reference written from GPT-2's published algorithm, and
// Unigram ids from Debian's python3-sentencepiece (with fairseq's +1 offset).
const testdata = "../../encoder/roberta/testdata"

type expected map[string]struct {
	Texts []struct {
		Text string `json:"text"`
		IDs  []int  `json:"ids"`
	} `json:"texts"`
	Pairs []struct {
		A   string `json:"a"`
		B   string `json:"b"`
		IDs []int  `json:"ids"`
	} `json:"pairs"`
}

func readExpected(t *testing.T) expected {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestReference(t *testing.T) {
	exp := readExpected(t)
	for _, tc := range []struct{ dir, model string }{{"tiny-roberta", "BPE"}, {"tiny-xlm-roberta", "Unigram"}} {
		t.Run(tc.dir, func(t *testing.T) {
			tok, err := Load(filepath.Join(testdata, tc.dir, "tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			if tok.Model() != tc.model {
				t.Errorf("model %s, want %s", tok.Model(), tc.model)
			}
			e := exp[tc.dir]
			if len(e.Texts) == 0 || len(e.Pairs) == 0 {
				t.Fatal("no fixtures")
			}
			for _, x := range e.Texts {
				_, ids := tok.Encode(x.Text)
				if !slices.Equal(ids, x.IDs) && !(len(ids) == 0 && len(x.IDs) == 0) {
					t.Errorf("Encode(%q) = %v, want %v", x.Text, ids, x.IDs)
				}
			}
			for _, p := range e.Pairs {
				_, a := tok.Encode(p.A)
				_, b := tok.Encode(p.B)
				ids, types := tok.Pair(a, b)
				if !slices.Equal(ids, p.IDs) {
					t.Errorf("Pair(%q, %q) = %v, want %v", p.A, p.B, ids, p.IDs)
				}
				if len(types) != len(ids) || tok.Added(true) != len(ids)-len(a)-len(b) {
					t.Errorf("Pair: %d types, Added(true) = %d, for %d ids", len(types), tok.Added(true), len(ids))
				}
			}
			// Special tokens in the text are matched whole.
			mask, ok := tok.ID("<mask>")
			if !ok {
				t.Fatal("no <mask>")
			}
			_, ids := tok.Encode("Paris is the <mask> of France")
			if !slices.Contains(ids, mask) {
				t.Errorf("<mask> not matched: %v", ids)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"no model", `{}`, "no model"},
		{"wordpiece", `{"model":{"type":"WordPiece","vocab":{}}}`, `model.type "WordPiece"`},
		{"bad merge", `{"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":["a b"]}}`, `"ab" is not in the vocabulary`},
		{"pre-tokenizer", `{"pre_tokenizer":{"type":"Whitespace"},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`, `pre_tokenizer.type "Whitespace"`},
		{"normalizer", `{"normalizer":{"type":"Sequence","normalizers":[{"type":"BertNormalizer"}]},"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`, `normalizer.normalizers[0].type "BertNormalizer"`},
		{"post", `{"pre_tokenizer":{"type":"ByteLevel"},"post_processor":{"type":"RobertaProcessing","sep":["</s>",9],"cls":["<s>",0]},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`, "outside the vocabulary"},
		{"syntax", "{\n\"model\": [}", "byte 13"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, d := range []string{"tiny-roberta"} {
		data, err := os.ReadFile(filepath.Join(testdata, d, "tokenizer.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "Who wrote <mask>?")
	}
	f.Add([]byte(`{"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":true},"post_processor":{"type":"TemplateProcessing","single":[{"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{}},"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]]}}`), "ab ba")
	f.Fuzz(func(t *testing.T, data []byte, s string) {
		tok, err := Parse(data)
		if err != nil {
			return
		}
		_, ids := tok.Encode(s)
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("id %d outside [0, %d)", id, tok.VocabSize())
			}
		}
		tok.Pair(ids, ids)
	})
}
