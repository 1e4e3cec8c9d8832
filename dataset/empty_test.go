package dataset

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestEmptyPolicy(t *testing.T) {
	jsonl := `{"id": "q1", "question": "who?", "candidates": [{"text": "a", "label": 0}, {"text": " ", "label": 1}, {"text": "c", "label": 1}, {"text": "", "label": 0}]}` + "\n" +
		`{"id": "q2", "question": "what?", "candidates": [{"text": "\t", "label": 1}]}` + "\n" +
		`{"id": "q3", "question": "why?", "candidates": ["x"]}` + "\n"
	tsv := "q1\twho?\ta\t0\nq1\twho?\t \t1\nq1\twho?\tc\t1\nq1\twho?\t\t0\nq2\twhat?\t\t1\nq3\twhy?\tx\n"
	type cand struct {
		text       string
		pos, label int
	}
	for _, tc := range []struct {
		policy  EmptyPolicy
		want    map[string][]cand // question id -> candidates
		counts  EmptyCounts
		wantErr string
	}{
		{EmptyKeep, map[string][]cand{
			"q1": {{"a", 0, 0}, {"", 1, 0}, {"c", 2, 1}, {"", 3, 0}},
			"q2": {{"", 0, 0}},
			"q3": {{"x", 0, Unlabeled}},
		}, EmptyCounts{Candidates: 3, Relevant: 2}, ""},
		{"", map[string][]cand{ // the zero value keeps
			"q1": {{"a", 0, 0}, {"", 1, 0}, {"c", 2, 1}, {"", 3, 0}},
			"q2": {{"", 0, 0}},
			"q3": {{"x", 0, Unlabeled}},
		}, EmptyCounts{Candidates: 3, Relevant: 2}, ""},
		{EmptySkip, map[string][]cand{
			"q1": {{"a", 0, 0}, {"c", 2, 1}}, // positions do not shift
			"q3": {{"x", 0, Unlabeled}},
		}, EmptyCounts{Candidates: 3, Relevant: 2, Questions: 1}, ""},
		{EmptyError, nil, EmptyCounts{}, `question "q1": candidate 1`},
	} {
		for _, format := range []string{"jsonl", "tsv"} {
			t.Run(string(tc.policy)+"/"+format, func(t *testing.T) {
				var counts EmptyCounts
				o := ReadOptions{Empty: tc.policy, Counts: &counts}
				var qs []Question
				var err error
				if format == "jsonl" {
					qs, err = o.JSONL(strings.NewReader(jsonl), "f")
				} else {
					qs, err = o.TSV(strings.NewReader(tsv), "f")
				}
				if tc.wantErr != "" {
					var pe *ParseError
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &pe) {
						t.Fatalf("error %v, want a *ParseError with %q", err, tc.wantErr)
					}
					if format == "jsonl" && pe.Line != 1 {
						t.Fatalf("error %v: want line 1", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got := map[string][]cand{}
				for _, q := range qs {
					for _, c := range q.Candidates {
						got[q.ID] = append(got[q.ID], cand{strings.TrimSpace(c.Text), c.Position, c.Label})
					}
				}
				// (TSV cannot hold a tab in a text: compare trimmed texts.)
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("got %v\nwant %v", got, tc.want)
				}
				if counts != tc.counts {
					t.Fatalf("counts %+v, want %+v", counts, tc.counts)
				}
				if w := counts.Warning(tc.policy); !strings.Contains(w, "3 empty") {
					t.Fatalf("warning %q", w)
				}
			})
		}
	}
	if _, err := ParseEmptyPolicy("drop"); err == nil || !strings.Contains(err.Error(), `"drop"`) {
		t.Fatalf("ParseEmptyPolicy(drop): %v", err)
	}
}

func TestApplyEmptyDoesNotWriteThrough(t *testing.T) {
	qs := []Question{{ID: "q", Text: "x", Candidates: []Candidate{{ID: "0", Text: "", Label: Positive}, {ID: "1", Text: "b", Position: 1}}}}
	kept, err := ApplyEmptyAll(qs, EmptyKeep, nil)
	if err != nil || kept[0].Candidates[0].Label != Negative {
		t.Fatalf("kept %+v, %v", kept, err)
	}
	if qs[0].Candidates[0].Label != Positive {
		t.Fatal("ApplyEmptyAll changed its input")
	}
	if got := WithoutEmpty(qs); len(got) != 1 || len(got[0].Candidates) != 1 || got[0].Candidates[0].Position != 1 {
		t.Fatalf("WithoutEmpty: %+v", got)
	}
}
