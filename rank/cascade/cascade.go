// Package cascade composes rankers into a sequential reranker (Matsubara et
// al. 2020, "Reranking for efficient transformer-based answer selection";
// ../shared/papers/sequential-rerankers-transformer-as2.md): a cheap ranker
// scores every candidate and passes its best k on, a slower and more accurate
// one reranks those, and so on. A Cascade is itself a rank.Ranker.
//
// Candidates dropped at a stage rank below every candidate that went on, in
// the order of the stage that dropped them; the scores a Cascade returns
// encode exactly that order (see Score). Each stage's later rankers see the
// surviving candidates in their original order, which structure-aware
// rankers (an RNN over the document's sentences) need.
package cascade

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// Stage is one ranker of a cascade and how many candidates it passes on
// (K <= 0: all of them). Score ignores the last stage's K: cutting the final
// list is for whoever shows it (as2 rank --top, the service's top_n).
type Stage struct {
	Name   string
	Ranker rank.Ranker
	K      int

	calls, nanos, pairs atomic.Int64
}

// Cascade runs its stages in order.
type Cascade struct {
	Stages []*Stage
}

// New returns a cascade of the stages.
func New(stages ...*Stage) (*Cascade, error) {
	if len(stages) == 0 {
		return nil, fmt.Errorf("cascade: no stages")
	}
	for i, s := range stages {
		if s.Ranker == nil {
			return nil, fmt.Errorf("cascade: stage %d (%s) has no ranker", i+1, s.Name)
		}
	}
	return &Cascade{Stages: stages}, nil
}

// squash maps a score into (0, 1), keeping its order.
func squash(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return 0.5 + math.Atan(x)/math.Pi
}

// Score implements rank.Ranker. A candidate that reached stage t (counted
// from 0) and got score x there scores t + squash(x): later stages always
// outrank earlier ones, and within a stage its own order holds.
func (c *Cascade) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	out := make([]float64, len(q.Candidates))
	alive := make([]int, len(q.Candidates)) // indices into q.Candidates, in original order
	for i := range alive {
		alive[i] = i
	}
	for t, st := range c.Stages {
		sub := &dataset.Question{ID: q.ID, Text: q.Text, Candidates: make([]dataset.Candidate, len(alive))}
		for j, i := range alive {
			sub.Candidates[j] = q.Candidates[i]
		}
		start := time.Now()
		ranked, err := rank.Rank(ctx, st.Ranker, sub)
		if err != nil {
			return nil, fmt.Errorf("cascade stage %d (%s): %w", t+1, st.Name, err)
		}
		st.calls.Add(1)
		st.nanos.Add(int64(time.Since(start)))
		st.pairs.Add(int64(len(alive)))
		for _, s := range ranked {
			out[alive[s.Index]] = float64(t) + squash(s.Score)
		}
		if t == len(c.Stages)-1 || st.K <= 0 || st.K >= len(ranked) {
			continue // the last stage, or nothing to drop
		}
		keep := make([]int, 0, st.K)
		for _, s := range ranked[:st.K] {
			keep = append(keep, alive[s.Index])
		}
		// Back to original order for the next stage.
		inKeep := make(map[int]bool, len(keep))
		for _, i := range keep {
			inKeep[i] = true
		}
		next := alive[:0:0]
		for _, i := range alive {
			if inKeep[i] {
				next = append(next, i)
			}
		}
		alive = next
	}
	return out, nil
}

// StageStats is the work a stage has done.
type StageStats struct {
	Name    string
	K       int
	Calls   int64         // questions scored
	Pairs   int64         // candidates scored
	Latency time.Duration // mean time per question
}

// Stats reports each stage's work since the cascade was built.
func (c *Cascade) Stats() []StageStats {
	out := make([]StageStats, len(c.Stages))
	for i, s := range c.Stages {
		out[i] = StageStats{Name: s.Name, K: s.K, Calls: s.calls.Load(), Pairs: s.pairs.Load()}
		if n := s.calls.Load(); n > 0 {
			out[i].Latency = time.Duration(s.nanos.Load() / n)
		}
	}
	return out
}

// Resolver builds the ranker for a stage spec's NAME and optional FILE.
type Resolver func(name, file string) (rank.Ranker, error)

// Parse reads a cascade spec, "NAME[=FILE]:K,NAME[=FILE]:K,...": a
// rule-based ranker such as bm25:100, or a named model file such as
// cosinet=m.as2:10. K is how many candidates the stage passes on; ":K" may
// be omitted (pass all on), and the last stage's K is only informative.
func Parse(spec string, resolve Resolver) (*Cascade, error) {
	var stages []*Stage
	for i, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("cascade %q: stage %d is empty", spec, i+1)
		}
		k := 0
		if j := strings.LastIndex(part, ":"); j >= 0 {
			n, err := strconv.Atoi(part[j+1:])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("cascade %q: stage %d (%s): K %q is not a positive integer", spec, i+1, part, part[j+1:])
			}
			k, part = n, part[:j]
		}
		name, file, _ := strings.Cut(part, "=")
		if name == "" {
			return nil, fmt.Errorf("cascade %q: stage %d has no name", spec, i+1)
		}
		r, err := resolve(name, file)
		if err != nil {
			return nil, fmt.Errorf("cascade %q: stage %d (%s): %w", spec, i+1, part, err)
		}
		stages = append(stages, &Stage{Name: name, Ranker: r, K: k})
	}
	return New(stages...)
}

// WriteStats writes Stats as a table: each stage's k, the questions and
// candidates it scored, and its mean latency per question.
func (c *Cascade) WriteStats(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "stage\tk\tquestions\tcandidates scored\tmean latency per question")
	for i, st := range c.Stats() {
		fmt.Fprintf(tw, "%d %s\t%d\t%d\t%d\t%s\n", i+1, st.Name, st.K, st.Calls, st.Pairs, st.Latency)
	}
	return tw.Flush()
}
