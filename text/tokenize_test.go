package text

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", []string{}},
		{"white space only", " \t\n\r\u00a0\u3000 ", []string{}},
		{"simple", "The cat sat.", []string{"the", "cat", "sat", "."}},
		{"clitic n't", "Don't stop", []string{"do", "n't", "stop"}},
		{"clitic can't won't", "I can't, I won't.", []string{"i", "ca", "n't", ",", "i", "wo", "n't", "."}},
		{"clitic 's", "John's book", []string{"john", "'s", "book"}},
		{"clitics re ll ve d m", "they're I'll we've he'd I'm", []string{"they", "'re", "i", "'ll", "we", "'ve", "he", "'d", "i", "'m"}},
		{"typographic apostrophe", "don’t John’s", []string{"do", "n't", "john", "'s"}},
		{"apostrophe inside word", "o'clock O'Neill rock'n'roll", []string{"o'clock", "o'neill", "rock'n'roll"}},
		{"plural possessive", "the students' books", []string{"the", "students", "'", "books"}},
		{"clitic after abbreviation", "the U.K.'s capital", []string{"the", "u.k.", "'s", "capital"}},
		{"clitic after number", "the 1990's", []string{"the", "1990", "'s"}},
		{"quoted word", "a 'quoted' word", []string{"a", "'", "quoted", "'", "word"}},
		{"decimal", "3.5 million", []string{"3.5", "million"}},
		{"thousands", "1,000,000 people", []string{"1,000,000", "people"}},
		{"decade", "the 1990s", []string{"the", "1990s"}},
		{"number then period", "in 1990.", []string{"in", "1990", "."}},
		{"currency percent", "$10 and 50%", []string{"$", "10", "and", "50", "%"}},
		{"range", "10-20", []string{"10", "-", "20"}},
		{"hyphenated word", "a well-known fact", []string{"a", "well", "-", "known", "fact"}},
		{"punctuation", `"Hello," (he) said...`, []string{`"`, "hello", ",", `"`, "(", "he", ")", "said", ".", ".", "."}},
		{"typographic double quotes", "“no” ‘yes’", []string{`"`, "no", `"`, "'", "yes", "'"}},
		{"dashes", "a—b – c", []string{"a", "—", "b", "–", "c"}},
		{"dotted abbreviations", "U.S. e.g. i.e. a.m. Ph.D. U.S.A.", []string{"u.s.", "e.g.", "i.e.", "a.m.", "ph.d.", "u.s.a."}},
		{"title abbreviation", "Mr. Smith and Dr. Jones", []string{"mr.", "smith", "and", "dr.", "jones"}},
		{"sentence-final no", "He said no.", []string{"he", "said", "no", "."}},
		{"initial", "George W. Bush", []string{"george", "w", ".", "bush"}},
		{"domain is not an abbreviation", "see y.com.", []string{"see", "y.com", "."}},
		{"unicode latin", "Zürich naïve CAFÉ", []string{"zürich", "naïve", "café"}},
		{"greek and cyrillic", "Αθήνα Москва", []string{"αθήνα", "москва"}},
		{"cjk", "北京大学", []string{"北", "京", "大", "学"}},
		{"emoji", "I ❤️ it 👍🏽", []string{"i", "❤️", "it", "👍🏽"}},
		{"underscore joins", "snake_case", []string{"snake_case"}},
		{"soft hyphen", "ency\u00adclopedia", []string{"encyclopedia"}},
		{"zero width space separates", "a\u200bb", []string{"a", "b"}},
		{"lone combining mark", "a \u0301b", []string{"a", "b"}},
		{"zwj emoji after space", " \u200d😀x", []string{"😀", "x"}},
		{"invalid utf-8", "a\xffb \xc3", []string{"a", "\ufffd", "b", "\ufffd"}},
		{"control characters", "a\x00b\x07", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokenize(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokenize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			checkTokens(t, tt.in, got)
		})
	}
}

func TestTokenizeHuge(t *testing.T) {
	s := strings.Repeat("Mr. O'Neill's 3.5% don't-stop \xff U.S. ", 20000)
	if got, want := len(Tokenize(s)), 20000*11; got != want {
		t.Errorf("got %d tokens, want %d", got, want)
	}
}

// checkTokens asserts the invariants every Tokenize result must satisfy.
func checkTokens(t *testing.T, in string, toks []string) {
	t.Helper()
	for _, tok := range toks {
		switch {
		case tok == "":
			t.Fatalf("Tokenize(%q): empty token in %q", in, toks)
		case strings.IndexFunc(tok, unicode.IsSpace) >= 0:
			t.Fatalf("Tokenize(%q): token %q contains white space", in, tok)
		case !utf8.ValidString(tok):
			t.Fatalf("Tokenize(%q): token %q is not valid UTF-8", in, tok)
		case !visible(tok):
			t.Fatalf("Tokenize(%q): token %q is invisible", in, tok)
		}
	}
	if low := Tokenize(strings.ToLower(in)); !slices.Equal(low, toks) {
		t.Fatalf("Tokenize(ToLower(%q)) = %q, Tokenize = %q", in, low, toks)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"", "Don't stop, John's U.K.'s 1990's", "3.5 million 1,000 1990s",
		"Zürich naïve 北京 👍🏽", "a\xffb", " \u200d😀", "“no” ‘yes’ don’t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkTokens(t, s, Tokenize(s))
	})
}

// benchSentence is a typical 25-word sentence.
const benchSentence = "The Normans, who gave their name to Normandy in the 10th century, were descended from Norse raiders and pirates who didn't swear fealty to Charles III."

func BenchmarkTokenize(b *testing.B) {
	b.SetBytes(int64(len(benchSentence)))
	b.ReportAllocs()
	for b.Loop() {
		Tokenize(benchSentence)
	}
}

func TestTokensOver(t *testing.T) {
	for _, tc := range []struct {
		limit int
		texts []string
		over  bool
	}{
		{10, []string{"short"}, false},               // under the limit in bytes: not tokenised
		{3, []string{"a b", "c"}, false},             // exactly 3 tokens: not over
		{3, []string{"a b c", "d"}, true},            // 4 tokens
		{3, []string{"abcdefgh", "ijklmnop"}, false}, // 16 bytes but 2 tokens
		{0, []string{"x"}, true},
	} {
		if over, _ := TokensOver(tc.limit, tc.texts...); over != tc.over {
			t.Errorf("TokensOver(%d, %q) = %v, want %v", tc.limit, tc.texts, over, tc.over)
		}
	}
}

func TestPieceText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"▁the", "the"}, {"##ing", "ing"}, {"cube", "cube"}, {"▁", ""}, {"▁?", "?"}, {"▁##x", "x"}, {"#", "#"},
	} {
		if got := PieceText(c.in); got != c.want {
			t.Errorf("PieceText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
