package retrieval

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/index"
)

// Cutoffs are the Ns of R@N that Evaluate reports by default, ReQA's.
var Cutoffs = []int{1, 5, 10}

// Run is one question's retrieved answers, best first, and its gold
// answers' ids.
type Run struct {
	Hits []index.Hit
	Gold []string
}

// Result is the outcome of Measure. Measures are fractions in [0, 1].
type Result struct {
	Questions int
	MRR       float64
	// Cutoffs are the Ns of the two recalls, in ascending order.
	Cutoffs []int
	// Success[i] is ReQA's R@N for N = Cutoffs[i]: the fraction of
	// questions with a gold answer in the top N.
	Success []float64
	// RecallEq15[i] is the ENDX paper's R@N (Eq. 15) for N = Cutoffs[i]:
	// the mean fraction of a question's gold answers in its top N.
	RecallEq15 []float64
}

// Rank is a run's rank (1-based) as ReQA counts it: the best rank of a
// gold answer, where hits with equal scores share the mean of their
// positions. It is 0 when no gold answer was retrieved.
func Rank(r Run) float64 {
	best := 0.0
	for i, h := range r.Hits {
		if !slices.Contains(r.Gold, h.ID) {
			continue
		}
		lo, hi := i, i
		for lo > 0 && r.Hits[lo-1].Score == h.Score {
			lo--
		}
		for hi+1 < len(r.Hits) && r.Hits[hi+1].Score == h.Score {
			hi++
		}
		rank := float64(lo+hi)/2 + 1
		if best == 0 || rank < best {
			best = rank
		}
	}
	return best
}

// recallEq15 is |top_n(hits) ∩ gold| / |gold| (ENDX Eq. 15, one question).
func recallEq15(r Run, n int) float64 {
	if len(r.Gold) == 0 {
		return 0
	}
	found := 0
	for _, h := range r.Hits[:min(n, len(r.Hits))] {
		if slices.Contains(r.Gold, h.ID) {
			found++
		}
	}
	return float64(found) / float64(len(r.Gold))
}

// Measure computes the measures of runs at cutoffs (nil: Cutoffs).
func Measure(runs []Run, cutoffs []int) Result {
	if cutoffs == nil {
		cutoffs = Cutoffs
	}
	cutoffs = slices.Clone(cutoffs)
	slices.Sort(cutoffs)
	res := Result{Questions: len(runs), Cutoffs: cutoffs,
		Success: make([]float64, len(cutoffs)), RecallEq15: make([]float64, len(cutoffs))}
	if len(runs) == 0 {
		return res
	}
	for _, r := range runs {
		rank := Rank(r)
		if rank > 0 {
			res.MRR += 1 / rank
		}
		for i, n := range cutoffs {
			if rank > 0 && rank <= float64(n) {
				res.Success[i]++
			}
			res.RecallEq15[i] += recallEq15(r, n)
		}
	}
	q := float64(len(runs))
	res.MRR /= q
	for i := range cutoffs {
		res.Success[i] /= q
		res.RecallEq15[i] /= q
	}
	return res
}

// Options control Evaluate.
type Options struct {
	Depth   int   // answers retrieved per question; 0: 100
	Cutoffs []int // nil: Cutoffs
	// Workers retrieve for that many questions at once (the retriever
	// must then be safe for concurrent use); 0 or 1: one at a time.
	Workers int
	// Progress, if set, is called after each question with the number
	// done (from one goroutine at a time).
	Progress func(done int)
}

// Evaluate retrieves for every question of pool with r and measures the
// rankings. r must hold pool's answers under their ids.
func Evaluate(ctx context.Context, r index.Retriever, pool *reqa.Pool, opts Options) (Result, []Run, error) {
	depth := opts.Depth
	if depth <= 0 {
		depth = 100
	}
	for _, n := range opts.Cutoffs {
		if n < 1 || n > depth {
			return Result{}, nil, fmt.Errorf("cutoff %d: want 1 to the depth %d", n, depth)
		}
	}
	runs := make([]Run, len(pool.Questions))
	workers := max(opts.Workers, 1)
	var (
		mu       sync.Mutex
		done     int
		wg       sync.WaitGroup
		firstErr error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(pool.Questions); i += workers {
				if ctx.Err() != nil {
					return
				}
				q := pool.Questions[i]
				hits, err := r.Retrieve(ctx, q.Text, depth)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("question %q: %w", q.ID, err)
					}
					mu.Unlock()
					cancel()
					return
				}
				runs[i] = Run{Hits: hits, Gold: q.Gold}
				done++
				if opts.Progress != nil {
					opts.Progress(done)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return Result{}, nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return Result{}, nil, err
	}
	return Measure(runs, opts.Cutoffs), runs, nil
}
