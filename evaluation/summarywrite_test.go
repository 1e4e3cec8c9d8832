package evaluation

import (
	"strings"
	"testing"
)

// TestSummaryWrite: Write summarizes, then writes JSON or the table.
func TestSummaryWrite(t *testing.T) {
	for _, tc := range []struct {
		format      string
		perQuestion bool
		want        string
	}{
		{"json", false, `{"dataset":"wikiqa","split":"test","ranker":"bm25","questions":2,"metrics":{"map":0.1235,"mrr":0.6667}}` + "\n"},
		{"table", false, "wikiqa test, 2 questions, ranker bm25\n(n)\nmrr  0.6667\nmap  0.1235\n"},
		{"table", true, "wikiqa test, 2 questions, ranker bm25\n(n)\nquestion  mrr     map\nq1        1.0000  0.2000\nq2        0.3333  0.0469\nall       0.6667  0.1235\n"},
	} {
		s := Summary{Dataset: "wikiqa", Split: "test", Ranker: "bm25", Note: "n"}
		var b strings.Builder
		if err := s.Write(&b, tc.format, summaryResult(), tc.perQuestion); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s %v: got\n%s\nwant\n%s", tc.format, tc.perQuestion, b.String(), tc.want)
		}
	}
}
