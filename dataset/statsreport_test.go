package dataset

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestWriteStats(t *testing.T) {
	rows := []SplitStats{{Split: "test", Stats: Stats{Questions: 3, Candidates: 12, Positives: 4, RandomP1: 0.25}}}
	for _, tc := range []struct {
		format string
		want   []string
		bad    bool
	}{
		{"table", []string{"wikiqa, subset all", "split", "test", "25.00"}, false},
		{"json", []string{`"dataset":"wikiqa"`, `"split":"test"`, `"questions":3`}, false},
		{"csv", nil, true},
	} {
		var b bytes.Buffer
		err := WriteStats(&b, "wikiqa", "all", tc.format, rows)
		if (err != nil) != tc.bad {
			t.Errorf("%s: %v", tc.format, err)
		}
		for _, s := range tc.want {
			if !strings.Contains(b.String(), s) {
				t.Errorf("%s: no %q in\n%s", tc.format, s, b.String())
			}
		}
		if tc.format == "json" && !json.Valid(b.Bytes()) {
			t.Errorf("json: not JSON: %s", b.String())
		}
	}
}
