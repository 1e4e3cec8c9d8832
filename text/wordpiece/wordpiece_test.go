package wordpiece

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/internal/shareddata"
)

func bertVocab(tb testing.TB) *Tokenizer {
	tb.Helper()
	p := shareddata.File(tb, "data/bert-vocab/bert-base-uncased-vocab.txt")
	t, err := Load(p)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

type fixture struct {
	Cases []struct {
		Text   string   `json:"text"`
		Tokens []string `json:"tokens"`
		IDs    []int    `json:"ids"`
	} `json:"cases"`
}

// TestBERTReference compares every sentence of the fixture written by
// scripts/reference/wordpiece-reference.py (the published BERT algorithm in Python).
func TestBERTReference(t *testing.T) {
	tok := bertVocab(t)
	if !tok.Lowercase() {
		t.Fatal("bert-base-uncased vocab detected as cased")
	}
	data, err := os.ReadFile("testdata/bert-uncased-ids.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx fixture
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) < 300 {
		t.Fatalf("fixture has %d cases, want >= 300", len(fx.Cases))
	}
	bad := 0
	for i, c := range fx.Cases {
		got := tok.Tokenize(c.Text)
		ids := tok.IDs(c.Text)
		if !slices.Equal(got, c.Tokens) || !slices.Equal(ids, c.IDs) {
			bad++
			if bad <= 10 {
				t.Errorf("case %d %q:\n got %q %v\nwant %q %v", i, c.Text, got, ids, c.Tokens, c.IDs)
			}
		}
	}
	t.Logf("%d/%d cases agree with the Python reference", len(fx.Cases)-bad, len(fx.Cases))
}

func TestBERTIdentity(t *testing.T) {
	tok := bertVocab(t)
	if tok.VocabSize() != 30522 {
		t.Errorf("VocabSize = %d", tok.VocabSize())
	}
	if got := tok.Identity(); !strings.HasPrefix(got, "wordpiece:") || !strings.HasSuffix(got, ":uncased") {
		t.Errorf("Identity = %q", got)
	}
	if tok.CLSID() != 101 || tok.SEPID() != 102 || tok.UnknownID() != 100 || tok.PadID() != 0 || tok.MaskID() != 103 {
		t.Errorf("special ids cls=%d sep=%d unk=%d pad=%d mask=%d", tok.CLSID(), tok.SEPID(), tok.UnknownID(), tok.PadID(), tok.MaskID())
	}
}

func tiny(t *testing.T, name string) *Tokenizer {
	t.Helper()
	tok, err := Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTiny(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hello, World!", []string{"hello", ",", "world", "!"}},
		{"unaffable", []string{"un", "##aff", "##able"}},
		{"unaffables running", []string{"un", "##aff", "##able", "##s", "run", "##ning"}},
		{"don't", []string{"don", "'", "t"}},
		{"Café   MÜNCHEN\t?", []string{"cafe", "munchen", "?"}},
		{"北京", []string{"北", "京"}},
		{"ΣΟΣ", []string{"σ", "##ος"}}, // final sigma, as Python's lower()
		{"1000", []string{"1", "##00", "##0"}},
		{"xyz", []string{"[UNK]"}},
		{"play\x00ing\u200b", []string{"play", "##ing"}}, // controls dropped inside a word
		{"a-b", []string{"a", "-", "[UNK]"}},
		{strings.Repeat("a", 101), []string{"[UNK]"}},
		{"\xff\xfe", nil}, // invalid UTF-8 decodes to U+FFFD, which BERT drops
	}
	for _, name := range []string{"vocab.txt", "tokenizer.json"} {
		tok := tiny(t, name)
		for _, tt := range tests {
			if got := tok.Tokenize(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("%s: Tokenize(%q) = %q, want %q", name, tt.in, got, tt.want)
			}
		}
	}
}

func TestTinyFormats(t *testing.T) {
	a, b := tiny(t, "vocab.txt"), tiny(t, "tokenizer.json")
	// vocab.txt repeats "," on its last line; the later id wins there.
	if id, _ := a.ID(","); id != 41 {
		t.Errorf("vocab.txt: ID(\",\") = %d, want 41", id)
	}
	if id, _ := b.ID(","); id != 7 {
		t.Errorf("tokenizer.json: ID(\",\") = %d, want 7", id)
	}
	if a.VocabSize() != 42 || b.VocabSize() != 41 {
		t.Errorf("VocabSize = %d, %d", a.VocabSize(), b.VocabSize())
	}
	if a.Identity() == b.Identity() {
		t.Errorf("different vocabularies share identity %q", a.Identity())
	}
	if tok, ok := a.Token(11); !ok || tok != "the" {
		t.Errorf("Token(11) = %q, %v", tok, ok)
	}
	if _, ok := a.Token(-1); ok {
		t.Error("Token(-1) ok")
	}
}

func TestEncodePair(t *testing.T) {
	tok := tiny(t, "tokenizer.json")
	ids := func(s string) []int { return tok.IDs(s) }
	cls, sep := tok.CLSID(), tok.SEPID()
	cat := func(xs ...[]int) []int { return slices.Concat(xs...) }
	tests := []struct {
		a, b    string
		maxLen  int
		ids     []int
		typeIDs []int
	}{
		{"hello", "world", 0, cat([]int{cls}, ids("hello"), []int{sep}, ids("world"), []int{sep}), []int{0, 0, 0, 1, 1}},
		// Longest first: a loses tokens until it is as long as b, then b
		// goes first on ties.
		{"the the the the", "world", 6, cat([]int{cls}, ids("the the"), []int{sep}, ids("world"), []int{sep}), []int{0, 0, 0, 0, 1, 1}},
		{"the the", "world world", 5, cat([]int{cls}, ids("the"), []int{sep}, ids("world"), []int{sep}), []int{0, 0, 0, 1, 1}},
		{"the the", "world world", 6, cat([]int{cls}, ids("the the"), []int{sep}, ids("world"), []int{sep}), []int{0, 0, 0, 0, 1, 1}},
		{"the", "world", 1, []int{cls, sep, sep}, []int{0, 0, 1}},
	}
	for _, tt := range tests {
		gotIDs, gotTypes := tok.EncodePair(tt.a, tt.b, tt.maxLen)
		if !slices.Equal(gotIDs, tt.ids) || !slices.Equal(gotTypes, tt.typeIDs) {
			t.Errorf("EncodePair(%q, %q, %d) = %v %v, want %v %v", tt.a, tt.b, tt.maxLen, gotIDs, gotTypes, tt.ids, tt.typeIDs)
		}
	}
	if got, want := tok.Encode("the the the", 4), []int{cls, 11, 11, sep}; !slices.Equal(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	if got, want := tok.Encode("the", 0), []int{cls, 11, sep}; !slices.Equal(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "empty input"},
		{"no unk", "a\nb\n", `unknown token "[UNK]"`},
		{"bad utf8", "[UNK]\n\xff\n", "vocab line 2: invalid UTF-8"},
		{"long line", "[UNK]\n" + strings.Repeat("x", maxLine+10), "vocab line 2"},
		{"bad json", `{"model": [}`, "at byte"},
		{"bpe", `{"model":{"type":"BPE","vocab":{}}}`, `model.type "BPE"`},
		{"no model", `{}`, "no model"},
		{"normalizer", `{"normalizer":{"type":"NFKC"},"pre_tokenizer":{"type":"BertPreTokenizer"},"model":{"type":"WordPiece","vocab":{"[UNK]":0}}}`, `normalizer.type "NFKC"`},
		{"pretok", `{"normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"model":{"type":"WordPiece","vocab":{"[UNK]":0}}}`, `pre_tokenizer.type "Whitespace"`},
		{"vocab type", `{"normalizer":null,"pre_tokenizer":{"type":"BertPreTokenizer"},"model":{"type":"WordPiece","vocab":[["a",1]]}}`, "model.vocab"},
		{"sparse ids", `{"normalizer":null,"pre_tokenizer":{"type":"BertPreTokenizer"},"model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":5}}}`, `model.vocab["a"] = 5`},
		{"max chars", `{"normalizer":null,"pre_tokenizer":{"type":"BertPreTokenizer"},"model":{"type":"WordPiece","max_input_chars_per_word":0,"vocab":{"[UNK]":0}}}`, "max_input_chars_per_word 0"},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestLooksCased(t *testing.T) {
	var cased []string
	for i := 0; i < 500; i++ {
		cased = append(cased, "w"+strings.Repeat("x", i%7), "The"+strings.Repeat("y", i))
	}
	if !LooksCased(cased) {
		t.Error("cased vocabulary not detected")
	}
	if LooksCased([]string{"[UNK]", "[CLS]", "the"}) {
		t.Error("uncased vocabulary detected as cased")
	}
}
