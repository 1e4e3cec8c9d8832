package trigger

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// scoreByID scores a candidate by its id, a number.
var scoreByID = rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
	s := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		s[i], _ = strconv.ParseFloat(c.ID, 64)
	}
	return s, nil
})

// question has one candidate per score; the one at correct (-1: none)
// is labelled positive.
func question(correct int, scores ...string) dataset.Question {
	q := dataset.Question{ID: strings.Join(scores, "/"), Text: "?"}
	for i, s := range scores {
		label := dataset.Negative
		if i == correct {
			label = dataset.Positive
		}
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: s, Text: "t" + s, Position: i, Label: label})
	}
	return q
}

func TestReports(t *testing.T) {
	// Tops: 5 (correct), 4 (wrong, answerable), 1 (no answer).
	test := []dataset.Question{question(0, "5", "0"), question(1, "4", "3"), question(-1, "1", "0")}
	// Trigger at scores >= 3: sigmoid(s - 3) >= 0.5.
	c := Calibration{A: 1, B: -3, Threshold: 0.5}
	fixed, err := MeasureReport(context.Background(), scoreByID, c, "--calibration c.json", "test", test)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := FitReport(context.Background(), scoreByID, "dev", test, "test", test)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		rep   Report
		lines []string
	}{
		// Triggered 2 (5 and 4), correct 1; answerable 2.
		{"fixed", fixed, []string{
			"r on d: P(top correct) = sigmoid(1.0000*score + -3.0000), trigger at >= 0.5000 (--calibration c.json)",
			"test  3 questions (2 with an answer): triggered 2, correct 1; precision 50.00 recall 50.00 F1 50.00"}},
		// Fitted and measured on the same questions: the best F1 there
		// triggers on the 5 alone.
		{"fit", fit, []string{
			"dev   3 questions (2 with an answer): triggered 1, correct 1; precision 100.00 recall 50.00 F1 66.67",
			"test  3 questions (2 with an answer): triggered 1, correct 1; precision 100.00 recall 50.00 F1 66.67"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.rep.Ranker, tc.rep.Dataset = "r", "d"
			var b bytes.Buffer
			if err := tc.rep.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(b.String()), "\n")
			want := tc.lines
			if len(want) < len(got) {
				got = got[len(got)-len(want):] // the fitted line's numbers are Fit's
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			js, err := json.Marshal(tc.rep)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(js, &m); err != nil {
				t.Fatal(err)
			}
			if string(m["ranker"]) != `"r"` || m["calibration"] == nil || !strings.Contains(string(m["test"]), `"Questions":3`) || len(m) != 4+len(tc.rep.Splits) {
				t.Errorf("JSON %s", js)
			}
			// The runner reads the last split's measures from "metrics".
			last := tc.rep.Splits[len(tc.rep.Splits)-1].Result
			var ms map[string]float64
			if err := json.Unmarshal(m["metrics"], &ms); err != nil || ms["precision"] != last.Precision || ms["recall"] != last.Recall || ms["f1"] != last.F1 || string(m["questions"]) != "3" {
				t.Errorf("JSON metrics %s, questions %s; want the test split's %+v", m["metrics"], m["questions"], last)
			}
		})
	}
}
