package text

import (
	"slices"
	"testing"
)

func TestStopwords(t *testing.T) {
	list := Stopwords()
	if !slices.IsSorted(list) {
		t.Error("Stopwords() is not sorted")
	}
	if len(slices.Compact(slices.Clone(list))) != len(list) {
		t.Error("Stopwords() has duplicates")
	}
	if len(list) < 170 {
		t.Errorf("Stopwords() has %d words, want the full NLTK list", len(list))
	}
	list[0] = "changed"
	if Stopwords()[0] == "changed" {
		t.Error("Stopwords() does not return a copy")
	}
	for _, w := range []string{"the", "a", "of", "is", "not", "n't", "'s", "'re", "ca", "wo", "don't"} {
		if !IsStopword(w) {
			t.Errorf("IsStopword(%q) = false", w)
		}
	}
	for _, w := range []string{"normans", "france", "", "The", "3.5", "."} {
		if IsStopword(w) {
			t.Errorf("IsStopword(%q) = true", w)
		}
	}
	// Every piece Tokenize makes of a stopword contraction is a stopword.
	for _, w := range []string{"don't", "can't", "won't", "it's", "they're", "you'll", "we've", "he'd", "I'm"} {
		for _, tok := range Tokenize(w) {
			if !IsStopword(tok) {
				t.Errorf("Tokenize(%q) gives %q, not a stopword", w, tok)
			}
		}
	}
}

func TestRemoveStopwords(t *testing.T) {
	in := Tokenize("The Normans weren't in France, they're from the North.")
	orig := slices.Clone(in)
	got := RemoveStopwords(in)
	want := []string{"normans", "france", ",", "north", "."}
	if !slices.Equal(got, want) {
		t.Errorf("RemoveStopwords = %q, want %q", got, want)
	}
	if !slices.Equal(in, orig) {
		t.Error("RemoveStopwords modified its input")
	}
	if got := RemoveStopwords(nil); got == nil || len(got) != 0 {
		t.Errorf("RemoveStopwords(nil) = %#v, want empty slice", got)
	}
}
