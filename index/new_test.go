package index

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/as2/as2/rank"
)

func TestNew(t *testing.T) {
	bm := rank.DefaultOptions()
	bm.K1 = 0.5
	tests := []struct {
		kind string
		opts Options
		want string // Describe of the new index, or an error's text
		err  bool
	}{
		{FlatKind, Options{}, "flat index", false},
		{BinaryKind, Options{}, "binary index (200 rescored)", false},
		{BinaryKind, Options{Rescore: 7}, "binary index (7 rescored)", false},
		{BinaryKind, Options{Rescore: -1}, "rescore -1", true},
		{HNSWKind, Options{HNSW: HNSWOptions{M: 4}}, "hnsw index (M 4, efConstruction 200, efSearch 100)", false},
		{HNSWKind, Options{HNSW: HNSWOptions{M: 1}}, "hnsw M 1", true},
		{MatricesKind, Options{}, "matrices index", false},
		{BM25Kind, Options{BM25: &bm}, "bm25 index", false},
		{"ivf", Options{}, `kind "ivf": want flat, binary or hnsw`, true},
		{"", Options{}, `kind "": want`, true},
	}
	for _, tc := range tests {
		x, err := New(tc.kind, 8, tc.opts)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%q): %v, want an error with %q", tc.kind, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("New(%q): %v", tc.kind, err)
		}
		if x.Kind() != tc.kind || x.Len() != 0 || Describe(x) != tc.want {
			t.Errorf("New(%q) = a %s index of %d, %q; want %q", tc.kind, x.Kind(), x.Len(), Describe(x), tc.want)
		}
	}
	if x, _ := New(BM25Kind, 0, Options{BM25: &bm}); x.(*BM25).K1 != 0.5 {
		t.Errorf("New(bm25) ignored its options")
	}
	if _, err := NewVectors(MatricesKind, 8, Options{}); err == nil {
		t.Error("NewVectors(matrices): no error")
	}
}

// Read reads every stand-alone kind back as its own reader does, and
// refuses bundles, other files and damage.
func TestRead(t *testing.T) {
	files := written(t)
	for kind, data := range files {
		if kind == BundleKind {
			continue
		}
		x, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		var again bytes.Buffer
		if _, err := x.WriteTo(&again); err != nil || x.Kind() != kind || !bytes.Equal(again.Bytes(), data) {
			t.Errorf("%s: read as a %s index that writes back differently (%v)", kind, x.Kind(), err)
		}
	}
	flat := files[FlatKind]
	unknown := bytes.Clone(flat)
	copy(unknown[8:16], "ivf\x00\x00\x00\x00\x00")
	tests := []struct {
		name    string
		in      []byte
		want    string
		corrupt bool
	}{
		{"empty", nil, "reading the header", true},
		{"short", flat[:10], "reading the header", true},
		{"text", []byte("hello, world, this is text"), "not an as2 index file", false},
		{"bundle", files[BundleKind], "read it with ReadBundle", false},
		{"unknown kind", unknown, `a "ivf" index, which this build does not read`, false},
		{"truncated", flat[:len(flat)-5], "reading a flat index: corrupt index file", true},
	}
	for _, tc := range tests {
		_, err := Read(bytes.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrCorrupt) != tc.corrupt {
			t.Errorf("%s: %v, want an error with %q (corrupt %v)", tc.name, err, tc.want, tc.corrupt)
		}
	}
}

func TestSearchOptionsApply(t *testing.T) {
	files := written(t)
	tests := []struct {
		kind string
		opts SearchOptions
		want string // Describe after, or an error's text
		err  bool
	}{
		{HNSWKind, SearchOptions{}, "efSearch 5)", false},
		{HNSWKind, SearchOptions{EfSearch: 50}, "efSearch 50)", false},
		{HNSWKind, SearchOptions{EfSearch: -3}, "ef 1 to", true},
		{HNSWKind, SearchOptions{Rescore: 9}, "rescore 9 is for binary indexes, not a hnsw one", true},
		{BinaryKind, SearchOptions{}, "(7 rescored)", false},
		{BinaryKind, SearchOptions{Rescore: 9}, "(9 rescored)", false},
		{BinaryKind, SearchOptions{Rescore: -9}, "rescore -9: want at least 1", true},
		{FlatKind, SearchOptions{EfSearch: 50}, "ef-search 50 is for hnsw indexes, not a flat one", true},
		{FlatKind, SearchOptions{}, "flat index", false},
	}
	for _, tc := range tests {
		x, err := Read(bytes.NewReader(files[tc.kind]))
		if err != nil {
			t.Fatal(err)
		}
		err = tc.opts.Apply(x)
		switch {
		case tc.err && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %+v: %v, want an error with %q", tc.kind, tc.opts, err, tc.want)
		case !tc.err && (err != nil || !strings.HasSuffix(Describe(x), tc.want)):
			t.Errorf("%s %+v: %v, %q, want %q", tc.kind, tc.opts, err, Describe(x), tc.want)
		}
	}
}
