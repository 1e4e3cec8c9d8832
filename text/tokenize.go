package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// normalizer maps typographic quotes to ASCII (GloVe only has the ASCII
// forms, and "don’t" must split like "don't") and deletes invisible
// characters that Wikipedia text carries inside words (soft hyphens, zero
// width spaces, direction marks, BOM), which would otherwise make a token
// miss the vocabulary.
var normalizer = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'",
	"\u201c", `"`, "\u201d", `"`,
	"\u00ad", "", "\u200b", "", "\u200e", "", "\u200f", "", "\u2060", "", "\ufeff", "",
)

// tokenAbbrevs are words that keep their period as part of the token, as in
// the Stanford/PTB tokenizer GloVe was built with. Words that are also
// ordinary English words ("no", "mar") are left out, since a sentence-final
// period after them must stay a token of its own.
var tokenAbbrevs = setOf(
	"mr", "mrs", "ms", "dr", "prof", "jr", "sr", "st", "vs", "etc",
	"inc", "ltd", "corp", "co", "gen", "gov", "sen", "rep", "lt", "col",
	"capt", "sgt", "fr", "rev", "mt", "ft",
	"jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
)

// TokenizerID names this tokenizer's behaviour. Model files record it, and
// it changes whenever Tokenize would split or normalise some text
// differently, because a model trained on one tokenization misreads
// another.
const TokenizerID = "as2-text-1"

// Tokenize lowercases s and splits it into words, numbers and punctuation marks.
//
// It never returns empty tokens or tokens containing white space. Invalid
// UTF-8 bytes come out as U+FFFD tokens. See the package documentation for
// the rules.
func Tokenize(s string) []string {
	// Lowercase first: every later step sees only the lowercased string,
	// which is what makes Tokenize(strings.ToLower(s)) == Tokenize(s). It
	// also replaces invalid UTF-8 by U+FFFD.
	s = strings.ToLower(s)
	segs := make([]string, 0, len(s)/2+1) // English: about one segment per 2.5 bytes
	for state := -1; s != ""; {
		var w string
		w, s, state = uniseg.FirstWordInString(s, state)
		segs = append(segs, w)
	}

	toks := make([]string, 0, len(segs)*2/3+1) // a bit over half are not spaces
	// prevWord: the previous segment was a word ending in a letter, digit
	// or abbreviation period, so an apostrophe right after it can start a
	// clitic.
	prevWord := false
	for i := 0; i < len(segs); i++ {
		w := segs[i]
		if w == " " { // fast path for the most common segment
			prevWord = false
			continue
		}
		if strings.IndexFunc(w, unicode.IsSpace) >= 0 {
			// Mostly pure white space, but UAX #29 glues marks and
			// ZWJ emoji sequences onto a preceding space (" \u200d😀").
			for _, f := range strings.FieldsFunc(w, unicode.IsSpace) {
				if f = strings.TrimLeftFunc(normalize(f), invisible); f != "" {
					toks = append(toks, f)
				}
			}
			prevWord = false
			continue
		}
		if w = normalize(w); !visible(w) {
			prevWord = false
			continue
		}
		switch {
		case i+1 < len(segs) && segs[i+1] == "." && isTokenAbbrev(w):
			// "u.s" "." → "u.s."
			toks = append(toks, w+".")
			i++
			prevWord = true
		case w == "'" && prevWord && i+1 < len(segs) && isClitic(segs[i+1]):
			// A clitic UAX #29 detached because the word before it ends
			// in a period or digit: "u.k.'s" → "u.k." "'s", "1990's" →
			// "1990" "'s".
			toks = append(toks, "'"+segs[i+1])
			i++
			prevWord = false
		default:
			toks = appendWord(toks, w)
			r, _ := utf8.DecodeLastRuneInString(w)
			prevWord = unicode.IsLetter(r) || unicode.IsNumber(r)
		}
	}
	return toks
}

// normalize applies normalizer; ASCII tokens, the common case, are returned
// as they are without the cost of the replacer.
func normalize(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return normalizer.Replace(w)
		}
	}
	return w
}

// visible reports whether w has a character that is not invisible. Tokens
// made only of invisible characters carry no meaning for the rankers.
func visible(w string) bool {
	if w != "" && '!' <= w[0] && w[0] <= '~' {
		return true // printable ASCII, the common case
	}
	return strings.IndexFunc(w, func(r rune) bool { return !invisible(r) }) >= 0
}

// invisible reports whether r is white space, a control or format
// character, or a combining mark.
func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me)
}

// isClitic reports whether "'"+w is an English clitic token.
func isClitic(w string) bool {
	switch w {
	case "s", "re", "ll", "ve", "d", "m":
		return true
	}
	return false
}

// appendWord appends w to toks, splitting a trailing clitic off the PTB way.
func appendWord(toks []string, w string) []string {
	n := len(w)
	if n > 3 && strings.HasSuffix(w, "n't") && visible(w[:n-3]) {
		// "don't" → "do" "n't"; "can't" → "ca" "n't" (PTB, and GloVe has "ca").
		return append(toks, w[:n-3], "n't")
	}
	if j := strings.LastIndexByte(w, '\''); j > 0 && isClitic(w[j+1:]) && visible(w[:j]) {
		return append(toks, w[:j], w[j:])
	}
	return append(toks, w)
}

// isTokenAbbrev reports whether the lowercase word w keeps a following
// period: a known abbreviation, or dotted pieces of one or two letters
// ("u.s", "e.g", "ph.d", "u.s.a").
func isTokenAbbrev(w string) bool {
	if _, ok := tokenAbbrevs[w]; ok {
		return true
	}
	if !strings.Contains(w, ".") {
		return false
	}
	n := 0 // letters in the current piece
	for _, r := range w {
		switch {
		case r == '.':
			if n == 0 {
				return false
			}
			n = 0
		case unicode.IsLetter(r):
			if n++; n > 2 {
				return false
			}
		default:
			return false
		}
	}
	return n > 0
}

func setOf(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}

// IsPunctuation reports whether tok has no letter and no digit: a
// punctuation or symbol token, which word-overlap features leave out.
func IsPunctuation(tok string) bool {
	for _, r := range tok {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// PieceText is a subword piece's text without its mark: SentencePiece's
// word start "▁" or WordPiece's continuation "##". Punctuation and
// stopwords stay what they are when a tokenizer cuts them into pieces.
func PieceText(piece string) string {
	return strings.TrimPrefix(strings.TrimPrefix(piece, "▁"), "##")
}

// TokensOver reports whether the texts have more than limit tokens in all
// (as Tokenize counts them), and the count reached. A token has at least
// one byte, so texts of at most limit bytes are not tokenised, and counting
// stops past the limit: a cheap guard for request sizes.
func TokensOver(limit int, texts ...string) (bool, int) {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	if n <= limit {
		return false, 0
	}
	n = 0
	for _, t := range texts {
		if n += len(Tokenize(t)); n > limit {
			return true, n
		}
	}
	return false, n
}
