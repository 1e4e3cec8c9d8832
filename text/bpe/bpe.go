// Package bpe is byte-level byte-pair encoding (Sennrich et al. 2016, on
// bytes as GPT-2 has it, Radford et al. 2019), the subword model of
// RoBERTa, GPT-2 and ModernBERT: text is cut into pre-tokens by GPT-2's
// pattern, each pre-token's UTF-8 bytes are mapped to printable characters,
// and adjacent symbols are merged in the order of the learnt merges.
//
// It is written here rather than taken from a library because the Go
// ports of Hugging Face's tokenizers either need cgo (daulet/tokenizers)
// or carry the whole training stack; the algorithm itself is short.
package bpe

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// byteRunes is GPT-2's bytes_to_unicode: printable bytes stand for
// themselves, the others are moved to U+0100 onwards, so that every byte
// is one visible character in the vocabulary.
var byteRunes, runeBytes = func() ([256]rune, map[rune]byte) {
	var br [256]rune
	rb := make(map[rune]byte, 256)
	n := 0
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			br[b] = rune(b)
		} else {
			br[b] = rune(256 + n)
			n++
		}
		rb[br[b]] = byte(b)
	}
	return br, rb
}()

// ByteRune is the character byte b stands for in a byte-level vocabulary.
func ByteRune(b byte) rune { return byteRunes[b] }

// Bytes maps a byte-level token back to its bytes; ok is false when the
// token holds a character that stands for no byte.
func Bytes(token string) (b []byte, ok bool) {
	for _, r := range token {
		v, found := runeBytes[r]
		if !found {
			return nil, false
		}
		b = append(b, v)
	}
	return b, true
}

type pair struct{ a, b string }

// Model is a BPE vocabulary and its merges.
type Model struct {
	vocab map[string]int
	ranks map[pair]int
	unk   int // -1: none, pieces missing from the vocabulary are dropped
}

// New builds a model from a vocabulary (token to id) and the merges in
// learnt order. unk is the unknown token ("" for none, as RoBERTa's, whose
// 256 byte tokens cover every input).
func New(vocab map[string]int, merges [][2]string, unk string) (*Model, error) {
	m := &Model{vocab: vocab, ranks: make(map[pair]int, len(merges)), unk: -1}
	for i, mg := range merges {
		if _, ok := vocab[mg[0]+mg[1]]; !ok {
			return nil, fmt.Errorf("bpe: merge %d (%q %q): %q is not in the vocabulary", i, mg[0], mg[1], mg[0]+mg[1])
		}
		if _, dup := m.ranks[pair{mg[0], mg[1]}]; !dup {
			m.ranks[pair{mg[0], mg[1]}] = i
		}
	}
	if unk != "" {
		id, ok := vocab[unk]
		if !ok {
			return nil, fmt.Errorf("bpe: unk_token %q is not in the vocabulary", unk)
		}
		m.unk = id
	}
	return m, nil
}

// Word encodes one pre-token, already mapped to byte characters, appending
// its tokens and ids.
func (m *Model) Word(word string, toks []string, ids []int) ([]string, []int) {
	parts := make([]string, 0, utf8.RuneCountInString(word))
	for i, r := range word {
		parts = append(parts, word[i:i+utf8.RuneLen(r)])
	}
	// Merge the lowest-ranked adjacent pair, all its occurrences left to
	// right, until no pair has a merge (GPT-2's bpe()).
	for len(parts) > 1 {
		best, rank := pair{}, -1
		for i := 0; i+1 < len(parts); i++ {
			if r, ok := m.ranks[pair{parts[i], parts[i+1]}]; ok && (rank < 0 || r < rank) {
				best, rank = pair{parts[i], parts[i+1]}, r
			}
		}
		if rank < 0 {
			break
		}
		out := parts[:0:0]
		for i := 0; i < len(parts); i++ {
			if i+1 < len(parts) && parts[i] == best.a && parts[i+1] == best.b {
				out = append(out, best.a+best.b)
				i++
			} else {
				out = append(out, parts[i])
			}
		}
		parts = out
	}
	for _, p := range parts {
		id, ok := m.vocab[p]
		switch {
		case ok:
		case m.unk >= 0:
			id = m.unk
		default:
			continue
		}
		toks, ids = append(toks, p), append(ids, id)
	}
	return toks, ids
}

// ByteLevel maps a pre-token's bytes to their characters.
func ByteLevel(s string) string {
	out := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = byteRunes[s[i]]
	}
	return string(out)
}

// Split cuts s at GPT-2's pre-token boundaries, the pattern
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// matched by hand, since Go's regexp has no look-ahead.
func Split(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		n := matchAt(s, i)
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}

var contractions = []string{"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"}

func isOther(r rune) bool { return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r) }

// matchAt is the length of the pre-token at s[i:] (at least one byte).
func matchAt(s string, i int) int {
	for _, c := range contractions {
		if len(s)-i >= len(c) && s[i:i+len(c)] == c {
			return len(c)
		}
	}
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		j = i + 1
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	for _, class := range []func(rune) bool{unicode.IsLetter, unicode.IsNumber, isOther} {
		if !class(r) {
			continue
		}
		k := j
		for k < len(s) {
			r, w := utf8.DecodeRuneInString(s[k:])
			if !class(r) {
				break
			}
			k += w
		}
		return k - i
	}
	// White space (or a lone space before white space): \s+(?!\S) leaves
	// the last space of a run for the token after it.
	k, last := i, i
	for k < len(s) {
		r, w := utf8.DecodeRuneInString(s[k:])
		if !unicode.IsSpace(r) {
			break
		}
		last = k
		k += w
	}
	if k == i { // not reached: every rune is in one class
		_, w := utf8.DecodeRuneInString(s[i:])
		return w
	}
	if k < len(s) && last > i {
		return last - i
	}
	return k - i
}
