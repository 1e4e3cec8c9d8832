package evaluation

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trec"
)

func qs() []dataset.Question {
	mk := func(id string, labels ...int) dataset.Question {
		q := dataset.Question{ID: id, Text: "q"}
		for i, l := range labels {
			q.Candidates = append(q.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: "c", Position: i, Label: l})
		}
		return q
	}
	return []dataset.Question{mk("1", 0, 1, 0), mk("2", 1, 0, 0, 0)}
}

var constant = rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
	return make([]float64, len(q.Candidates)), nil
})

func TestEvaluateByPosition(t *testing.T) {
	rep, err := Evaluate(context.Background(), constant, qs(), Options{Measures: []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("p@1")}})
	if err != nil {
		t.Fatal(err)
	}
	// All scores tie, so document order decides: AP 1/2 and 1, P@1 0 and 1.
	if got := rep.Result.Mean["map"]; got != 0.75 {
		t.Fatalf("map %v, want 0.75", got)
	}
	if got := rep.Result.Mean["p@1"]; got != 0.5 {
		t.Fatalf("p@1 %v, want 0.5", got)
	}
}

func TestRandomTiesAreSeeded(t *testing.T) {
	q := qs()[1]
	for i := 0; i < 20; i++ {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: strings.Repeat("x", i+1), Text: "c", Position: 4 + i})
	}
	a, _ := Rank(context.Background(), constant, &q, Random, 3)
	b, _ := Rank(context.Background(), constant, &q, Random, 3)
	c, _ := Rank(context.Background(), constant, &q, Random, 4)
	same := func(x, y []rank.Scored) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) || same(a, c) {
		t.Fatal("random tie-break is not a function of its seed")
	}
}

func TestEvaluateRejectsUnlabelled(t *testing.T) {
	q := qs()
	q[1].Candidates[2].Label = dataset.Unlabeled
	if _, err := Evaluate(context.Background(), constant, q, Options{}); err == nil || !strings.Contains(err.Error(), `question "2"`) {
		t.Fatalf("error %v", err)
	}
}

func TestEvaluateHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Evaluate(ctx, constant, qs(), Options{}); err == nil {
		t.Fatal("cancelled evaluation returned no error")
	}
}

// TestRunRoundTrip writes a run and qrels and evaluates them the way
// trec_eval would: with distinct scores the numbers agree.
func TestRunRoundTrip(t *testing.T) {
	rr, _ := rank.New("rr", rank.DefaultOptions())
	rep, err := Evaluate(context.Background(), rr, qs(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var runBuf, qrelsBuf bytes.Buffer
	if err := WriteRun(&runBuf, rep, "rr"); err != nil {
		t.Fatal(err)
	}
	if err := WriteQrels(&qrelsBuf, qs()); err != nil {
		t.Fatal(err)
	}
	run, err := trec.ReadRun(&runBuf, "run")
	if err != nil {
		t.Fatal(err)
	}
	qrels, err := trec.ReadQrels(&qrelsBuf, "qrels")
	if err != nil {
		t.Fatal(err)
	}
	res, err := trec.Evaluate(run, qrels, metric.DefaultMeasures(), trec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range rep.Result.Mean {
		if math.Abs(res.Mean[k]-v) > 1e-12 {
			t.Errorf("%s: %v by as2, %v through the run file", k, v, res.Mean[k])
		}
	}
}

// TestEmptyCandidatesLast checks that kept empty candidates are never shown
// to the ranker, come last in document order, and keep their indices.
func TestEmptyCandidatesLast(t *testing.T) {
	q := dataset.Question{ID: "q", Text: "who wrote hamlet", Candidates: []dataset.Candidate{
		{ID: "a", Text: " ", Position: 0, Label: 0},
		{ID: "b", Text: "shakespeare wrote hamlet", Position: 1, Label: 1},
		{ID: "c", Text: "", Position: 2, Label: 0},
		{ID: "d", Text: "a play", Position: 3, Label: 0},
	}}
	seen := 0
	spy := rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		for _, c := range q.Candidates {
			if c.IsEmpty() {
				t.Errorf("ranker shown an empty candidate %q", c.ID)
			}
		}
		seen += len(q.Candidates)
		return make([]float64, len(q.Candidates)), nil
	})
	for _, ties := range []Ties{ByPosition, Random} {
		ranked, err := Rank(context.Background(), spy, &q, ties, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(ranked) != 4 || ranked[2] != (rank.Scored{Index: 0, Score: math.Inf(-1)}) || ranked[3] != (rank.Scored{Index: 2, Score: math.Inf(-1)}) {
			t.Fatalf("ties %s: ranking %+v", ties, ranked)
		}
	}
	if seen != 4 {
		t.Fatalf("ranker scored %d candidates, want 2 per call", seen)
	}
	all := dataset.Question{ID: "e", Text: "x", Candidates: []dataset.Candidate{{ID: "a", Text: ""}, {ID: "b", Text: " ", Position: 1}}}
	ranked, err := Rank(context.Background(), spy, &all, ByPosition, 0)
	if err != nil || len(ranked) != 2 || ranked[0].Index != 0 || seen != 4 {
		t.Fatalf("only empty candidates: %+v, %v", ranked, err)
	}
	// Through a run file, the order survives.
	rep, err := Evaluate(context.Background(), spy, []dataset.Question{q}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteRun(&buf, rep, "t"); err != nil {
		t.Fatal(err)
	}
	run, err := trec.ReadRun(&buf, "run")
	if err != nil {
		t.Fatal(err)
	}
	res, err := trec.Evaluate(run, Qrels([]dataset.Question{q}), nil, trec.Options{})
	if err != nil || math.Abs(res.Mean["map"]-rep.Result.Mean["map"]) > 1e-12 {
		t.Fatalf("run file: %v, %v; as2 %v", res.Mean, err, rep.Result.Mean)
	}
}

func TestPositions(t *testing.T) {
	qs := []dataset.Question{
		{ID: "a", Candidates: []dataset.Candidate{{Text: "x", Position: 0, Label: 0}, {Text: "y", Position: 1, Label: 1}, {Text: "z", Position: 2, Label: 1}}},
		{ID: "b", Candidates: []dataset.Candidate{{Text: "x", Position: 0, Label: 1}, {Text: "y", Position: 1, Label: 0}, {Text: "z", Position: 2, Label: 0}}},
	}
	// The first candidate always wins.
	first := rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		s := make([]float64, len(q.Candidates))
		for i := range s {
			s[i] = -float64(i)
		}
		return s, nil
	})
	rep, err := Evaluate(context.Background(), first, qs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Positions(2) // positions 0, and 1 or later
	want := Positions{Top: []float64{1, 0}, Gold: []float64{0.5, 0.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
