package as2_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/as2/as2"
)

// TestIndexBars: a flat index shows the encoding's bar alone, an hnsw one
// the encoding's then the insertions', the first ended as the second
// starts; every bar is ended once. (The fake model reports no encoding
// steps.)
func TestIndexBars(t *testing.T) {
	for _, tc := range []struct{ kind, want string }{
		{"flat", "start encoding answers 3; done encoding answers"},
		{"hnsw", "start encoding answers 3; start indexing answers 3; done encoding answers; step indexing answers; done indexing answers"},
	} {
		var log []string
		last := map[string]bool{} // a bar's steps logged once, in a row
		bars := func(what string, total int) (func(int), func()) {
			log = append(log, fmt.Sprintf("start %s %d", what, total))
			return func(int) {
					if !last[what] {
						log = append(log, "step "+what)
						last[what] = true
					}
				}, func() {
					log = append(log, "done "+what)
				}
		}
		opt, end := as2.IndexBars(tc.kind, len(capitalTexts), bars)
		x, err := as2.BuildIndex(context.Background(), capitalIDs, capitalTexts, as2.WithRetrieverModel(fakeVectors{fakeModel{arch: "dual"}}), as2.WithKind(tc.kind), opt)
		end()
		if err != nil || x.Len() != 3 {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		if got := strings.Join(log, "; "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.kind, got, tc.want)
		}
	}
	opt, end := as2.IndexBars("flat", 3, nil) // no bars: nothing to call
	if _, err := as2.BuildIndex(context.Background(), capitalIDs, capitalTexts, as2.WithRetriever("bm25"), opt); err != nil {
		t.Fatal(err)
	}
	end()
}
