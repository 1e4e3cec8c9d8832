package bpe

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Hello world", []string{"Hello", " world"}},
		{"it's they're", []string{"it", "'s", " they", "'re"}},
		{"a  b", []string{"a", " ", " b"}},
		{"a   ", []string{"a", "   "}},
		{"x\n\ny", []string{"x", "\n", "\n", "y"}},
		{"330 metres!", []string{"330", " metres", "!"}},
		{" ?!", []string{" ?!"}},
		{"Zürich—ok", []string{"Zürich", "—", "ok"}},
		{"", nil},
	} {
		if got := Split(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestByteLevel(t *testing.T) {
	seen := map[rune]bool{}
	for b := 0; b < 256; b++ {
		r := ByteRune(byte(b))
		if seen[r] {
			t.Fatalf("byte %d maps to %q twice", b, r)
		}
		seen[r] = true
	}
	if ByteRune(' ') != 'Ġ' || ByteRune('a') != 'a' {
		t.Errorf("space is %q, a is %q", ByteRune(' '), ByteRune('a'))
	}
	s := "naïve \x00\xff"
	if b, ok := Bytes(ByteLevel(s)); !ok || string(b) != s {
		t.Errorf("round trip of %q gave %q", s, b)
	}
}

func TestModel(t *testing.T) {
	vocab := map[string]int{"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "bc": 5, "<unk>": 6}
	m, err := New(vocab, [][2]string{{"a", "b"}, {"b", "c"}, {"ab", "c"}}, "<unk>")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word string
		want []int
	}{
		{"abc", []int{4}}, // a b first, then ab c
		{"bcab", []int{5, 3}},
		{"abd", []int{3, 6}}, // d is unknown
	} {
		if _, ids := m.Word(tc.word, nil, nil); !slices.Equal(ids, tc.want) {
			t.Errorf("Word(%q) = %v, want %v", tc.word, ids, tc.want)
		}
	}
	if _, err := New(vocab, [][2]string{{"c", "a"}}, ""); err == nil || !strings.Contains(err.Error(), `"ca"`) {
		t.Errorf("a merge outside the vocabulary: %v", err)
	}
}

// Pre-tokens cover the text exactly, whatever it holds.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"Hello  world!\n", "it's 12,5 \t\u00a0x", "\xff\xfe a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts := Split(s)
		if strings.Join(parts, "") != s {
			t.Fatalf("Split(%q) = %q", s, parts)
		}
		for _, p := range parts {
			if p == "" {
				t.Fatalf("empty pre-token in %q", parts)
			}
		}
		if utf8.ValidString(s) {
			for _, p := range parts {
				if !utf8.ValidString(p) {
					t.Fatalf("pre-token %q splits a character", p)
				}
			}
		}
	})
}
