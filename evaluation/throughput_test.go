package evaluation

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

func TestMeasureThroughput(t *testing.T) {
	qs := make([]dataset.Question, 5)
	for i := range qs {
		qs[i].Candidates = make([]dataset.Candidate, i+1)
	}
	r := rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		return make([]float64, len(q.Candidates)), nil
	})
	tp, err := MeasureThroughput(context.Background(), r, qs, 3, 2)
	if err != nil || tp.Pairs != 3*15 || tp.Wall <= 0 || tp.P50 > tp.P99 {
		t.Fatalf("throughput %+v, %v", tp, err)
	}
	bad := rank.Func(func(context.Context, *dataset.Question) ([]float64, error) { return nil, errors.New("boom") })
	if _, err := MeasureThroughput(context.Background(), bad, qs, 1, 2); err == nil {
		t.Fatal("a failing ranker was timed")
	}
	if _, err := MeasureThroughput(context.Background(), r, nil, 1, 1); err == nil {
		t.Fatal("no questions were timed")
	}
}

// TestPercentile: the lower of the two nearest ranks, as every benchmark
// reports its p50 and p99.
func TestPercentile(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{nil, 0.5, 0},
		{ms(7), 0.99, 7 * time.Millisecond},
		{ms(1, 2, 3), 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 1, 4 * time.Millisecond},
		{ms(1, 2, 3, 4), 0, 1 * time.Millisecond},
	} {
		if got := Percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tc.sorted, tc.p, got, tc.want)
		}
	}
}
