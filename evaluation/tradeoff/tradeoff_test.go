package tradeoff

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/dataset"
)

// table scores candidates by a fixed table of their texts.
type table map[string]float64

func (tb table) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	out := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		out[i] = tb[c.Text]
	}
	return out, nil
}

// slow is a table that takes 5 ms a candidate, as an expensive
// last stage does, so that a cascade that passes it fewer candidates is
// faster than the stage alone whatever else the machine is doing.
type slow table

func (s slow) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	time.Sleep(time.Duration(len(q.Candidates)) * 5 * time.Millisecond)
	return table(s).Score(ctx, q)
}

func question(n int) *dataset.Question {
	q := &dataset.Question{ID: "q", Text: "q"}
	for i := 0; i < n; i++ {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: string(rune('a' + i)), Position: i})
	}
	return q
}

func TestSweepAndPlot(t *testing.T) {
	// The cheap stage prefers late candidates, the good one knows that "b"
	// answers: passing on more candidates can only help.
	cheap := table{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
	good := table{"b": 10}
	q := question(5)
	q.Candidates[1].Label = dataset.Positive
	qs := []dataset.Question{*q}
	points, err := Sweep(context.Background(), cheap, good, "cheap", "good", []int{1, 4}, qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 3 || points[0].K != 0 || points[0].P1 != 1 || points[1].P1 != 0 || points[2].P1 != 1 || points[1].Candidate != 1 || points[0].Candidate != 5 {
		t.Fatalf("points %+v", points)
	}
	dir := t.TempDir()
	png, svg := filepath.Join(dir, "c.png"), filepath.Join(dir, "c.svg")
	if err := Plot(points, "test", png, svg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{png, svg} {
		if st, err := os.Stat(p); err != nil || st.Size() < 500 {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if err := Plot(points, "test", filepath.Join(dir, "c.bmpx")); err == nil {
		t.Fatal("unknown image format accepted")
	}
}

func TestChoose(t *testing.T) {
	ms := time.Millisecond
	points := []Point{{K: 0, P1: 0.60, Latency: 100 * ms}, {K: 5, P1: 0.50, Latency: 10 * ms}, {K: 25, P1: 0.598, MAP: 0.7, Latency: 20 * ms}, {K: 50, P1: 0.598, MAP: 0.71, Latency: 30 * ms}}
	for _, tc := range []struct {
		budget time.Duration
		target float64
		want   int
	}{
		{15 * ms, 0, 5},
		{35 * ms, 0, 50}, // same P@1 as k=25, better MAP
		{0, 0.995, 25},
		{0, 1, 0},
	} {
		got, err := Choose(points, tc.budget, tc.target)
		if err != nil || got.K != tc.want {
			t.Errorf("Choose(budget %s, target %v) = k %d, %v; want k %d", tc.budget, tc.target, got.K, err, tc.want)
		}
	}
	if _, err := Choose(points, ms, 0); err == nil {
		t.Error("an impossible budget was met")
	}
}

func TestTune(t *testing.T) {
	// The cheap stage puts "b", the answer, second: k = 1 loses it, k >= 2
	// keeps it. On dev the target keeps the fastest k that keeps P@1.
	cheap := table{"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}
	good := slow{"b": 10}
	q := question(5)
	q.Candidates[1].Label = dataset.Positive
	qs := []dataset.Question{*q, *q}
	for _, tc := range []struct {
		name           string
		ks             []int
		budget         time.Duration
		target         float64
		wantK          int
		wantLine, fail string
	}{
		{"target", []int{1, 2}, 0, 1, 2, "cheap → good; chosen on dev (2 questions): k = 2 (dev P@1 100.00,", ""},
		{"alone", []int{1}, 0, 1, 0, "k = all (the last stage alone)", ""},
		{"no budget met", []int{1, 2}, time.Nanosecond, 1, 0, "", "latency budget"},
		{"bad target", []int{1}, 0, 1.5, 0, "", "target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Tune(context.Background(), cheap, good, "cheap", "good", tc.ks, qs, qs[:1], tc.budget, tc.target)
			if tc.fail != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fail) {
					t.Fatalf("%v, want %q", err, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Chosen.K != tc.wantK || got.At.K != tc.wantK || got.Alone.K != 0 || got.TestQuestions != 1 || got.DevQuestions != 2 || got.At.P1 != 1 {
				t.Errorf("%+v", got)
			}
			var b strings.Builder
			if err := got.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.wantLine) || !strings.Contains(b.String(), "test (1 questions): P@1 100.00, MAP 100.00,") || !strings.Contains(b.String(), "(100.0% of its P@1 at") {
				t.Errorf("%s", b.String())
			}
		})
	}
}
