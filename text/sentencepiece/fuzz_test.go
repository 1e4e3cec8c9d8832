package sentencepiece

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// FuzzTokenize runs both the SentencePiece and the USE-Lite algorithm on
// arbitrary text: no panic, valid ids, and (SentencePiece) pieces that
// concatenate to the normalized input.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", " ", "the cat sat", "Café  北京 😀", "\x00\xff\u2581\u2581", strings.Repeat("ab ", 50)} {
		f.Add(s)
	}
	tok, fx := spmTokenizer(f)
	_ = fx
	js, err := New([]Piece{{Text: "\ufffd"}, {Text: "<s>"}, {Text: "</s>"}, {Text: "x1"}, {Text: "x2"}, {Text: "x3"},
		{Text: "\u2581the", Score: -3}, {Text: "t", Score: -4}, {Text: ":"}, {Text: ":30", Score: 30}, {Text: "😀", Score: -5}, {Text: "\u2581", Score: -2}},
		Options{Algorithm: USELiteJS})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, pieces := tok.Encode(s), tok.Pieces(s)
		if len(ids) != len(pieces) {
			t.Fatalf("%d ids, %d pieces", len(ids), len(pieces))
		}
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("id %d out of range", id)
			}
		}
		if got, want := strings.Join(pieces, ""), tok.normalize(s); got != want {
			t.Fatalf("pieces %q do not spell %q", pieces, want)
		}
		for _, id := range js.Encode(s) {
			if id < 0 || id >= js.VocabSize() {
				t.Fatalf("use-lite id %d out of range", id)
			}
		}
		if utf8.ValidString(s) && s != "" && len(js.Encode(s)) == 0 {
			t.Fatalf("use-lite: no ids for %q", s)
		}
	})
}

// FuzzLoadVocabJSON feeds arbitrary USE-Lite vocab.json content.
func FuzzLoadVocabJSON(f *testing.F) {
	f.Add([]byte(`[["\ufffd",0],["<s>",0],["</s>",0],["a",0],["b",0],["c",0],["\u2581x",-1],["y",null]]`))
	f.Add([]byte(`[["", 0], [1, 2]]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := ReadUSELite(bytes.NewReader(b))
		if err != nil {
			if tok != nil {
				t.Fatal("tokenizer and error")
			}
			return
		}
		tok.Encode("hello world 😀 :30")
	})
}

// FuzzLoadTokenizerJSON feeds arbitrary tokenizer.json content.
func FuzzLoadTokenizerJSON(f *testing.F) {
	data, err := os.ReadFile("testdata/tokenizer.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"normalizer":{"type":"Precompiled"},"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Metaspace","add_prefix_space":true}]},"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["\u2581a",-1]],"byte_fallback":false}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := ReadTokenizerJSON(bytes.NewReader(b))
		if err != nil {
			if tok != nil {
				t.Fatal("tokenizer and error")
			}
			return
		}
		tok.Encode("hello world 😀")
		tok.Pieces("hello  world")
	})
}
