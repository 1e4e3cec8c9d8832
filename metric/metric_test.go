package metric

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

var log3, log5 = math.Log2(3), math.Log2(5)

func TestMeasures(t *testing.T) {
	tests := []struct {
		name string
		q    Query
		want map[string]float64 // measure name -> value
	}{{
		// One relevant item (rank 1 of R=3) is never retrieved.
		name: "relevant not retrieved",
		q:    Query{Ranked: []int{0, 1, 0, 1}, Judged: []int{0, 1, 0, 1, 1}},
		want: map[string]float64{
			"map":       (1.0/2 + 2.0/4) / 3, // precision at ranks 2 and 4, over R=3
			"mrr":       1.0 / 2,
			"p@1":       0,
			"p@2":       1.0 / 2,
			"p@10":      2.0 / 10, // k beyond the list: divide by k anyway
			"recall@2":  1.0 / 3,
			"recall@10": 2.0 / 3,
			"r@1":       0,
			"r@2":       1,
			"ndcg@2":    (1 / log3) / (1 + 1/log3), // ideal: two relevant at ranks 1, 2
		},
	}, {
		// Two items tied on score: the caller's order decides; here the
		// relevant one comes first ...
		name: "tie, relevant first",
		q:    Query{Ranked: []int{1, 0}},
		want: map[string]float64{"map": 1, "mrr": 1, "p@1": 1, "r@1": 1, "ndcg@1": 1},
	}, {
		// ... and here second.
		name: "tie, relevant second",
		q:    Query{Ranked: []int{0, 1}},
		want: map[string]float64{"map": 1.0 / 2, "mrr": 1.0 / 2, "p@1": 0, "r@1": 0, "r@2": 1,
			"ndcg@2": 1 / log3}, // ideal DCG@2 = 1
	}, {
		name: "no relevant item",
		q:    Query{Ranked: []int{0, 0, 0}, Judged: []int{0, 0, 0}},
		want: map[string]float64{"map": 0, "mrr": 0, "p@1": 0, "p@5": 0, "recall@5": 0, "r@5": 0, "ndcg@5": 0},
	}, {
		name: "nothing ranked",
		q:    Query{Judged: []int{1, 0}},
		want: map[string]float64{"map": 0, "mrr": 0, "p@1": 0, "recall@5": 0, "r@5": 0, "ndcg@5": 0},
	}, {
		name: "all relevant",
		q:    Query{Ranked: []int{1, 1, 1}},
		want: map[string]float64{
			"map": (1.0/1 + 2.0/2 + 3.0/3) / 3, "mrr": 1, "p@1": 1,
			"p@5":      3.0 / 5, // only 3 ranked, still divided by 5
			"recall@2": 2.0 / 3, "recall@5": 1, "r@1": 1, "ndcg@3": 1, "ndcg@10": 1,
		},
	}, {
		// Graded: gain is the grade, discount 1/log2(rank+1).
		name: "graded",
		q:    Query{Ranked: []int{1, 2, 0, 3}, Judged: []int{3, 2, 1, 0, 2}},
		want: map[string]float64{
			// DCG@2 = 1/1 + 2/log2(3); ideal order 3,2,2,1: 3/1 + 2/log2(3)
			"ndcg@2": (1 + 2/log3) / (3 + 2/log3),
			// DCG@4 = 1 + 2/log2(3) + 0/2 + 3/log2(5); ideal = 3 + 2/log2(3) + 2/2 + 1/log2(5)
			"ndcg@4":  (1 + 2/log3 + 3/log5) / (3 + 2/log3 + 1 + 1/log5),
			"ndcg@10": (1 + 2/log3 + 3/log5) / (3 + 2/log3 + 1 + 1/log5),
			// Level 1: relevant at ranks 1, 2, 4; R = 4
			"map": (1.0/1 + 2.0/2 + 3.0/4) / 4,
			"mrr": 1,
		},
	}, {
		// Level 2: grade 1 is not relevant; R = 3 (grades 3, 2, 2); nDCG unchanged.
		name: "graded, level 2",
		q:    Query{Ranked: []int{1, 2, 0, 3}, Judged: []int{3, 2, 1, 0, 2}, Level: 2},
		want: map[string]float64{
			"map":      (1.0/2 + 2.0/4) / 3,
			"mrr":      1.0 / 2,
			"p@1":      0,
			"recall@4": 2.0 / 3,
			"ndcg@2":   (1 + 2/log3) / (3 + 2/log3),
		},
	}, {
		// Negative grades (trec_eval's unjudged -1, -2) are not relevant and add no gain.
		name: "negative grades",
		q:    Query{Ranked: []int{-1, 1}, Judged: []int{-2, 1}},
		want: map[string]float64{"map": 1.0 / 2, "mrr": 1.0 / 2, "ndcg@2": 1 / log3},
	}, {
		// Judged lacking a retrieved relevant item: R is at least the relevant retrieved.
		name: "inconsistent judged",
		q:    Query{Ranked: []int{1, 1}, Judged: []int{1, 0, 0}},
		want: map[string]float64{"map": 1, "recall@2": 1},
	}}
	for _, tt := range tests {
		for name, want := range tt.want {
			m, err := ParseMeasure(name)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Of(tt.q); !near(got, want) {
				t.Errorf("%s: %s = %v, want %v", tt.name, name, got, want)
			}
		}
	}
}

