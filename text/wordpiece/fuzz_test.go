package wordpiece

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTokenize checks that any input tokenizes without panicking, that every
// token has the id the vocabulary gives it, and that uncased output has no
// upper-case letters the vocabulary could not hold.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "Hello, World!", "unaffables", "Café Münchën", "北京 ΣΟΣ", "\x00\xff\u200b", strings.Repeat("a", 120)} {
		f.Add(s)
	}
	tok, err := Load("testdata/vocab.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := tok.Tokenize(s)
		ids := tok.IDs(s)
		if len(toks) != len(ids) {
			t.Fatalf("%d tokens, %d ids", len(toks), len(ids))
		}
		for i, w := range toks {
			if id, ok := tok.ID(w); !ok || id != ids[i] {
				t.Fatalf("token %q has id %d, vocabulary says %d %v", w, ids[i], id, ok)
			}
			if !utf8.ValidString(w) {
				t.Fatalf("invalid UTF-8 token %q", w)
			}
		}
		a, types := tok.EncodePair(s, s, 16)
		if len(a) != len(types) || len(a) > 16 {
			t.Fatalf("EncodePair: %d ids, %d types", len(a), len(types))
		}
	})
}

// FuzzLoadVocab feeds arbitrary vocab.txt content: an error or a tokenizer,
// never a panic.
func FuzzLoadVocab(f *testing.F) {
	data, err := os.ReadFile("testdata/vocab.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("[UNK]\n\n\r\n##\n"))
	f.Add([]byte("\ufeff[UNK]\nx\xff\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := Read(bytes.NewReader(b))
		if err != nil {
			if tok != nil {
				t.Fatal("tokenizer and error")
			}
			return
		}
		tok.Tokenize("Hello, world! unaffable")
	})
}

// FuzzLoadTokenizerJSON feeds arbitrary tokenizer.json content.
func FuzzLoadTokenizerJSON(f *testing.F) {
	data, err := os.ReadFile("testdata/tokenizer.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"normalizer":null,"pre_tokenizer":{"type":"BertPreTokenizer"},"model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":1}}}`))
	f.Add([]byte(`{"model":{"continuing_subword_prefix":"","vocab":{"[UNK]":0}},"pre_tokenizer":{"type":"BertPreTokenizer"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := ReadTokenizerJSON(bytes.NewReader(b))
		if err != nil {
			if tok != nil {
				t.Fatal("tokenizer and error")
			}
			return
		}
		tok.Tokenize("Hello, world! unaffable 北京")
	})
}
