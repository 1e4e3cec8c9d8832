package trec

import (
	"context"
	"fmt"

	"github.com/as2/as2/dataset"
)

// RunRanker is a ranker (package rank's Ranker) that scores each candidate
// with a run's score for it, matching questions by ID and candidates by
// ID: another system's output (a neural model run elsewhere, a search
// engine's scores), so that as2 can evaluate it, blend it with its own
// rankers (as2 tune blend) or put it in a cascade. A question or candidate
// the run does not score is an error, never a silent 0.
type RunRanker struct {
	name   string
	scores map[string]map[string]float64
}

// NewRunRanker returns the ranker of run; name (the file's) is used in
// errors.
func NewRunRanker(run Run, name string) *RunRanker {
	r := &RunRanker{name: name, scores: make(map[string]map[string]float64, len(run.Results))}
	for qid, results := range run.Results {
		docs := make(map[string]float64, len(results))
		for _, res := range results {
			docs[res.DocID] = res.Score
		}
		r.scores[qid] = docs
	}
	return r
}

// Score implements rank.Ranker.
func (r *RunRanker) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	docs, ok := r.scores[q.ID]
	if !ok {
		return nil, fmt.Errorf("run %s: no results for question %q", r.name, q.ID)
	}
	s := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		v, ok := docs[c.ID]
		if !ok {
			return nil, fmt.Errorf("run %s: no score for question %q's candidate %q", r.name, q.ID, c.ID)
		}
		s[i] = v
	}
	return s, nil
}
