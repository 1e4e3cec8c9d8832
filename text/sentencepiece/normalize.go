package sentencepiece

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// NFKC is Unicode NFKC, SentencePiece's "nfkc" rule.
func NFKC(s string) string { return norm.NFKC.String(s) }

// NMTNFKC is SentencePiece's default "nmt_nfkc" rule: NFKC, except that
// ASCII controls other than tab/newline/CR are deleted, a few white-space-like
// characters (tab, newline, form feed, CR, U+1680, zero-width space and
// non-joiner, LRM/RLM, line and paragraph separators, U+2581, BOM, U+FFFD)
// become spaces, and the fullwidth tilde U+FF5E is kept (it means something
// else than "~" in Japanese). The list is MergeNmtMap in sentencepiece's
// builder.cc. NUL and the zero-width joiner are kept.
func NMTNFKC(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	changed := false
	for _, r := range s {
		switch {
		case r == 0x09 || r == 0x0A || r == 0x0C || r == 0x0D || r == 0x1680 ||
			r == 0x200B || r == 0x200C || r == 0x200E || r == 0x200F ||
			r == 0x2028 || r == 0x2029 || r == 0x2581 || r == 0xFEFF || r == 0xFFFD:
			b.WriteByte(' ')
			changed = true
		case (r >= 0x01 && r <= 0x08) || r == 0x0B || (r >= 0x0E && r <= 0x1F) ||
			r == 0x7F || r == 0x8F || r == 0x9F:
			changed = true
		default:
			b.WriteRune(r)
		}
	}
	if changed {
		s = b.String()
	}
	if !strings.ContainsRune(s, 0xFF5E) {
		return norm.NFKC.String(s)
	}
	parts := strings.Split(s, "\uff5e")
	for i, p := range parts {
		parts[i] = norm.NFKC.String(p)
	}
	return strings.Join(parts, "\uff5e")
}

// normalize applies the normalizer and SentencePiece's white space rules:
// optionally trim and collapse runs of spaces, turn every space into "▁"
// and put "▁" in front (add_dummy_prefix). Hugging Face's Metaspace puts it
// in front only where the text does not already start with "▁", so a
// leading space there is the prefix, not a second one.
func (t *Tokenizer) normalize(s string) string {
	if t.opts.Normalize != nil {
		s = t.opts.Normalize(s)
	}
	if t.opts.RemoveExtraWhitespaces {
		s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' }), " ")
	}
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, " ", Space)
	if t.opts.AddDummyPrefix && (t.opts.Algorithm != HuggingFace || !strings.HasPrefix(s, Space)) {
		s = Space + s
	}
	return s
}
