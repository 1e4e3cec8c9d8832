package wordpiece

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// isBertWhitespace is BERT's _is_whitespace: the three ASCII line/tab
// controls, space, and every Zs character.
func isBertWhitespace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return r > 0x7f && unicode.Is(unicode.Zs, r)
}

// isBertControl is Hugging Face's _is_control: any category starting with
// "C" (Cc, Cf, Cs, Co and unassigned Cn) except tab, newline and carriage
// return, which BERT treats as white space. Google's tokenization.py only
// drops Cc and Cf; Hugging Face's tokenizers (and tokenizer.json files) drop
// all of C*, and that is what BERT checkpoints are served with today.
func isBertControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	if r < 0x20 || r == 0x7f {
		return true
	}
	if r < 0x80 {
		return false
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	// Unassigned code points (Cn) belong to no category table.
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isBertPunct counts all non-alphanumeric ASCII as punctuation ("$", "^",
// "`" are symbols in Unicode but BERT splits them), plus Unicode P*.
func isBertPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return r > 0x7f && unicode.IsPunct(r)
}

// isCJK is BERT's _is_chinese_char: the CJK Unified Ideographs blocks only
// (not Hiragana, Katakana or Hangul, which are written with spaces or are
// handled by WordPiece).
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// basicWords runs BERT's BasicTokenizer on s and calls emit for every
// resulting word. It is one pass over the runes: cleaning, CJK splitting and
// whitespace splitting happen as the runes stream by; lowercasing, accent
// stripping and punctuation splitting work on one whitespace-delimited token
// at a time, as in tokenization.py (lower() sees the whole token, so the
// Greek final-sigma rule sees punctuation next to the sigma).
func (t *Tokenizer) basicWords(s string, emit func(string)) {
	var tok []byte // current whitespace-delimited token
	flush := func() {
		if len(tok) == 0 {
			return
		}
		w := string(tok)
		tok = tok[:0]
		if t.lower {
			w = pyLower(w)
		}
		if t.strip {
			w = stripAccents(w)
		}
		splitPunct(w, emit)
	}
	for _, r := range s {
		if t.clean {
			if r == 0 || r == utf8.RuneError || isBertControl(r) {
				continue
			}
			if isBertWhitespace(r) {
				r = ' '
			}
		}
		if t.chinese && isCJK(r) {
			flush()
			tok = utf8.AppendRune(tok, r)
			flush()
			continue
		}
		// Python's str.split() also splits on Zl/Zp (U+2028, U+2029) and
		// on the controls clean_text already removed.
		if r == ' ' || unicode.IsSpace(r) {
			flush()
			continue
		}
		tok = utf8.AppendRune(tok, r)
	}
	flush()
}

// splitPunct emits the runs of non-punctuation in w and every punctuation
// rune on its own. White space (which lowercasing or NFD could in principle
// produce) separates runs too, as BERT's final whitespace_tokenize does.
func splitPunct(w string, emit func(string)) {
	start := 0
	for i, r := range w {
		p := isBertPunct(r)
		if p || unicode.IsSpace(r) {
			if start < i {
				emit(w[start:i])
			}
			n := utf8.RuneLen(r)
			if r == utf8.RuneError {
				n = 1
			}
			if p {
				emit(w[i : i+n])
			}
			start = i + n
		}
	}
	if start < len(w) {
		emit(w[start:])
	}
}

// stripAccents is NFD followed by dropping nonspacing marks (Mn). The result
// stays decomposed: Hangul syllables become conjoining jamo, as in BERT.
func stripAccents(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	d := norm.NFD.String(w)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pyLower is Python's str.lower(): simple lowercase mapping, except that
// U+0130 (İ) becomes "i̇" (full mapping) and a capital sigma at the end of
// a word becomes final sigma ς (the Final_Sigma context of Unicode's
// SpecialCasing). Go's strings.ToLower does neither, and BERT's reference
// is Python.
func pyLower(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(w)
	}
	rs := []rune(w)
	var b strings.Builder
	b.Grow(len(w) + 2)
	for i, r := range rs {
		switch r {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3A3:
			if finalSigma(rs, i) {
				b.WriteRune(0x3C2)
			} else {
				b.WriteRune(0x3C3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether rs[i] is in the Final_Sigma context:
// \p{Cased} \p{Case_Ignorable}* Σ !(\p{Case_Ignorable}* \p{Cased}).
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is Unicode's derived Cased property.
func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's derived Case_Ignorable property: Mn, Me, Cf,
// Lm, Sk, plus Word_Break MidLetter, MidNumLet and Single_Quote.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
