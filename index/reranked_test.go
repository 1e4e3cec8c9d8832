package index

import (
	"context"
	"errors"
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
