package as2_test

import (
	"context"
	"strings"
	"testing"

	"github.com/as2/as2"
)

// TestFlatVectors: a flat index of a vector model gives its vectors and
// question encoder; bm25's and an hnsw graph are refused by kind.
func TestFlatVectors(t *testing.T) {
	ctx := context.Background()
	vectors := as2.WithRetrieverModel(fakeVectors{fakeModel{arch: "dual"}})
	for _, tc := range []struct {
		name string
		opts []as2.IndexOption
		want string // "" for none
	}{
		{"flat", []as2.IndexOption{vectors}, ""},
		{"hnsw", []as2.IndexOption{vectors, as2.WithKind("hnsw")}, "holds a hnsw index: want a flat one"},
		{"bm25", []as2.IndexOption{as2.WithRetriever("bm25")}, "holds a bm25 index: want a flat one"},
	} {
		x, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		flat, enc, err := x.FlatVectors()
		switch {
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case tc.want == "" && (err != nil || flat == nil || enc == nil):
			t.Errorf("%s: %v, %v, %v", tc.name, flat, enc, err)
		}
	}
}
