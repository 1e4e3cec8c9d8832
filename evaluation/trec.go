package evaluation

import (
	"io"
	"math"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trec"
)

// WriteRun writes the report's rankings as a TREC run ("qid Q0 docid rank
// score tag"), with the scores of RunScores: strictly decreasing in as2's
// order, so that trec_eval, which re-sorts by score and orders equal scores
// by docid, evaluates the file to as2's own numbers on every ranker.
func WriteRun(w io.Writer, rep *Report, tag string) error {
	var run trec.Run
	for _, r := range rep.Rankings {
		AddRun(&run, r.Question, r.Ranked, tag)
	}
	return trec.WriteRun(w, run)
}

// AddRun appends one question's ranking to run, with RunScores.
func AddRun(run *trec.Run, q *dataset.Question, ranked []rank.Scored, tag string) {
	scores := RunScores(ranked)
	for k, s := range ranked {
		run.Add(trec.Result{QueryID: q.ID, DocID: q.Candidates[s.Index].ID, Rank: k + 1, Score: scores[k], Tag: tag})
	}
}

// tieStep is the relative size of the tie break: small enough that a
// written score reads as the ranker's (3.2, 3.1999968, ...), large enough
// to survive float64 rounding.
const tieStep = 1e-6

// RunScores returns the scores to write for a ranking (best first): the
// ranker's own score wherever it is already below the one before, and
// otherwise (a tie, which as2 broke by document order or a seeded
// permutation) that score lowered by a tiny step per place in the tie,
// never reaching the next lower score. Infinite scores (an empty candidate
// is scored -Inf) become one unit beyond the finite ones. The result is
// finite and strictly decreasing, and since trec.WriteRun writes float64s
// exactly, trec_eval's order is as2's order. When that cannot be done with
// the ranker's scores (NaN, or ties packed closer than float64 can
// separate), the question gets rank-based scores instead: n, n-1, ..., 1.
func RunScores(ranked []rank.Scored) []float64 {
	n := len(ranked)
	s := make([]float64, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, r := range ranked {
		s[k] = r.Score
		if !math.IsInf(r.Score, 0) && !math.IsNaN(r.Score) {
			lo, hi = min(lo, r.Score), max(hi, r.Score)
		}
	}
	if lo > hi { // no finite score
		lo, hi = 0, 0
	}
	for k := range s {
		switch {
		case math.IsInf(s[k], 1):
			s[k] = hi + 1
		case math.IsInf(s[k], -1):
			s[k] = lo - 1
		}
	}
	w := make([]float64, n)
	for a := 0; a < n; {
		// The tie group [a, b) shares score s[a].
		b := a + 1
		for b < n && s[b] == s[a] {
			b++
		}
		step := tieStep * max(1, math.Abs(s[a]))
		if b < n {
			step = min(step, (s[a]-s[b])/float64(b-a+1))
		}
		for k := a; k < b; k++ {
			w[k] = s[a] - float64(k-a)*step
			if k > 0 && !(w[k] < w[k-1]) {
				w[k] = math.Nextafter(w[k-1], math.Inf(-1))
			}
		}
		a = b
	}
	for k := range w {
		if math.IsNaN(w[k]) || math.IsInf(w[k], 0) || (k > 0 && !(w[k] < w[k-1])) {
			for j := range w {
				w[j] = float64(n - j)
			}
			break
		}
	}
	return w
}

// Qrels returns the labels of qs as TREC qrels (relevance 0 or 1).
func Qrels(qs []dataset.Question) trec.Qrels {
	q := trec.Qrels{}
	for i := range qs {
		docs := make(map[string]int, len(qs[i].Candidates))
		for _, c := range qs[i].Candidates {
			if c.Label != dataset.Unlabeled {
				docs[c.ID] = c.Label
			}
		}
		q[qs[i].ID] = docs
	}
	return q
}

// WriteQrels writes the labels of qs as TREC qrels.
func WriteQrels(w io.Writer, qs []dataset.Question) error {
	return trec.WriteQrels(w, Qrels(qs))
}
