package rank

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/as2/as2/dataset"
)

// Ranker scores the candidates of a question. It returns one score per
// candidate, in the order of q.Candidates; higher is better. It must not read
// the candidates' labels, and must honour ctx's cancellation in long work.
type Ranker interface {
	Score(ctx context.Context, q *dataset.Question) ([]float64, error)
}

// Func adapts a function to Ranker.
type Func func(ctx context.Context, q *dataset.Question) ([]float64, error)

// Score calls f.
func (f Func) Score(ctx context.Context, q *dataset.Question) ([]float64, error) { return f(ctx, q) }

// Order returns the indices of q's candidates sorted by descending score;
// equal scores keep ascending Position (document order), then index order.
func Order(q *dataset.Question, scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if scores[i] != scores[j] {
			return scores[i] > scores[j]
		}
		return q.Candidates[i].Position < q.Candidates[j].Position
	})
	return idx
}

// Scored is one candidate of a ranking.
type Scored struct {
	Index int     // index in q.Candidates
	Score float64 // the ranker's score
}

// Texts scores texts as one question's candidates, in the given order
// (the positions structure-aware rankers read: a document's sentences, or
// a retriever's hits), and returns them best first.
func Texts(ctx context.Context, r Ranker, question string, texts []string) ([]Scored, error) {
	q := &dataset.Question{ID: "question", Text: question, Candidates: make([]dataset.Candidate, len(texts))}
	for i, t := range texts {
		q.Candidates[i] = dataset.Candidate{ID: strconv.Itoa(i), Text: t, Position: i, Label: dataset.Unlabeled}
	}
	return Rank(ctx, r, q)
}

// Rank scores q with r and returns its candidates in rank order. Empty
// candidates are never shown to r (SkipEmpty).
func Rank(ctx context.Context, r Ranker, q *dataset.Question) ([]Scored, error) {
	return SkipEmpty(q, func(q *dataset.Question) ([]Scored, error) { return rankAll(ctx, r, q) })
}

// SkipEmpty ranks q's candidates with rank, which is given q without its
// empty (white-space) candidates, if it has any: a ranker has nothing to
// score in them, and a model's score of an empty text can beat an answer.
// They come last, in document order, with score -Inf, which is how every
// ranking as2 prints (as2 rank, the service, evaluation) places them.
func SkipEmpty(q *dataset.Question, rank func(*dataset.Question) ([]Scored, error)) ([]Scored, error) {
	if !q.HasEmpty() {
		return rank(q)
	}
	sub := *q
	sub.Candidates = make([]dataset.Candidate, 0, len(q.Candidates))
	var index, empty []int // sub's candidates' indices in q; q's empty ones
	for i := range q.Candidates {
		if q.Candidates[i].IsEmpty() {
			empty = append(empty, i)
			continue
		}
		sub.Candidates = append(sub.Candidates, q.Candidates[i])
		index = append(index, i)
	}
	out := make([]Scored, 0, len(q.Candidates))
	if len(sub.Candidates) > 0 {
		ranked, err := rank(&sub)
		if err != nil {
			return nil, err
		}
		for _, s := range ranked {
			out = append(out, Scored{Index: index[s.Index], Score: s.Score})
		}
	}
	sort.SliceStable(empty, func(a, b int) bool {
		return q.Candidates[empty[a]].Position < q.Candidates[empty[b]].Position
	})
	for _, i := range empty {
		out = append(out, Scored{Index: i, Score: math.Inf(-1)})
	}
	return out, nil
}

func rankAll(ctx context.Context, r Ranker, q *dataset.Question) ([]Scored, error) {
	scores, err := r.Score(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(scores) != len(q.Candidates) {
		return nil, fmt.Errorf("ranker returned %d scores for %d candidates", len(scores), len(q.Candidates))
	}
	out := make([]Scored, 0, len(scores))
	for _, i := range Order(q, scores) {
		out = append(out, Scored{Index: i, Score: scores[i]})
	}
	return out, nil
}
