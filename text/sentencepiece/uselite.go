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
	// The runtime collects candidates as nodes[end][start] and then relaxes
	// each end's candidates in increasing start order (JavaScript iterates
	// integer keys in ascending order). Relaxing forward from each start in
	// increasing order applies the same updates in the same order per end,
	// and best[start] is final by then, so no lattice needs storing.
	for i := 0; i < n; i++ {
		base := best[i]
		relax := func(end int, score float64, id int) {
			score += base
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = id
			}
		}
		found := false
		t.trie.walkRunes(rs[i:], func(k int, id int32) {
			found = true
			relax(i+k, t.pieces[id].Score, int(id))
		})
		if !found {
			// commonPrefixSearch's fallback: the single character as id 0
			// with score 0.
			relax(i+1, 0, 0)
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
