package text

import (
	"testing"
	"unicode/utf8"
)

func TestStem(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"invented", "invent"},
		{"invention", "invent"},
		{"inventing", "invent"},
		{"cubes", "cube"},
		{"solving", "solv"},
		{"solves", "solv"},
		{"sold", "sold"},
		{"1974", "1974"},
		{"3.13", "3.13"},
		{",", ","},
		{"is", "is"},
		{"ernő", "ernő"},
		{"", ""},
	} {
		if got := Stem(c.in); got != c.want {
			t.Errorf("Stem(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"invented", "ernő", "\xff", "", "3.13", "generalisations"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Porter2 strips suffixes and swaps y and i, so a stem never has
		// more characters than its (lowercased) word.
		got := Stem(s)
		if utf8.RuneCountInString(got) > utf8.RuneCountInString(s) {
			t.Errorf("Stem(%q) = %q is longer", s, got)
		}
	})
}
