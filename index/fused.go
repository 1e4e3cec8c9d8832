package index

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/as2/as2/rank"
)

// RRFK is reciprocal rank fusion's constant, Cormack et al.'s 60.
const RRFK = 60

// The fusions of Fused.
const (
	FusionRRF      = "rrf"      // reciprocal rank fusion: ranks only
	FusionRelative = "relative" // relative score fusion: min-max scaled scores
)

// Fusions lists the fusions.
var Fusions = []string{FusionRRF, FusionRelative}

// Fused is hybrid retrieval: the Depth best answers of each of Retrievers
// (BM25's lexical match and a dual encoder's, say), merged into one list.
// An answer's score is Σ w·s over the lists that hold it, w the list's
// weight (1 unless Weights says) and s, by Fusion:
//
//   - FusionRRF (the default), reciprocal rank fusion (Cormack, Clarke and
//     Büttcher 2009): 1/(K + rank), rank counted from 1. It reads ranks,
//     not scores, so BM25's unbounded scores and a dual encoder's inner
//     products mix without calibration.
//   - FusionRelative, relative score fusion (as Weaviate's hybrid search
//     has it): the score min-max scaled over its list to [0, 1]. It keeps
//     how far apart a list's answers are, which ranks lose.
type Fused struct {
	Retrievers []Retriever
	Weights    []float64 // one per retriever; nil: all 1
	Fusion     string    // FusionRRF when ""
	// Depth is how many answers each list holds, at least the k asked of
	// Retrieve: an answer ranked below Depth in one list but high in
	// another still gets its share.
	Depth int
	K     float64 // RRFK when 0
}

// Check reports what would stop f from retrieving: a weight count other
// than the retrievers', or an unknown fusion. Retrieve checks it; callers
// that configure a Fused ahead of time (a flag, a server's hybrid index)
// check it up front.
func (f Fused) Check() error {
	if f.Weights != nil && len(f.Weights) != len(f.Retrievers) {
		return fmt.Errorf("fusion: %d weights for %d retrievers", len(f.Weights), len(f.Retrievers))
	}
	if f.Fusion != "" && !slices.Contains(Fusions, f.Fusion) {
		return fmt.Errorf("fusion %q: want %s", f.Fusion, strings.Join(Fusions, " or "))
	}
	return nil
}

// Retrieve implements Retriever: the k best of the merged lists. Equal
// scores keep the order in which the lists first name their answers (the
// first retriever's first).
func (f Fused) Retrieve(ctx context.Context, question string, k int) ([]Hit, error) {
	c := f.K
	if c == 0 {
		c = RRFK
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	score := map[string]float64{}
	var order []string
	for i, r := range f.Retrievers {
		w := 1.0
		if f.Weights != nil {
			w = f.Weights[i]
		}
		hits, err := r.Retrieve(ctx, question, max(f.Depth, k))
		if err != nil {
			return nil, fmt.Errorf("fused retriever %d: %w", i+1, err)
		}
		scale := minMaxScaler(len(hits), func(i int) float64 { return hits[i].Score })
		for pos, h := range hits {
			if _, seen := score[h.ID]; !seen {
				order = append(order, h.ID)
			}
			s := 1 / (c + float64(pos+1)) // rank counted from 1
			if f.Fusion == FusionRelative {
				s = scale(h.Score)
			}
			score[h.ID] += w * s
		}
	}
	out := make([]Hit, len(order))
	for i, id := range order {
		out[i] = Hit{ID: id, Score: score[id]}
	}
	slices.SortStableFunc(out, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(k, len(out))], nil
}

// minMaxScaler returns the min-max scaling to [0, 1] of the n scores
// score(0..n-1), relative score fusion's: a list of equal scores scales to
// 1. The range is the finite scores' (a ranker scores an empty candidate
// −Inf, which stays −Inf).
func minMaxScaler(n int, score func(i int) float64) func(float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		if s := score(i); !math.IsInf(s, 0) && !math.IsNaN(s) {
			lo, hi = min(lo, s), max(hi, s)
		}
	}
	return func(s float64) float64 {
		if hi > lo {
			return (s - lo) / (hi - lo)
		}
		return 1
	}
}

// FuseStages orders a reranked list by relative score fusion of the
// ranker's scores (weight 1) and the retriever's (weight w), each min-max
// scaled over the list (Reranked.RetrievalWeight): ranked is the ranker's
// order of hits (its Index into hits), and the result's scores are the
// fused ones. Ties keep the ranker's order.
func FuseStages(ranked []rank.Scored, hits []Hit, w float64) []rank.Scored {
	byRanker := minMaxScaler(len(ranked), func(i int) float64 { return ranked[i].Score })
	byRetriever := minMaxScaler(len(hits), func(i int) float64 { return hits[i].Score })
	out := make([]rank.Scored, len(ranked))
	for i, s := range ranked {
		out[i] = s
		out[i].Score = byRanker(s.Score) + w*byRetriever(hits[s.Index].Score)
	}
	slices.SortStableFunc(out, func(a, b rank.Scored) int { return cmp.Compare(b.Score, a.Score) })
	return out
}
