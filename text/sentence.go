package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Sentence is one sentence of a text: its text (trimmed of surrounding white space)
// and the byte offsets [Start, End) of that trimmed text in the original string.
type Sentence struct {
	Text       string
	Start, End int
}

// Abbreviation classes decide whether a period that UAX #29 took for a
// sentence end really is one. Keys are lowercase, without the final period.
var (
	// strongAbbrevs (titles and Latin abbreviations) practically never end
	// a sentence: never split after them.
	strongAbbrevs = setOf(
		"mr", "mrs", "ms", "messrs", "dr", "prof", "rev", "hon", "pres",
		"gen", "gov", "sen", "rep", "lt", "col", "capt", "cmdr", "sgt", "maj", "adm", "cpl", "fr",
		"vs", "e.g", "i.e", "cf", "viz",
	)
	// weakAbbrevs can end a sentence ("born in St. Louis" vs "on Main St."):
	// split after them only if a typical sentence opener follows. Single
	// capital initials and dotted abbreviations ("U.S.") are treated alike.
	weakAbbrevs = setOf(
		"st", "jr", "sr", "inc", "co", "corp", "ltd", "bros", "mt", "ft", "ave", "ph.d",
		"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
	)
	// numAbbrevs are not split off when a number follows: "No. 5",
	// "c. 1000 BC", "pp. 12–15".
	numAbbrevs = setOf(
		"no", "nos", "c", "ca", "vol", "pp", "p", "fig", "op", "art", "ch", "sec", "approx",
	)
	// sentenceOpeners are frequent first words of English (Wikipedia)
	// sentences; after a weak abbreviation they signal a real boundary.
	sentenceOpeners = setOf(
		"a", "an", "the", "this", "that", "these", "those", "there", "it", "its",
		"he", "she", "they", "we", "i", "you", "his", "her", "their", "our", "my", "your",
		"in", "on", "at", "by", "for", "from", "with", "after", "before", "during",
		"since", "until", "under", "over", "between", "among", "through", "despite",
		"according", "following", "unlike", "like", "as", "when", "while", "where",
		"although", "though", "because", "if", "however", "but", "and", "or", "so",
		"yet", "thus", "then", "also", "today", "later", "meanwhile", "moreover",
		"furthermore", "nevertheless", "instead", "finally", "eventually", "initially",
		"originally", "currently", "recently", "many", "some", "most", "all", "both",
		"each", "other", "several", "such", "one", "two", "what", "who", "which",
		"why", "how", "not", "no",
	)
)

// SplitSentences splits s into sentences, in order. Empty/white-space-only input gives nil.
//
// The result satisfies s[sent.Start:sent.End] == sent.Text; sentences do not
// overlap and together cover every non-space character of s.
func SplitSentences(s string) []Sentence {
	var out []Sentence
	words := wordBoundaries{rest: s, state: -1}
	start, end := 0, 0 // the pending sentence s[start:end]
	for rest, state := s, -1; rest != ""; {
		var seg string
		seg, rest, state = uniseg.FirstSentenceInString(rest, state)
		end += len(seg)
		if n := citation(s[start:end], rest); n > 0 {
			// UAX #29 breaks "born in 1990.[1] He" after the "[": move
			// the boundary past the reference and restart segmentation
			// there, at a sentence start.
			end += n
			rest, state = rest[n:], -1
		}
		if rest != "" && (!words.at(end) || continues(s[start:end], rest)) {
			continue
		}
		out = appendTrimmed(out, s, start, end)
		start = end
	}
	return out
}

// appendTrimmed appends s[start:end], trimmed of white space, unless empty.
func appendTrimmed(out []Sentence, s string, start, end int) []Sentence {
	seg := s[start:end]
	t := strings.TrimLeftFunc(seg, unicode.IsSpace)
	start += len(seg) - len(t)
	t = strings.TrimRightFunc(t, unicode.IsSpace)
	if t == "" {
		return out
	}
	return append(out, Sentence{Text: t, Start: start, End: start + len(t)})
}

// wordBoundaries walks the UAX #29 word boundaries of a string, so that
// sentence boundaries inside a word can be rejected. Queries must come in
// increasing order.
type wordBoundaries struct {
	rest  string
	pos   int
	state int
}

// at reports whether byte offset p is a word boundary.
func (w *wordBoundaries) at(p int) bool {
	for w.pos < p && w.rest != "" {
		var seg string
		seg, w.rest, w.state = uniseg.FirstWordInString(w.rest, w.state)
		w.pos += len(seg)
	}
	return w.pos == p
}

