package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadJSONL(t *testing.T) {
	in := `{"id": "q1", "question": "who wrote hamlet?", "candidates": [{"id": "s0", "text": "Hamlet is a play.", "label": 0}, {"text": "Shakespeare wrote it.", "label": true}]}

{"question": "where?", "candidates": ["bare string", {"sentence": "mcrisc style", "label": 1}]}
`
	qs, err := ReadJSONL(strings.NewReader(in), "in.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Question{
		{ID: "q1", Text: "who wrote hamlet?", Candidates: []Candidate{
			{ID: "s0", Text: "Hamlet is a play.", Position: 0, Label: Negative},
			{ID: "1", Text: "Shakespeare wrote it.", Position: 1, Label: Positive},
		}},
		{ID: "3", Text: "where?", Candidates: []Candidate{
			{ID: "0", Text: "bare string", Position: 0, Label: Unlabeled},
			{ID: "1", Text: "mcrisc style", Position: 1, Label: Positive},
		}},
	}
	if !reflect.DeepEqual(qs, want) {
		t.Fatalf("got %+v\nwant %+v", qs, want)
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, qs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSONL(&buf, "round-trip")
	if err != nil {
		t.Fatal(err)
	}
	want[1].ID = "3"
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("round trip: got %+v", back)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"malformed", `{"question": "x", "candidates": [`, "f.jsonl:1: malformed JSON"},
		{"wrong type", `{"question": 3, "candidates": ["a"]}`, `f.jsonl:1: field "question"`},
		{"bad label", `{"question": "x", "candidates": [{"text": "a", "label": 2}]}`, "f.jsonl:1: candidate 0: label 2 is not 0 or 1"},
		{"empty question", `{"question": " ", "candidates": ["a"]}`, "f.jsonl:1: question \"1\": empty question text"},
		{"no candidates", "\n" + `{"question": "x", "candidates": []}`, "f.jsonl:2: question \"2\": no candidates"},
		{"duplicate id", `{"question": "x", "candidates": [{"id": "a", "text": "1"}, {"id": "a", "text": "2"}]}`, `candidate id "a" appears twice`},
		{"two values", `{"question": "x", "candidates": ["a"]} {}`, "more than one JSON value"},
		{"invalid utf8", "{\"question\": \"\xff\", \"candidates\": [\"a\"]}", "f.jsonl:1: invalid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(tc.in), "f.jsonl")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
		})
	}
}

