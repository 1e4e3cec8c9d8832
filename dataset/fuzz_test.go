package dataset

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadJSONL checks that no input panics the reader under any empty
// candidate policy (mode picks it), that what it accepts under keep
// survives a write/read round trip, and that skip and error leave no empty
// candidate and never shift a position.
func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"id": "q1", "question": "who?", "candidates": [{"text": "a", "label": 1}, "b"]}`, uint8(0))
	f.Add(`{"question": "x", "candidates": [{"sentence": "s", "label": false}]}`, uint8(0))
	f.Add(`{"question": "x", "candidates": [{"text": "s", "label": 1.5}]}`, uint8(0))
	f.Add(`{"question": "x", "candidates": ["", {"text": " \t", "label": 1}, "c"]}`, uint8(0))
	f.Add(`{"question": "x", "candidates": ["", {"text": " \t", "label": 1}, "c"]}`, uint8(1))
	f.Add(`{"question": "x", "candidates": ["", {"text": " \t", "label": 1}, "c"]}`, uint8(2))
	f.Add(`{"question": "x", "candidates": [" "]}`+"\n"+`{"question": "y", "candidates": ["a", ""]}`, uint8(1))
	f.Fuzz(func(t *testing.T, in string, mode uint8) {
		p := EmptyPolicies[int(mode)%len(EmptyPolicies)]
		var counts EmptyCounts
		qs, err := ReadOptions{Empty: p, Counts: &counts}.JSONL(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		checkRead(t, qs, p, counts)
		if p != EmptyKeep {
			return
		}
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, qs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSONL(&buf, "round-trip")
		if err != nil {
			t.Fatalf("re-reading what was written: %v", err)
		}
		if !reflect.DeepEqual(back, qs) {
			t.Fatalf("round trip changed the data:\n%+v\n%+v", qs, back)
		}
	})
}

// FuzzReadTSV checks that no input panics the TSV reader under any empty
// candidate policy and that every question it returns is valid.
func FuzzReadTSV(f *testing.F) {
	f.Add("qid\tquestion\tcandidate\tlabel\nq1\twho?\ta\t1\n", uint8(0))
	f.Add("q1\twho?\ta\nq1\twho?\tb\n", uint8(0))
	f.Add("q1\twho?\ta\t2\n", uint8(0))
	f.Add("q1\twho?\t \t1\nq1\twho?\tb\t0\nq2\twhat?\t\t1\n", uint8(0))
	f.Add("q1\twho?\t \t1\nq1\twho?\tb\t0\nq2\twhat?\t\t1\n", uint8(1))
	f.Add("q1\twho?\t \t1\nq1\twho?\tb\t0\nq2\twhat?\t\t1\n", uint8(2))
	f.Fuzz(func(t *testing.T, in string, mode uint8) {
		p := EmptyPolicies[int(mode)%len(EmptyPolicies)]
		var counts EmptyCounts
		qs, err := ReadOptions{Empty: p, Counts: &counts}.TSV(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		checkRead(t, qs, p, counts)
	})
}

// checkRead checks what every reader guarantees under policy p.
func checkRead(t *testing.T, qs []Question, p EmptyPolicy, counts EmptyCounts) {
	t.Helper()
	if err := ValidateAll(qs); err != nil {
		t.Fatalf("reader returned an invalid question: %v", err)
	}
	empty := 0
	for _, q := range qs {
		for i, c := range q.Candidates {
			if i > 0 && c.Position <= q.Candidates[i-1].Position {
				t.Fatalf("question %q: positions %d then %d", q.ID, q.Candidates[i-1].Position, c.Position)
			}
			if p != EmptySkip && c.Position != i {
				t.Fatalf("question %q: candidate %d at position %d", q.ID, i, c.Position)
			}
			if c.IsEmpty() {
				empty++
				if c.Label == Positive {
					t.Fatalf("question %q: empty candidate %d labelled relevant", q.ID, i)
				}
			}
		}
	}
	switch {
	case p != EmptyKeep && empty > 0:
		t.Fatalf("policy %s left %d empty candidates", p, empty)
	case p == EmptyKeep && empty != counts.Candidates:
		t.Fatalf("kept %d empty candidates, counted %d", empty, counts.Candidates)
	case p == EmptyError && counts != (EmptyCounts{}):
		t.Fatalf("policy error counted %+v", counts)
	}
}
