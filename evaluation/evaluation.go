// Package evaluation measures a ranker on a set of questions: it ranks every
// question's candidates, breaks score ties as asked, and computes the
// metric package's trec_eval measures per question and on average. The
// rankings it keeps can be written as a TREC run, and the labels as TREC
// qrels, so that trec_eval can check every number as2 reports.
//
// It also writes what as2 rank and as2 eval print, so that a Go program
// gets the same output without the command: WriteRankings (tsv, json or
// trec rankings, calibrated or not) and Summary (an evaluation's table or
// JSON).
package evaluation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
)

// Ties says how candidates with equal scores are ordered.
type Ties string

const (
	// ByPosition keeps equal scores in document (original) order: the
	// default, stated with every result.
	ByPosition Ties = "position"
	// Random orders equal scores by a seeded random permutation of each
	// question's candidates.
	Random Ties = "random"
)

// ParseTies turns a flag value into Ties.
func ParseTies(s string) (Ties, error) {
	switch Ties(s) {
	case ByPosition, Random:
		return Ties(s), nil
	}
	return "", fmt.Errorf("unknown tie-break %q (want position or random)", s)
}

// Options control Evaluate.
type Options struct {
	Measures []metric.Measure // nil: metric.DefaultMeasures()
	Ties     Ties             // "": ByPosition
	Seed     uint64           // for Random ties
	// Progress, if set, is called after each question with the number done.
	Progress func(done int)
}

// Ranking is one question's ranked candidates.
type Ranking struct {
	Question *dataset.Question
	Ranked   []rank.Scored
}

// Report is the outcome of Evaluate.
type Report struct {
	Questions int
	Result    metric.Result
	Rankings  []Ranking
}

// Evaluate ranks every question of qs with r and measures the rankings.
// Every candidate must be labelled.
func Evaluate(ctx context.Context, r rank.Ranker, qs []dataset.Question, opts Options) (*Report, error) {
	ms := opts.Measures
	if ms == nil {
		ms = metric.DefaultMeasures()
	}
	rep := &Report{Questions: len(qs)}
	queries := make([]metric.Query, 0, len(qs))
	for i := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q := &qs[i]
		if !q.Labelled() {
			return nil, fmt.Errorf("question %q has unlabelled candidates: nothing to evaluate against", q.ID)
		}
		ranked, err := Rank(ctx, r, q, opts.Ties, opts.Seed+uint64(i))
		if err != nil {
			return nil, fmt.Errorf("question %q: %w", q.ID, err)
		}
		rep.Rankings = append(rep.Rankings, Ranking{Question: q, Ranked: ranked})
		mq := metric.Query{ID: q.ID, Ranked: make([]int, len(ranked))}
		for k, s := range ranked {
			mq.Ranked[k] = q.Candidates[s.Index].Label
		}
		queries = append(queries, mq)
		if opts.Progress != nil {
			opts.Progress(i + 1)
		}
	}
	rep.Result = metric.Evaluate(queries, ms)
	return rep, nil
}

// Rank ranks q's candidates with r, ordering equal scores as ties says;
// seed drives the Random tie-break. Empty candidates (kept by
// dataset.EmptyKeep) are never shown to r, which has nothing to score in
// them: they come last, in document order, with score -Inf.
func Rank(ctx context.Context, r rank.Ranker, q *dataset.Question, ties Ties, seed uint64) ([]rank.Scored, error) {
	return rank.SkipEmpty(q, func(q *dataset.Question) ([]rank.Scored, error) { return rankTies(ctx, r, q, ties, seed) })
}

func rankTies(ctx context.Context, r rank.Ranker, q *dataset.Question, ties Ties, seed uint64) ([]rank.Scored, error) {
	ranked, err := rank.Rank(ctx, r, q)
	if err != nil || ties != Random {
		return ranked, err
	}
	key := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(len(ranked))
	sort.SliceStable(ranked, func(a, b int) bool {
		if ranked[a].Score != ranked[b].Score {
			return ranked[a].Score > ranked[b].Score
		}
		return key[ranked[a].Index] < key[ranked[b].Index]
	})
	return ranked, nil
}

// Describe says, in words, how results were computed; printed with every
// table so that numbers are never quoted without their protocol.
func Describe(subset dataset.Subset, ties Ties) string {
	var b strings.Builder
	switch subset {
	case dataset.Answered:
		b.WriteString("subset answered (questions with >= 1 correct candidate)")
	case dataset.Filtered:
		b.WriteString("subset filtered (questions with >= 1 correct and >= 1 incorrect candidate)")
	default:
		b.WriteString("subset all (questions without a correct candidate score 0)")
	}
	if ties == Random {
		b.WriteString("; equal scores in seeded random order")
	} else {
		b.WriteString("; equal scores in document order")
	}
	return b.String()
}

// Positions tells how often a ranker puts each document position first,
// against where the correct answers are: a ranker that learnt a
// benchmark's habit (WikiQA's answers are often its first sentence) puts
// the first positions on top far more often than gold answers sit there.
type Positions struct {
	// Top[p] is the fraction of questions whose top candidate is at
	// position p (candidates' Position: their place in the document).
	Top []float64 `json:"top"`
	// Gold[p] is the fraction of questions with a correct candidate at
	// position p (a question with several counts at each).
	Gold []float64 `json:"gold"`
}

// Positions returns the rates of positions 0 to buckets-2, and of every
// later position together in the last bucket.
func (r *Report) Positions(buckets int) Positions {
	p := Positions{Top: make([]float64, buckets), Gold: make([]float64, buckets)}
	bucket := func(pos int) int { return min(max(pos, 0), buckets-1) }
	n := 0
	for _, rk := range r.Rankings {
		if len(rk.Ranked) == 0 {
			continue
		}
		n++
		p.Top[bucket(rk.Question.Candidates[rk.Ranked[0].Index].Position)]++
		seen := make([]bool, buckets)
		for _, c := range rk.Question.Candidates {
			if b := bucket(c.Position); c.Label == dataset.Positive && !seen[b] {
				seen[b] = true
				p.Gold[b]++
			}
		}
	}
	for i := range buckets {
		if n > 0 {
			p.Top[i] /= float64(n)
			p.Gold[i] /= float64(n)
		}
	}
	return p
}