func TestParseMeasure(t *testing.T) {
	good := map[string]string{
		"map": "map", "MAP": "map", " mrr ": "mrr", "recip_rank": "mrr",
		"p@1": "p@1", "P@5": "p@5", "P_5": "p@5", "P.5": "p@5",
		"r@10": "r@10", "R@1": "r@1", "success_5": "r@5", "success.10": "r@10",
		"recall@5": "recall@5", "recall_5": "recall@5", "recall.100": "recall@100",
		"ndcg@10": "ndcg@10", "nDCG@3": "ndcg@3", "ndcg_cut_10": "ndcg@10", "ndcg_cut.5": "ndcg@5",
	}
	for in, want := range good {
		m, err := ParseMeasure(in)
		if err != nil || m.Name != want {
			t.Errorf("ParseMeasure(%q) = %q, %v; want %q", in, m.Name, err, want)
		}
	}
	for _, in := range []string{"", "foo", "p", "p@", "p@0", "p@-1", "p@+1", "p@1.5", "p@x", "ndcg", "map@5",
		"ndcg_cut", "recall@99999999999999999999999"} {
		_, err := ParseMeasure(in)
		if err == nil {
			t.Errorf("ParseMeasure(%q): no error", in)
		} else if !strings.Contains(err.Error(), "\""+in+"\"") {
			t.Errorf("ParseMeasure(%q): error %q does not name the value", in, err)
		}
	}
}

func TestDefaultMeasures(t *testing.T) {
	ms := DefaultMeasures()
	if len(ms) < 3 || ms[0].Name != "map" || ms[1].Name != "mrr" || ms[2].Name != "p@1" {
		t.Fatalf("DefaultMeasures() = %v, want map, mrr, p@1 first", ms)
	}
}

func TestEvaluate(t *testing.T) {
	qs := []Query{
		{ID: "b", Ranked: []int{0, 1}},    // AP 1/2
		{ID: "a", Ranked: []int{1, 0, 1}}, // AP (1/1 + 2/3)/2
		{ID: "c", Ranked: []int{0, 0}},    // no relevant item: 0, still counted
	}
	r := Evaluate(qs, []Measure{MustParseMeasure("map"), MustParseMeasure("p@1")})
	if len(r.PerQuery) != 3 || r.PerQuery[0].ID != "b" || r.PerQuery[2].ID != "c" {
		t.Fatalf("PerQuery not in input order: %+v", r.PerQuery)
	}
	if got, want := r.Mean["map"], (1.0/2+(1.0+2.0/3)/2+0)/3; !near(got, want) {
		t.Errorf("mean map = %v, want %v", got, want)
	}
	if got, want := r.Mean["p@1"], 1.0/3; !near(got, want) {
		t.Errorf("mean p@1 = %v, want %v", got, want)
	}
	if got := r.PerQuery[1].Values["map"]; !near(got, (1.0+2.0/3)/2) {
		t.Errorf("a: map = %v", got)
	}
	if e := Evaluate(nil, nil); len(e.Measures) != len(DefaultMeasures()) || e.Mean["map"] != 0 {
		t.Errorf("Evaluate(nil, nil) = %+v", e)
	}
}

func TestBadCutoffPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("PrecisionAt(q, 0) did not panic")
		}
	}()
	PrecisionAt(Query{Ranked: []int{1}}, 0)
}

// FuzzParseMeasure: a name is refused or parses to a measure whose
// canonical name parses back to the same measure.
func FuzzParseMeasure(f *testing.F) {
	for _, s := range []string{"map", "MRR", "p@5", "P_10", "recall.100", "success_1", "ndcg_cut_10", "r@0", "p@", "@5", "ndcg@99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMeasure(s)
		if err != nil {
			return
		}
		back, err := ParseMeasure(m.Name)
		if err != nil || back != m {
			t.Fatalf("%q parses to %+v, whose name %q parses to %+v (%v)", s, m, m.Name, back, err)
		}
	})
}
