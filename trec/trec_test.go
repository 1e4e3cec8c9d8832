package trec

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/metric"
)

func mustRun(t *testing.T, s string) Run {
	t.Helper()
	r, err := ReadRun(strings.NewReader(s), "run")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustQrels(t *testing.T, s string) Qrels {
	t.Helper()
	q, err := ReadQrels(strings.NewReader(s), "qrels")
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestReadRun(t *testing.T) {
	// WikiQA's system output: the columns are qidx 0 sentidx label score pred.
	r := mustRun(t, "\n# comment\n1 0 0 0 0.0374061375409 0\r\n  1\t0 1 0 1e-3 0\n2 Q0 d 7 -2 tag\n1 0 2 0 +Inf 0")
	want := Run{
		Queries: []string{"1", "2"},
		Results: map[string][]Result{
			"1": {{"1", "0", 0, 0.0374061375409, "0"}, {"1", "1", 0, 0.001, "0"}, {"1", "2", 0, math.Inf(1), "0"}},
			"2": {{"2", "d", 7, -2, "tag"}},
		},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("ReadRun = %+v\nwant %+v", r, want)
	}
}

func TestRunRoundTrip(t *testing.T) {
	var run Run
	for i, s := range []float64{1.0 / 3, 0.1, 1e-300, 5e-324, 1e300, -0.0, math.Inf(-1), math.Nextafter(0.5, 1), 0.5, 12345678901234567} {
		run.Add(Result{QueryID: "q" + string(rune('a'+i%3)), DocID: "d" + string(rune('0'+i)), Rank: i + 1, Score: s, Tag: "run-é"})
	}
	var buf bytes.Buffer
	if err := WriteRun(&buf, run); err != nil {
		t.Fatal(err)
	}
	back := mustRun(t, buf.String())
	if !reflect.DeepEqual(back, run) {
		t.Errorf("round trip:\n%s\ngot  %+v\nwant %+v", buf.String(), back, run)
	}
	for qid, rs := range run.Results { // exact bits, not just ==
		for i, r := range rs {
			if math.Float64bits(back.Results[qid][i].Score) != math.Float64bits(r.Score) {
				t.Errorf("%s %s: score %v read back as %v", qid, r.DocID, r.Score, back.Results[qid][i].Score)
			}
		}
	}
}

func TestQrelsRoundTrip(t *testing.T) {
	q := Qrels{"q1": {"b": 1, "a": 0, "c": -1}, "q0": {"x": 3}}
	var buf bytes.Buffer
	if err := WriteQrels(&buf, q); err != nil {
		t.Fatal(err)
	}
	if want := "q0 0 x 3\nq1 0 a 0\nq1 0 b 1\nq1 0 c -1\n"; buf.String() != want {
		t.Errorf("WriteQrels wrote %q, want %q", buf.String(), want)
	}
	if back := mustQrels(t, buf.String()); !reflect.DeepEqual(back, q) {
		t.Errorf("round trip: %v, want %v", back, q)
	}
}

func TestWriteErrors(t *testing.T) {
	ok := Result{QueryID: "q", DocID: "d", Score: 1, Tag: "t"}
	with := func(f func(*Result)) Run {
		r := ok
		f(&r)
		var run Run
		run.Add(r)
		return run
	}
	for name, run := range map[string]Run{
		"empty tag":     with(func(r *Result) { r.Tag = "" }),
		"empty docno":   with(func(r *Result) { r.DocID = "" }),
		"space":         with(func(r *Result) { r.DocID = "a b" }),
		"NaN":           with(func(r *Result) { r.Score = math.NaN() }),
		"comment qid":   with(func(r *Result) { r.QueryID = "#q" }),
		"bad UTF-8":     with(func(r *Result) { r.Tag = "\xff" }),
		"duplicate doc": {Queries: []string{"q"}, Results: map[string][]Result{"q": {ok, ok}}},
		"wrong group":   {Queries: []string{"p"}, Results: map[string][]Result{"p": {ok}}},
		"unlisted":      {Results: map[string][]Result{"q": {ok}}},
		"listed twice":  {Queries: []string{"q", "q"}, Results: map[string][]Result{"q": {ok}, "r": {}}},
	} {
		if err := WriteRun(&bytes.Buffer{}, run); err == nil {
			t.Errorf("%s: WriteRun succeeded", name)
		}
	}
	if err := WriteQrels(&bytes.Buffer{}, Qrels{"q": {"a b": 1}}); err == nil {
		t.Error("WriteQrels wrote a docno with a space")
	}
}

func TestMalformed(t *testing.T) {
	for _, tt := range []struct {
		qrels bool
		in    string
		line  int
		what  string
	}{
		{false, "q Q0 d 1 0.5 t\n\nq Q0 d2 1 0.5\n", 3, "6 columns"},
		{false, "q Q0 d 1 0.5 t extra\n", 1, "6 columns"},
		{false, "q Q0 1 0.5 t\n", 1, "6 columns"}, // missing docno
		{false, "q Q0 d one 0.5 t\n", 1, "rank"},
		{false, "q Q0 d 1 high t\n", 1, "score"},
		{false, "q Q0 d 1 NaN t\n", 1, "score"},
		{false, "q Q0 d 1 1e999 t\n", 1, "score"},
		{false, "q Q0 d 1 0.5 t\n# x\nq Q0 d 2 0.4 t\n", 3, "twice"},
		{false, "q Q0 d\xff 1 0.5 t\n", 1, "UTF-8"},
		{false, "q Q0 d\x00 1 0.5 t\n", 1, "NUL"},
		{true, "q 0 d\n", 1, "4 columns"},
		{true, "q 0 d 1\nq 0 e 1 x\n", 2, "4 columns"},
		{true, "q 0 d yes\n", 1, "relevance"},
		{true, "q 0 d 1.5\n", 1, "relevance"},
		{true, "q 0 d 1\n\n\nq 0 d 0\n", 4, "twice"},
		{true, "\xfe 0 d 1\n", 1, "UTF-8"},
	} {
		var err error
		if tt.qrels {
			_, err = ReadQrels(strings.NewReader(tt.in), "f")
		} else {
			_, err = ReadRun(strings.NewReader(tt.in), "f")
		}
		var pe *dataset.ParseError
		if !errors.As(err, &pe) || pe.Line != tt.line || !strings.HasPrefix(err.Error(), "f:") ||
			!strings.Contains(err.Error(), tt.what) {
			t.Errorf("%q: error %v, want a ParseError at f:%d about %q", tt.in, err, tt.line, tt.what)
		}
	}
}

func TestSortTieBreak(t *testing.T) {
	// The file order and the rank column disagree with trec_eval's order:
	// score descending, then docno descending by strcmp ("b" > "a", "9" > "10").
	run := mustRun(t, `q Q0 a 1 0.5 r
q Q0 10 2 0.2 r
q Q0 b 3 0.5 r
q Q0 9 4 0.2 r
q Q0 c 5 0.9 r
`)
	rs := append([]Result(nil), run.Results["q"]...)
	Sort(rs)
	var got []string
	for _, r := range rs {
		got = append(got, r.DocID)
	}
	if want := []string{"c", "b", "a", "9", "10"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Sort order %v, want %v", got, want)
	}
	// a is relevant: trec_eval ranks it 3rd (ascending docno would say 2nd).
	// 10 is relevant too: ranked 5th, after 9.
	qrels := mustQrels(t, "q 0 a 1\nq 0 10 1\nq 0 b 0\n")
	res, err := Evaluate(run, qrels, []metric.Measure{metric.MustParseMeasure("mrr"), metric.MustParseMeasure("map")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Mean["mrr"], 1.0/3; math.Abs(got-want) > 1e-12 {
		t.Errorf("mrr = %v, want 1/3", got)
	}
	if got, want := res.Mean["map"], (1.0/3+2.0/5)/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("map = %v, want (1/3 + 2/5)/2", got)
	}
}

func TestEvaluateQuerySets(t *testing.T) {
	run := mustRun(t, `q2 Q0 x 1 1 r
q1 Q0 a 1 0.9 r
q1 Q0 b 2 0.8 r
q3 Q0 a 1 1 r
`)
	// q1: relevant b at rank 2 (AP 1/2); q2: judged but nothing relevant (0);
	// q3: not in qrels (ignored); q4: not in the run.
	qrels := mustQrels(t, "q1 0 a 0\nq1 0 b 1\nq2 0 x 0\nq4 0 z 1\n")
	mapm := []metric.Measure{metric.MustParseMeasure("map")}

	res, err := Evaluate(run, qrels, mapm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ids := queryIDs(res); !reflect.DeepEqual(ids, []string{"q1", "q2"}) {
		t.Errorf("default queries %v, want [q1 q2]", ids)
	}
	if got := res.Mean["map"]; got != (0.5+0)/2 {
		t.Errorf("default map = %v, want (1/2 + 0)/2", got)
	}

	res, err = Evaluate(run, qrels, mapm, Options{AllQueries: true})
	if err != nil {
		t.Fatal(err)
	}
	if ids := queryIDs(res); !reflect.DeepEqual(ids, []string{"q1", "q2", "q4"}) {
		t.Errorf("-c queries %v, want [q1 q2 q4]", ids)
	}
	if got := res.Mean["map"]; got != (0.5+0+0)/3 {
		t.Errorf("-c map = %v, want (1/2 + 0 + 0)/3", got)
	}

	if _, err := Evaluate(run, Qrels{"zz": {"a": 1}}, mapm, Options{}); err == nil {
		t.Error("no common query: no error")
	}
}

func queryIDs(r metric.Result) []string {
	var ids []string
	for _, q := range r.PerQuery {
		ids = append(ids, q.ID)
	}
	return ids
}

func TestEvaluateRelevanceLevel(t *testing.T) {
	run := mustRun(t, "q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 c 3 1 r\n")
	qrels := mustQrels(t, "q 0 a 1\nq 0 b 2\nq 0 c 2\nq 0 d 2\n")
	ms := []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("p@1")}
	res, err := Evaluate(run, qrels, ms, Options{RelevanceLevel: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Level 2: relevant b (rank 2), c (rank 3), d (not retrieved): AP = (1/2 + 2/3)/3.
	if got, want := res.Mean["map"], (1.0/2+2.0/3)/3; math.Abs(got-want) > 1e-12 {
		t.Errorf("map = %v, want %v", got, want)
	}
	if res.Mean["p@1"] != 0 {
		t.Errorf("p@1 = %v, want 0", res.Mean["p@1"])
	}
}

func TestEvaluateDuplicateDocs(t *testing.T) {
	var run Run
	run.Add(Result{QueryID: "q", DocID: "a", Score: 1, Tag: "r"})
	run.Add(Result{QueryID: "q", DocID: "b", Score: 0.5, Tag: "r"})
	run.Add(Result{QueryID: "q", DocID: "a", Score: 0.1, Tag: "r"})
	_, err := Evaluate(run, Qrels{"q": {"a": 1}}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate docno: error %v", err)
	}
}

func TestRunRanker(t *testing.T) {
	r := NewRunRanker(mustRun(t, "q1 Q0 a 1 2.5 x\nq1 Q0 b 2 -1 x\nq2 Q0 a 1 7 x\n"), "test.run")
	q := &dataset.Question{ID: "q1", Candidates: []dataset.Candidate{{ID: "b"}, {ID: "a"}}}
	got, err := r.Score(context.Background(), q)
	if err != nil || !reflect.DeepEqual(got, []float64{-1, 2.5}) {
		t.Fatalf("scores %v, %v; want [-1 2.5]", got, err)
	}
	for _, tc := range []struct {
		q    *dataset.Question
		want string
	}{
		{&dataset.Question{ID: "q3", Candidates: []dataset.Candidate{{ID: "a"}}}, `run test.run: no results for question "q3"`},
		{&dataset.Question{ID: "q2", Candidates: []dataset.Candidate{{ID: "a"}, {ID: "c"}}}, `run test.run: no score for question "q2"'s candidate "c"`},
	} {
		if _, err := r.Score(context.Background(), tc.q); err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.q.ID, err, tc.want)
		}
	}
}

func TestTag(t *testing.T) {
	for _, tc := range []struct{ label, want string }{
		{"bm25", "bm25"},
		{"models/m.as2", "m.as2"},
		{"cascade bm25:100,cosinet=m.as2:10", "cascade_bm25:100,cosinet=m.as2:10"},
		{"my  model\tfile.as2", "my_model_file.as2"},
	} {
		got := Tag(tc.label)
		if got != tc.want {
			t.Errorf("Tag(%q) = %q, want %q", tc.label, got, tc.want)
		}
		if err := checkID("tag", got, false); err != nil {
			t.Errorf("Tag(%q) = %q: %v", tc.label, got, err)
		}
	}
}
