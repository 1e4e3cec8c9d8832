package sentencepiece

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// useLiteReserved is the runtime's RESERVED_SYMBOLS_COUNT: ids 0-5
// ("�" = unknown, <s>, </s>, extra_token_id_1..3) are never matched.
const useLiteReserved = 6

// encodeJS reproduces Tokenizer.encode of USE-Lite's JavaScript runtime
// statement by statement, including its quirks (see ReadUSELite's doc).
func (t *Tokenizer) encodeJS(s string) []int {
	s = norm.NFKC.String(s)
	if s == "" {
		return nil
	}
	rs := []rune(Space + strings.ReplaceAll(s, " ", Space))
	n := len(rs)
	// best[i] == 0 doubles as "not reached" in the runtime, so a path whose
	// score sums to exactly 0 can be overwritten by any later candidate.
	best := make([]float64, n+1)
	words := make([]int, n+1)
	// Candidates grouped by end position, each group in increasing start
	// order: the runtime's nodes[end][start], whose integer keys JavaScript
	// iterates in ascending order.
	type cand struct {
		start int
		id    int32
		score float64
	}
	ends := make([][]cand, n+1)
	for i := 0; i < n; i++ {
		found := false
		t.trie.walkRunes(rs[i:], func(k int, id int32) {
			found = true
			ends[i+k] = append(ends[i+k], cand{i, id, t.pieces[id].Score})
		})
		if !found {
			// commonPrefixSearch's fallback: the single character as id 0
			// with score 0.
			ends[i+1] = append(ends[i+1], cand{i, 0, 0})
		}
	}
	for end := 0; end <= n; end++ {
		for _, c := range ends[end] {
			score := c.score + best[c.start]
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = int(c.id)
			}
		}
	}
	// Backtracking steps back by the piece's JavaScript string length, in
	// UTF-16 code units, although positions count code points: a piece
	// with an astral character jumps one position too far.
	var results []int
	for iter := n; iter > 0; iter -= t.jsLen[words[iter]] {
		results = append(results, words[iter])
	}
	// Runs of unknown ids (0) collapse into one, then the order is reversed.
	out := make([]int, 0, len(results))
	prevUnk := false
	for _, id := range results {
		if !(prevUnk && id == 0) {
			out = append(out, id)
		}
		prevUnk = id == 0
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
