package index

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// fixedRetriever returns its hits, at most k of them.
type fixedRetriever []Hit

func (f fixedRetriever) Retrieve(_ context.Context, _ string, k int) ([]Hit, error) {
	return f[:min(k, len(f))], nil
}

// TestReranked: the ranker sees the Depth retrieved answers in retrieval
// order and its order is returned, cut at k; a hit without a text and a
// failing ranker are errors.
func TestReranked(t *testing.T) {
	hits := fixedRetriever{{"a", 9}, {"b", 8}, {"c", 7}, {"d", 6}}
	texts := map[string]string{"a": "one", "b": "three three three", "c": "two two", "d": "four four four four"}
	var seen []string
	byLength := rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		seen = seen[:0]
		s := make([]float64, len(q.Candidates))
		for i, c := range q.Candidates {
			seen = append(seen, c.Text)
			if c.Position != i {
				t.Errorf("candidate %d at position %d", i, c.Position)
			}
			s[i] = float64(len(strings.Fields(c.Text)))
		}
		return s, nil
	})
	r := Reranked{Retriever: hits, Ranker: byLength, Depth: 3, Texts: texts}
	got, err := r.Retrieve(context.Background(), "q?", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (Hit{"b", 3}) || got[1] != (Hit{"c", 2}) {
		t.Errorf("got %v, want b (3) then c (2)", got)
	}
	if strings.Join(seen, "|") != "one|three three three|two two" {
		t.Errorf("the ranker saw %q, want the 3 retrieved in retrieval order", seen)
	}
	if got, _ := r.Retrieve(context.Background(), "q?", 10); len(got) != 3 {
		t.Errorf("k past the depth: %d hits, want 3", len(got))
	}
	r.Texts = map[string]string{"a": "one"}
	if _, err := r.Retrieve(context.Background(), "q?", 2); err == nil || !strings.Contains(err.Error(), `answer "b" has no text`) {
		t.Errorf("a hit without a text: %v", err)
	}
	r.Texts = texts
	r.Ranker = rank.Func(func(context.Context, *dataset.Question) ([]float64, error) { return nil, errors.New("boom") })
	if _, err := r.Retrieve(context.Background(), "q?", 2); err == nil || !strings.Contains(err.Error(), "reranking: boom") {
		t.Errorf("a failing ranker: %v", err)
	}
}

// TestRerankedRetrievalWeight: with a retrieval weight the order is by the
// sum of the two stages' min-max scaled scores, and a hit's Score is that
// sum.
func TestRerankedRetrievalWeight(t *testing.T) {
	hits := fixedRetriever{{"a", 9}, {"b", 8}, {"c", 7}, {"d", 6}}
	texts := map[string]string{"a": "one", "b": "three three three", "c": "two two", "d": "four four four four"}
	byLength := rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		s := make([]float64, len(q.Candidates))
		for i, c := range q.Candidates {
			s[i] = float64(len(strings.Fields(c.Text)))
		}
		return s, nil
	})
	// Over a, b, c the ranker scales to 0, 1, 0.5 and the retriever to 1, 0.5, 0.
	for _, c := range []struct {
		w    float64
		want []Hit
	}{
		{0, []Hit{{"b", 3}, {"c", 2}, {"a", 1}}},
		{1, []Hit{{"b", 1.5}, {"a", 1}, {"c", 0.5}}},
		{3, []Hit{{"a", 3}, {"b", 2.5}, {"c", 0.5}}},
	} {
		r := Reranked{Retriever: hits, Ranker: byLength, Depth: 3, Texts: texts, RetrievalWeight: c.w}
		got, err := r.Retrieve(context.Background(), "q?", 3)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("weight %v: got %v, want %v", c.w, got, c.want)
		}
	}
}

func TestMinMaxScaler(t *testing.T) {
	for _, c := range []struct {
		scores []float64
		in     float64
		want   float64
	}{
		{[]float64{2, 4, 3}, 3, 0.5},
		{[]float64{5, 5}, 5, 1}, // equal scores
		{[]float64{math.Inf(-1), 1, 3}, 1, 0},
		{[]float64{math.Inf(-1), 1, 3}, math.Inf(-1), math.Inf(-1)}, // an empty candidate stays last
	} {
		if got := minMaxScaler(len(c.scores), func(i int) float64 { return c.scores[i] })(c.in); got != c.want {
			t.Errorf("%v: %v scales to %v, want %v", c.scores, c.in, got, c.want)
		}
	}
}
