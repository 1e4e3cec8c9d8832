package cascade

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

func question(n int) *dataset.Question {
	q := &dataset.Question{ID: "q", Text: "q"}
	for i := 0; i < n; i++ {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: string(rune('a' + i)), Position: i})
	}
	return q
}

// byText scores candidates by a fixed table and records what it was shown.
type byText struct {
	score map[string]float64
	seen  [][]string
}

func (b *byText) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	var texts []string
	out := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		out[i] = b.score[c.Text]
		texts = append(texts, c.Text)
	}
	b.seen = append(b.seen, texts)
	return out, nil
}

func TestCascadeOrder(t *testing.T) {
	first := &byText{score: map[string]float64{"a": 1, "b": 5, "c": 4, "d": 3, "e": 2}}
	second := &byText{score: map[string]float64{"b": -10, "c": 7, "d": 100}}
	c, err := New(&Stage{Name: "cheap", Ranker: first, K: 3}, &Stage{Name: "good", Ranker: second, K: 1})
	if err != nil {
		t.Fatal(err)
	}
	q := question(5)
	ranked, err := rank.Rank(context.Background(), c, q)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range ranked {
		order = append(order, q.Candidates[s.Index].Text)
	}
	// Stage 1 keeps b, c, d; stage 2 orders them d, c, b; e and a follow in
	// stage 1's order.
	if want := []string{"d", "c", "b", "e", "a"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if want := [][]string{{"b", "c", "d"}}; !reflect.DeepEqual(second.seen, want) {
		t.Fatalf("stage 2 saw %v, want the survivors in document order %v", second.seen, want)
	}
	st := c.Stats()
	if st[0].Calls != 1 || st[0].Pairs != 5 || st[1].Pairs != 3 || st[1].Name != "good" {
		t.Fatalf("stats %+v", st)
	}
}

func TestCascadeErrors(t *testing.T) {
	failing := rank.Func(func(context.Context, *dataset.Question) ([]float64, error) { return nil, errors.New("boom") })
	c, err := New(&Stage{Name: "x", Ranker: failing})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Score(context.Background(), question(2)); err == nil || !strings.Contains(err.Error(), "stage 1 (x): boom") {
		t.Fatalf("error %v", err)
	}
	if _, err := New(); err == nil {
		t.Error("empty cascade accepted")
	}
}

func TestParse(t *testing.T) {
	var got []string
	resolve := func(name, file string) (rank.Ranker, error) {
		got = append(got, name+"|"+file)
		if name == "bad" {
			return nil, errors.New("no such ranker")
		}
		return rank.New("rr", rank.DefaultOptions())
	}
	c, err := Parse("bm25:100, cosinet=m.as2:10,ca=m2.as2", resolve)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"bm25|", "cosinet|m.as2", "ca|m2.as2"}; !reflect.DeepEqual(got, want) || c.Stages[0].K != 100 || c.Stages[1].K != 10 || c.Stages[2].K != 0 {
		t.Fatalf("parsed %v, stages %+v", got, c.Stages)
	}
	for _, tc := range []struct{ spec, want string }{
		{"bm25:0", `K "0" is not a positive integer`},
		{"bm25:x", `K "x"`},
		{"bm25:5,,rr", "stage 2 is empty"},
		{"=m.as2:3", "stage 1 has no name"},
		{"rr:5,bad:2", "stage 2 (bad): no such ranker"},
	} {
		if _, err := Parse(tc.spec, resolve); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): error %v, want %q", tc.spec, err, tc.want)
		}
	}
}

func TestWriteStats(t *testing.T) {
	first := &byText{score: map[string]float64{"a": 1, "b": 5, "c": 4}}
	last := &byText{score: map[string]float64{"b": 1, "c": 2}}
	c, err := New(&Stage{Name: "first", Ranker: first, K: 2}, &Stage{Name: "last", Ranker: last})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.Score(context.Background(), question(3)); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	if err := c.WriteStats(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	// Two questions: the first stage scored 3 candidates each, the last
	// the 2 passed on.
	for i, want := range []string{"stage    k  questions  candidates scored  mean latency per question", "1 first  2  2          6", "2 last   0  2          4"} {
		if i >= len(lines) || !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d: got %q, want %q...\n%s", i, lines[min(i, len(lines)-1)], want, b.String())
		}
	}
}