// maxCitation is the longest text citation accepts between brackets.
const maxCitation = 24

// citation returns the length of the Wikipedia-style references ("1]",
// "1][2]") that follow a sentence ending in "[", or 0. UAX #29 only breaks
// after such a "[" when no lowercase letter follows, so "[note 1]" stays
// where UAX #29 leaves it.
func citation(sent, next string) int {
	if !strings.HasSuffix(sent, "[") {
		return 0
	}
	n, good := 0, 0
	for {
		i := strings.IndexAny(next[n:min(len(next), n+maxCitation+1)], "[]\n\r")
		if i <= 0 || next[n+i] != ']' {
			return good
		}
		n += i + 1
		good = n
		if !strings.HasPrefix(next[n:], "[") {
			return good
		}
		n++ // the "[" of the next reference
	}
}

// continues reports whether the UAX #29 boundary between sentence sent and
// the text next is a false one: a lowercase word follows, or the period
// belongs to an abbreviation or initial.
func continues(sent, next string) bool {
	body := strings.TrimRightFunc(sent, unicode.IsSpace)
	if strings.ContainsAny(sent[len(body):], "\n\r\u0085\u2028\u2029") {
		return false // a line break is a paragraph break
	}
	nextWord, nextDigit := firstWord(next)
	if r, _ := utf8.DecodeRuneInString(nextWord); unicode.IsLower(r) {
		// UAX #29 already keeps "etc. and" together, but not `"Why?" he
		// asked` or "Yahoo! is".
		return true
	}
	if !strings.HasSuffix(body, ".") {
		return false // "?", "!", or closing quotes/brackets after the period
	}
	body = body[:len(body)-1]
	word := lastWord(body)
	if word == "" {
		return false
	}

	if r, n := utf8.DecodeRuneInString(word); n == len(word) {
		// One letter: "v." (versus) never ends a sentence, "c." / "p."
		// only before a number, capitals are initials.
		switch {
		case r == 'v':
			return true
		case r == 'c' || r == 'p':
			return nextDigit
		case unicode.IsUpper(r):
			return !isOpener(nextWord)
		}
		return false
	}
	lw := strings.ToLower(word)
	if _, ok := strongAbbrevs[lw]; ok {
		return true
	}
	if _, ok := numAbbrevs[lw]; ok {
		return nextDigit
	}
	if _, ok := weakAbbrevs[lw]; ok || isInitialism(lw) {
		return !isOpener(nextWord)
	}
	return false
}

// maxWordScan bounds how far around a boundary the abbreviation heuristics
// look, so that pathological input cannot make SplitSentences quadratic.
const maxWordScan = 32

// lastWord returns the trailing run of letters and periods of s ("U.S",
// "Mr", "e.g"), or "" if that run is glued to something else, like the
// digit in "1st" or the hyphen in "X-Men".
func lastWord(s string) string {
	i := len(s)
	for i > 0 {
		if len(s)-i > maxWordScan {
			return "" // too long for an abbreviation; also bounds the work
		}
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		i -= n
	}
	w := s[i:]
	if w == "" || w[0] == '.' {
		return ""
	}
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(r) && !unicode.In(r, unicode.Ps, unicode.Pi) && r != '"' && r != '\'' {
			return ""
		}
	}
	return w
}

// firstWord returns the first run of letters of s after leading white space
// and opening quotes or brackets, and whether a digit comes first instead.
func firstWord(s string) (word string, digit bool) {
	cut := len(s) > 2*maxWordScan
	if cut {
		// Openers are short; a window keeps the work per boundary bounded.
		n := 2 * maxWordScan
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	s = strings.TrimLeftFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.In(r, unicode.Ps, unicode.Pi) || r == '"' || r == '\''
	})
	r, _ := utf8.DecodeRuneInString(s)
	if unicode.IsDigit(r) {
		return "", true
	}
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if i < 0 {
		if cut {
			return "", false // the word may go on past the window
		}
		i = len(s)
	}
	return s[:i], false
}

// isOpener reports whether w is a capitalized typical sentence opener.
func isOpener(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return false
	}
	_, ok := sentenceOpeners[strings.ToLower(w)]
	return ok
}

// isInitialism reports whether w is single letters joined by periods
// ("u.s", "d.c", "j.r.r").
func isInitialism(w string) bool {
	n := 0           // letters seen
	wantDot := false // letters and periods must alternate
	for _, r := range w {
		switch {
		case wantDot && r == '.':
		case !wantDot && unicode.IsLetter(r):
			n++
		default:
			return false
		}
		wantDot = !wantDot
	}
	return n >= 2
}
