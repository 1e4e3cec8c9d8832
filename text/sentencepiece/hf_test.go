package sentencepiece

import (
	"slices"
	"strings"
	"testing"
)

func TestHFUnigram(t *testing.T) {
	tok, err := Load("testdata/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in     string
		pieces []string
		ids    []int
	}{
		{"", nil, nil},
		{"the cat sat on the mat.", []string{"▁the", "▁cat", "▁sat", "▁on", "▁the", "▁mat", "."}, []int{4, 7, 10, 11, 4, 12, 21}},
		// The regex collapses runs of spaces; NFKC folds the fullwidth letters.
		{"hello   ｗorld", []string{"▁hello", "▁world"}, []int{19, 20}},
		// Metaspace takes a leading space as the prefix, not as a second "▁".
		{"  the cat", []string{"▁the", "▁cat"}, []int{4, 7}},
		// ▁ca+fé (-14) beats ▁caf+unknown é (-8.5 + min score -8.5 - 10).
		{"café", []string{"▁ca", "fé"}, []int{8, 25}},
		{"cafe", []string{"▁caf", "e"}, []int{26, 15}},
		{"cats", []string{"▁cat", "s"}, []int{7, 6}},
		{"xyz!", []string{"▁", "xyz!"}, []int{3, 2}}, // unknown run merged
	}
	for _, tt := range tests {
		pieces, ids := tok.Pieces(tt.in), tok.Encode(tt.in)
		if !slices.Equal(pieces, tt.pieces) || !slices.Equal(ids, tt.ids) {
			t.Errorf("%q: got %q %v, want %q %v", tt.in, pieces, ids, tt.pieces, tt.ids)
		}
	}
	if tok.UnknownID() != 2 || tok.VocabSize() != 27 {
		t.Errorf("UnknownID %d VocabSize %d", tok.UnknownID(), tok.VocabSize())
	}
}

func TestNew(t *testing.T) {
	pieces := []Piece{{"<unk>", 0, Unknown}, {"<s>", 0, Control}, {Space + "a", -1, Normal}, {"b", -2, Normal}, {Space + "ab", -2.5, Normal}, {"<0x41>", 0, Byte}}
	tok, err := New(pieces, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in  string
		ids []int
	}{
		{"ab", []int{4}},
		{"  a   b ", []int{2, 0, 3}}, // "▁" alone is unknown; spaces collapse
		{"<s>", []int{0}},            // control pieces never match text
		{"a\tb", []int{2, 0, 3}},     // nmt_nfkc: tab is a space
	}
	for _, tt := range tests {
		if got := tok.Encode(tt.in); !slices.Equal(got, tt.ids) {
			t.Errorf("Encode(%q) = %v, want %v", tt.in, got, tt.ids)
		}
	}
	if _, err := New(pieces, Options{ByteFallback: true}); err == nil || !strings.Contains(err.Error(), "<0x00>") {
		t.Errorf("byte fallback without byte pieces: err = %v", err)
	}
}

func TestByteFallback(t *testing.T) {
	pieces := []Piece{{"<unk>", 0, Unknown}, {Space, -1, Normal}, {"a", -1, Normal}}
	for b := range 256 {
		pieces = append(pieces, Piece{Text: "<0x" + strings.ToUpper(string("0123456789abcdef"[b>>4])+string("0123456789abcdef"[b&15])) + ">", Type: Byte})
	}
	tok, err := New(pieces, Options{Normalize: NMTNFKC, AddDummyPrefix: true, RemoveExtraWhitespaces: true, ByteFallback: true})
	if err != nil {
		t.Fatal(err)
	}
	// "é" is C3 A9 in UTF-8.
	if got, want := tok.Pieces("aé"), []string{"▁", "a", "<0xC3>", "<0xA9>"}; !slices.Equal(got, want) {
		t.Errorf("Pieces = %q, want %q", got, want)
	}
	if got, want := tok.Encode("aé"), []int{1, 2, 3 + 0xC3, 3 + 0xA9}; !slices.Equal(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not json", "hello", "want a JSON array"},
		{"bad array", `[["a", 1], ["b"]]`, "entry 1: want [piece, score]"},
		{"bad score", `[["a", "x"]]`, `entry 0 ("a"): score`},
		{"too short", `[["a", 1]]`, "want more than the 6 reserved"},
		{"syntax", `[["a", 1],`, "vocab.json: at byte 10: unexpected end"},
		{"syntax2", `[["a", 1]]]`, "at byte"},
		{"bpe", `{"model":{"type":"BPE"}}`, `model.type "BPE"`},
		{"no unk", `{"model":{"type":"Unigram","vocab":[["a",-1]]}}`, "unk_id is null"},
		{"unk range", `{"model":{"type":"Unigram","unk_id":3,"vocab":[["a",-1]]}}`, "unk_id 3 out of range"},
		{"null score", `{"model":{"type":"Unigram","unk_id":0,"vocab":[["a",null]]}}`, `entry 0 ("a"): null score`},
		{"normalizer", `{"normalizer":{"type":"BertNormalizer"},"model":{"type":"Unigram","unk_id":0,"vocab":[["a",-1]]}}`, `normalizer.type "BertNormalizer"`},
		{"nested", `{"normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Foo"}]},"model":{"type":"Unigram","unk_id":0,"vocab":[["a",-1]]}}`, `normalizer.normalizers[1].type "Foo"`},
		{"regex", `{"normalizer":{"type":"Replace","pattern":{"Regex":"(?<=a)b"},"content":""},"model":{"type":"Unigram","unk_id":0,"vocab":[["a",-1]]}}`, "pattern.Regex"},
		{"pretok", `{"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"Unigram","unk_id":0,"vocab":[["a",-1]]}}`, `pre_tokenizer.type "ByteLevel"`},
		{"replacement", `{"pre_tokenizer":{"type":"Metaspace","replacement":"_"},"model":{"type":"Unigram","unk_id":0,"vocab":[["a",-1]]}}`, `replacement "_"`},
	}
	for _, tt := range tests {
		path := t.TempDir() + "/f.json"
		if err := writeFile(path, tt.in); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}
