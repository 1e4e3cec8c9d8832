package evaluation

import (
	"bytes"
	"strings"
	"testing"

	"github.com/as2/as2/metric"
)

func summaryResult() metric.Result {
	return metric.Result{
		Measures: []metric.Measure{metric.MustParseMeasure("mrr"), metric.MustParseMeasure("map")},
		Mean:     map[string]float64{"map": 0.123456, "mrr": 2.0 / 3},
		PerQuery: []metric.QueryResult{
			{ID: "q1", Values: map[string]float64{"map": 0.2, "mrr": 1}},
			{ID: "q2", Values: map[string]float64{"map": 0.046912, "mrr": 1.0 / 3}},
		},
	}
}

func TestSummaryTable(t *testing.T) {
	for _, tc := range []struct {
		name        string
		s           Summary
		perQuestion bool
		want        string
	}{
		{"dataset", Summary{Dataset: "wikiqa", Split: "test", Ranker: "bm25", Note: "n"}, false,
			"wikiqa test, 2 questions, ranker bm25\n(n)\nmrr  0.6667\nmap  0.1235\n"},
		{"run, per question", Summary{Run: "r.run", Qrels: "q.ref", Note: "n"}, true,
			"run r.run against qrels q.ref, 2 questions\n(n)\nquestion  mrr     map\nq1        1.0000  0.2000\nq2        0.3333  0.0469\nall       0.6667  0.1235\n"},
		{"positions", Summary{Dataset: "d", Split: "s", Ranker: "r", Note: "n", Positions: &Positions{Top: []float64{0.5, 0.25}, Gold: []float64{0.125, 1}}}, false,
			"d s, 2 questions, ranker r\n(n)\nmrr  0.6667\nmap  0.1235\n\nposition  ranked first  correct there\n0         50.00%        12.50%\n1+        25.00%        100.00%\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.Summarize(summaryResult(), tc.perQuestion)
			var b bytes.Buffer
			if err := s.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestSummaryJSON(t *testing.T) {
	s := Summary{Dataset: "wikiqa", Split: "test", Subset: "answered", Ranker: "a<b", Note: "not in JSON"}
	s.Summarize(summaryResult(), true)
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	want := `{"dataset":"wikiqa","split":"test","subset":"answered","ranker":"a<b","questions":2,"metrics":{"map":0.1235,"mrr":0.6667},"per_question":[{"id":"q1","metrics":{"map":0.2,"mrr":1}},{"id":"q2","metrics":{"map":0.0469,"mrr":0.3333}}]}` + "\n"
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
}

func TestParseMeasures(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"map,mrr", "map mrr", ""},
		{" p@1 ,, ndcg@10,", "p@1 ndcg@10", ""},
		{"", "", "names no measure"},
		{" , ", "", "names no measure"},
		{"map,nope", "", "nope"},
	} {
		ms, err := ParseMeasures(tc.in)
		var names []string
		for _, m := range ms {
			names = append(names, m.Name)
		}
		if got := strings.Join(names, " "); got != tc.want || (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestRunFileSummary(t *testing.T) {
	for _, tc := range []struct {
		all  bool
		note string
	}{
		{false, "questions in both files"},
		{true, "every qrels question (missing from the run: 0)"},
	} {
		s := RunFileSummary("q.ref", "r.run", tc.all)
		s.Summarize(summaryResult(), false)
		var b bytes.Buffer
		if err := s.WriteTable(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), "run r.run against qrels q.ref, 2 questions\n("+tc.note) {
			t.Errorf("all queries %v:\n%s", tc.all, b.String())
		}
	}
}
