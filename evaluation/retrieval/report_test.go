package retrieval

import (
	"bytes"
	"testing"
	"time"

	"github.com/as2/as2/dataset/reqa"
)

func TestReportWrite(t *testing.T) {
	pool := &reqa.Pool{Split: "test", Answers: make([]reqa.Answer, 3)}
	r := Report{
		File: "p.jsonl", Pool: pool, Retriever: "bm25",
		Result: Result{Questions: 2, MRR: 0.75, Cutoffs: []int{1, 5}, Success: []float64{0.5, 1}, RecallEq15: []float64{0.25, 1}},
		Build:  1500 * time.Millisecond, Search: 5 * time.Millisecond,
	}
	empty := r
	empty.Result = Result{}
	tests := []struct {
		name, format string
		r            Report
		want         string
	}{
		{"table", FormatTable, r, "p.jsonl (test): 3 answers, 2 questions\n" +
			"retriever: bm25; built in 1.5s, 2.50 ms per question\n" +
			"    MRR    R@1     R@5  Eq.15 R@1  Eq.15 R@5\n" +
			"  75.00  50.00  100.00      25.00     100.00\n"},
		{"no questions", FormatTable, empty, "p.jsonl (test): 3 answers, 0 questions\n" +
			"retriever: bm25; built in 1.5s, 5.00 ms per question\n" +
			"   MRR\n  0.00\n"},
		{"json", FormatJSON, r, `{"answers":3,"build_seconds":1.5,"cutoffs":[1,5],` +
			`"metrics":{"eq15_r@1":0.25,"eq15_r@5":1,"mrr":0.75,"ms_per_question":2.5,"r@1":0.5,"r@5":1},"mrr":0.75,"pool":"p.jsonl","questions":2,` +
			`"r_at":[0.5,1],"recall_eq15_at":[0.25,1],"retriever":"bm25","search_seconds":0.005,"split":"test"}` + "\n"},
		{"unknown format", "csv", r, `format "csv": want table or json`},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		got := ""
		if err := tc.r.Write(&buf, tc.format); err != nil {
			got = err.Error()
		} else {
			got = buf.String()
		}
		if got != tc.want {
			t.Errorf("%s:\n%q, want\n%q", tc.name, got, tc.want)
		}
	}
}
