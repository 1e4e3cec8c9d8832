package trigger

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReportWrite: json is one object that decodes, anything else the
// text report.
func TestReportWrite(t *testing.T) {
	rep := Report{Ranker: "bm25", Dataset: "wikiqa", Source: "fitted on dev", Calibration: Calibration{A: 1, B: -2, Threshold: 0.5},
		Splits: []SplitResult{{Split: "test", Result: Result{Questions: 4, Answerable: 2, Triggered: 1, Correct: 1, Precision: 1, Recall: 0.5, F1: 2.0 / 3}}}}
	for _, tc := range []struct{ format, want string }{
		{"json", `"ranker":"bm25","test":{"Questions":4`},
		{"table", "bm25 on wikiqa: P(top correct) = sigmoid(1.0000*score + -2.0000)"},
	} {
		var b strings.Builder
		if err := rep.Write(&b, tc.format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: %s, want %q", tc.format, b.String(), tc.want)
		}
		if tc.format == "json" && (!json.Valid([]byte(b.String())) || strings.Count(b.String(), "\n") != 1) {
			t.Errorf("json: not one JSON line: %s", b.String())
		}
	}
}