func TestReadTSV(t *testing.T) {
	in := "qid\tquestion\tcandidate\tlabel\nq1\twho?\tfirst\t0\nq2\twhat?\tother\t1\nq1\twho?\t\"quoted\" second\t1\n"
	qs, err := ReadTSV(strings.NewReader(in), "f.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || len(qs[0].Candidates) != 2 || qs[0].Candidates[1].Text != `"quoted" second` || qs[0].Candidates[1].Position != 1 || qs[1].Candidates[0].Label != Positive {
		t.Fatalf("got %+v", qs)
	}
	unlabelled, err := ReadTSV(strings.NewReader("q\tx?\ty\n"), "f.tsv")
	if err != nil || unlabelled[0].Candidates[0].Label != Unlabeled {
		t.Fatalf("3-column TSV: %+v, %v", unlabelled, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"q1\twho?\n", "f.tsv:1: 2 tab-separated fields"},
		{"q1\twho?\ta\tyes\n", `f.tsv:1: label "yes" is not 0 or 1`},
		{"q1\t\ta\t1\n", "f.tsv:1: empty question"},
		{"\tx\ta\t1\n", "f.tsv:1: empty qid"},
		{"q1\tx\ta\t1\nq1\ty\tb\t0\n", "f.tsv:2: qid \"q1\" has two different question texts"},
	} {
		if _, err := ReadTSV(strings.NewReader(tc.in), "f.tsv"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadTSV(%q): error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestOpenGzipAndTruncation(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := 0; i < 2000; i++ {
		zw.Write([]byte("q\tquestion text\tcandidate text number\t1\n"))
	}
	zw.Close()
	full := filepath.Join(dir, "ok.tsv") // no .gz suffix: detected by magic bytes
	os.WriteFile(full, buf.Bytes(), 0o644)
	rc, err := Open(full)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ReadTSV(rc, full)
	rc.Close()
	if err != nil || len(qs) != 1 || len(qs[0].Candidates) != 2000 {
		t.Fatalf("gzip read: %d questions, err %v", len(qs), err)
	}
	cut := filepath.Join(dir, "cut.tsv.gz")
	os.WriteFile(cut, buf.Bytes()[:buf.Len()/2], 0o644)
	err = ReadLines(cut, func(int, string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "cut.tsv.gz:") || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("truncated gzip: error %v", err)
	}
}

func TestSubsets(t *testing.T) {
	mk := func(labels ...int) Question {
		q := Question{ID: "q", Text: "q"}
		for i, l := range labels {
			q.Candidates = append(q.Candidates, Candidate{ID: string(rune('a' + i)), Text: "c", Position: i, Label: l})
		}
		return q
	}
	qs := []Question{mk(0, 0), mk(0, 1), mk(1, 1), mk(1)}
	for _, tc := range []struct {
		s    Subset
		want int
	}{{All, 4}, {Answered, 3}, {Filtered, 1}} {
		if got := len(Filter(qs, tc.s)); got != tc.want {
			t.Errorf("%s: %d questions, want %d", tc.s, got, tc.want)
		}
	}
	if _, err := ParseSubset("some"); err == nil {
		t.Error("ParseSubset accepted an unknown subset")
	}
}

func TestShuffleIsSeededAndRenumbers(t *testing.T) {
	mk := func() []Question {
		q := Question{ID: "q", Text: "q"}
		for i := 0; i < 20; i++ {
			q.Candidates = append(q.Candidates, Candidate{ID: string(rune('a' + i)), Text: "c", Position: i, Label: btoi(i < 5)})
		}
		return []Question{q}
	}
	a, b, c := mk(), mk(), mk()
	Shuffle(a, 7)
	Shuffle(b, 7)
	Shuffle(c, 8)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different order")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds, same order")
	}
	firstFive := 0
	for p, cand := range a[0].Candidates {
		if cand.Position != p {
			t.Fatalf("position %d at index %d", cand.Position, p)
		}
		if p < 5 {
			firstFive += cand.Label
		}
	}
	if firstFive == 5 {
		t.Fatal("positives still all first after shuffling")
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestComputeStats(t *testing.T) {
	qs := []Question{
		{ID: "1", Text: "a b", Candidates: []Candidate{{ID: "x", Text: "a b c", Label: 1}, {ID: "y", Text: "d", Label: 0}}},
		{ID: "2", Text: "a b c d", Candidates: []Candidate{{ID: "x", Text: "a", Label: 0}}},
	}
	s := ComputeStats(qs, strings.Fields)
	want := Stats{Questions: 2, Candidates: 3, Positives: 1, Answered: 1, AnsweredPercent: 50, AvgCandidates: 1.5, AvgQuestionLen: 3, AvgCandidateLen: 5.0 / 3, RandomP1: 0.5}
	if s != want {
		t.Fatalf("got %+v\nwant %+v", s, want)
	}
}

func TestAugment(t *testing.T) {
	mk := func(id string, texts ...string) Question {
		q := Question{ID: id, Text: "q" + id}
		for i, s := range texts {
			q.Candidates = append(q.Candidates, Candidate{ID: s, Text: s, Position: i, Label: btoi(i == 0)})
		}
		return q
	}
	pool := []Question{mk("1", "a", "b"), mk("2", "c", "d", "e"), mk("3", "f", "g", "a")}
	got, err := Augment(pool[:1], pool, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	q := got[0]
	if len(q.Candidates) != 5 || q.Candidates[0].Text != "a" || q.Candidates[1].Text != "b" || len(pool[0].Candidates) != 2 {
		t.Fatalf("augmented %+v (input now %+v)", q, pool[0])
	}
	seen := map[string]bool{}
	for i, c := range q.Candidates {
		if seen[c.Text] || c.Position != i || (i >= 2 && (c.Label != Negative || c.Text == "a" || c.Text == "b")) {
			t.Fatalf("candidate %d: %+v", i, c)
		}
		seen[c.Text] = true
	}
	again, _ := Augment(pool[:1], pool, 5, 7)
	if !reflect.DeepEqual(again, got) {
		t.Fatal("same seed, different pools")
	}
	if _, err := Augment(pool[:1], pool, 50, 7); err == nil || !strings.Contains(err.Error(), "too few distinct sentences") {
		t.Fatalf("oversized pool: %v", err)
	}
}
