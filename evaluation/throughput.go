package evaluation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// Throughput is the speed of a ranker scoring questions as a service would.
type Throughput struct {
	Pairs    int           // question-candidate pairs scored
	Wall     time.Duration // wall time of all the scoring
	P50, P99 time.Duration // latency per question
}

// PairsPerSecond is the pairs scored per second of wall time.
func (t Throughput) PairsPerSecond() float64 { return float64(t.Pairs) / t.Wall.Seconds() }

// MeasureThroughput scores every question of qs repeat times, from clients
// concurrent clients that each score one question at a time (client c
// takes questions c, c+clients, ...), and times it.
func MeasureThroughput(ctx context.Context, r rank.Ranker, qs []dataset.Question, repeat, clients int) (Throughput, error) {
	if repeat < 1 || clients < 1 || len(qs) == 0 {
		return Throughput{}, fmt.Errorf("throughput: %d questions, %d repeats, %d clients: want at least one of each", len(qs), repeat, clients)
	}
	lats := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range repeat {
				for j := c; j < len(qs); j += clients {
					t := time.Now()
					if _, err := r.Score(ctx, &qs[j]); err != nil {
						errs[c] = err
						return
					}
					lats[c] = append(lats[c], time.Since(t))
				}
			}
		}()
	}
	wg.Wait()
	out := Throughput{Wall: time.Since(start)}
	if err := errors.Join(errs...); err != nil {
		return out, err
	}
	lat := slices.Concat(lats...)
	slices.Sort(lat)
	for j := range qs {
		out.Pairs += repeat * len(qs[j].Candidates)
	}
	out.P50, out.P99 = Percentile(lat, 0.5), Percentile(lat, 0.99)
	return out, nil
}

// Percentile is the p-quantile (0 ≤ p ≤ 1) of sorted latencies: the one at
// rank ⌊p·(n−1)⌋ from 0, the lower of the two nearest (0 for none). The
// benchmarks all report their p50 and p99 this way.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p*float64(len(sorted)-1))]
}
