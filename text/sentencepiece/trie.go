package sentencepiece

import "unicode/utf8"

// trie maps pieces to ids for common-prefix search. Edges live in one map
// keyed by (node, rune), which is compact for a few thousand pieces and needs
// no per-node allocation.
type trie struct {
	edges map[uint64]int32
	ids   []int32 // per node; -1 when no piece ends there
}

func (t *trie) node(s string) int32 {
	if t.ids == nil {
		t.ids = []int32{-1}
		t.edges = make(map[uint64]int32)
	}
	n := int32(0)
	for _, r := range s {
		k := uint64(n)<<21 | uint64(r)
		next, ok := t.edges[k]
		if !ok {
			next = int32(len(t.ids))
			t.ids = append(t.ids, -1)
			t.edges[k] = next
		}
		n = next
	}
	return n
}

// insert sets s's id, replacing an earlier one.
func (t *trie) insert(s string, id int32) { t.ids[t.node(s)] = id }

// insertFirst sets s's id unless s already has one.
func (t *trie) insertFirst(s string, id int32) {
	if n := t.node(s); t.ids[n] < 0 {
		t.ids[n] = id
	}
}

// walk calls f(n, id) for every piece that is a prefix of s, shortest first;
// n is the piece's length in bytes.
func (t *trie) walk(s string, f func(n int, id int32)) {
	if t.ids == nil {
		return
	}
	n := int32(0)
	for i, r := range s {
		if r == utf8.RuneError {
			// Invalid UTF-8 cannot match: pieces are valid UTF-8.
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return
			}
		}
		next, ok := t.edges[uint64(n)<<21|uint64(r)]
		if !ok {
			return
		}
		n = next
		if id := t.ids[n]; id >= 0 {
			f(i+utf8.RuneLen(r), id)
		}
	}
}

// walkRunes is walk over a rune slice; n counts runes.
func (t *trie) walkRunes(rs []rune, f func(n int, id int32)) {
	if t.ids == nil {
		return
	}
	n := int32(0)
	for i, r := range rs {
		next, ok := t.edges[uint64(n)<<21|uint64(r)]
		if !ok {
			return
		}
		n = next
		if id := t.ids[n]; id >= 0 {
			f(i+1, id)
		}
	}
}
