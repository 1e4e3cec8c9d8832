package retrieval

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/index"
)

func hits(spec string) []index.Hit {
	// "a:3 b:2 c:2" -> hits with those ids and scores
	var out []index.Hit
	for _, f := range strings.Fields(spec) {
		id, score, _ := strings.Cut(f, ":")
		var s float64
		for _, c := range score {
			s = s*10 + float64(c-'0')
		}
		out = append(out, index.Hit{ID: id, Score: s})
	}
	return out
}

func TestRank(t *testing.T) {
	tests := []struct {
		name string
		hits string
		gold []string
		want float64
	}{
		{"first", "a:3 b:2 c:1", []string{"a"}, 1},
		{"third", "a:3 b:2 c:1", []string{"c"}, 3},
		{"best of two golds", "a:3 b:2 c:1", []string{"c", "b"}, 2},
		{"missing", "a:3 b:2", []string{"z"}, 0},
		{"no hits", "", []string{"a"}, 0},
		// b, c and d tie at positions 2-4: each has rank 3 (rankdata).
		{"tie", "a:9 b:5 c:5 d:5 e:1", []string{"d"}, 3},
		{"tie at the top", "a:5 b:5", []string{"a"}, 1.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Rank(Run{Hits: hits(tc.hits), Gold: tc.gold}); got != tc.want {
				t.Errorf("Rank = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	runs := []Run{
		{Hits: hits("a:9 b:8 c:7 d:6 e:5 f:4"), Gold: []string{"a"}},      // rank 1
		{Hits: hits("a:9 b:8 c:7 d:6 e:5 f:4"), Gold: []string{"c", "z"}}, // rank 3; 1 of 2 golds retrieved
		{Hits: hits("a:9 b:8 c:7 d:6 e:5 f:4"), Gold: []string{"f", "b"}}, // rank 2; both by 6
		{Hits: hits("a:9 b:8"), Gold: []string{"q"}},                      // not found
	}
	got := Measure(runs, []int{5, 1})
	// MRR = (1 + 1/3 + 1/2 + 0)/4 = 11/24.
	// Success@1 = 1/4, @5 = 3/4.
	// Eq. 15 @1 = (1 + 0 + 0 + 0)/4; @5 = (1 + 1/2 + 1/2 + 0)/4 = 1/2.
	want := Result{Questions: 4, MRR: 11.0 / 24, Cutoffs: []int{1, 5},
		Success: []float64{0.25, 0.75}, RecallEq15: []float64{0.25, 0.5}}
	if got.Questions != want.Questions || !near(got.MRR, want.MRR) {
		t.Errorf("got %d questions MRR %v, want %d, %v", got.Questions, got.MRR, want.Questions, want.MRR)
	}
	for i := range want.Cutoffs {
		if got.Cutoffs[i] != want.Cutoffs[i] || !near(got.Success[i], want.Success[i]) || !near(got.RecallEq15[i], want.RecallEq15[i]) {
			t.Errorf("@%d: success %v recall %v, want @%d %v %v", got.Cutoffs[i], got.Success[i], got.RecallEq15[i],
				want.Cutoffs[i], want.Success[i], want.RecallEq15[i])
		}
	}
	if empty := Measure(nil, nil); empty.MRR != 0 || len(empty.Success) != len(Cutoffs) {
		t.Errorf("no runs: %+v", empty)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// fixed retrieves the same ranking for every question but "fail".
type fixed []index.Hit

func (f fixed) Retrieve(_ context.Context, q string, k int) ([]index.Hit, error) {
	if q == "fail" {
		return nil, errors.New("boom")
	}
	return f[:min(k, len(f))], nil
}

func TestEvaluate(t *testing.T) {
	pool := &reqa.Pool{Questions: []reqa.Question{
		{ID: "1", Text: "x", Gold: []string{"b"}},
		{ID: "2", Text: "y", Gold: []string{"c"}},
	}}
	r := fixed(hits("a:3 b:2 c:1"))
	for _, workers := range []int{1, 2, 3} {
		res, runs, err := Evaluate(context.Background(), r, pool, Options{Depth: 2, Cutoffs: []int{1, 2}, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		// Depth 2: c is not retrieved.
		if len(runs) != 2 || !near(res.MRR, 0.25) || !near(res.Success[1], 0.5) {
			t.Errorf("workers %d: %+v", workers, res)
		}
	}
	pool.Questions[1].Text = "fail"
	if _, _, err := Evaluate(context.Background(), r, pool, Options{Workers: 2}); err == nil || !strings.Contains(err.Error(), `question "2": boom`) {
		t.Errorf("a failing retriever: %v", err)
	}
	if _, _, err := Evaluate(context.Background(), r, pool, Options{Depth: 5, Cutoffs: []int{10}}); err == nil {
		t.Error("a cutoff past the depth was accepted")
	}
}
