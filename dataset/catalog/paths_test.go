package catalog

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/as2/as2/dataset/wikiqa"
)

func TestSplitsAndSameDir(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"wikiqa", wikiqa.Splits},
		{"squad", []string{DefaultSplit("squad")}},
		{"jsonl", []string{""}},
	} {
		if got := Splits(tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("Splits(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if len(Splits("trecqa")) < 2 {
		t.Errorf("Splits(trecqa) = %q", Splits("trecqa"))
	}
	abs, _ := filepath.Abs("x")
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"x", abs, true},
		{"x/../x", "x", true},
		{"x", "y", false},
	} {
		if got := SameDir(tc.a, tc.b); got != tc.want {
			t.Errorf("SameDir(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}
