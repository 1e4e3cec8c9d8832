package bench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/index"
)

func hits(ids ...string) []index.Hit {
	out := make([]index.Hit, len(ids))
	for i, id := range ids {
		out[i] = index.Hit{ID: id}
	}
	return out
}

// TestRecall: recall@k counts want's first k among got's first k, in any
// order; a short list counts against the k it can fill.
func TestRecall(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got []index.Hit
		k         int
		recall    float64
	}{
		{"same", hits("a", "b", "c"), hits("a", "b", "c"), 3, 1},
		{"any order", hits("a", "b", "c"), hits("c", "a", "b"), 3, 1},
		{"one missed", hits("a", "b"), hits("a", "x"), 2, 0.5},
		{"none", hits("a", "b"), hits("x", "y"), 2, 0},
		{"beyond k does not count", hits("a", "b", "c"), hits("x", "y", "a"), 2, 0},
		{"want beyond k ignored", hits("a", "b", "c"), hits("a", "c"), 1, 1},
		{"got short", hits("a", "b", "c", "d"), hits("b"), 4, 0.25},
		{"want short", hits("a"), hits("a", "b", "c"), 3, 1},
		{"nothing wanted", nil, hits("a"), 3, 1},
		{"nothing got", hits("a"), nil, 3, 0},
	} {
		if got := Recall(tc.want, tc.got, tc.k); got != tc.recall {
			t.Errorf("%s: recall@%d = %v, want %v", tc.name, tc.k, got, tc.recall)
		}
	}
}

// TestTimeSearches: every question is searched for k, the hits come back
// in order, and recall is the mean over the questions.
func TestTimeSearches(t *testing.T) {
	answers := map[float32][]index.Hit{1: hits("a", "b"), 2: hits("c", "d")}
	var asked []float32
	search := func(_ context.Context, q []float32, k int) ([]index.Hit, error) {
		if k != 2 {
			t.Errorf("searched for %d", k)
		}
		asked = append(asked, q[0])
		return answers[q[0]], nil
	}
	qs := [][]float32{{1}, {2}}
	row, got, err := timeSearches(context.Background(), search, qs, 2, [][]index.Hit{hits("a", "b"), hits("c", "x")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []float32{1, 2}) || len(got) != 2 || got[1][0].ID != "c" || row.Recall != 0.75 || row.P99ms < row.P50ms {
		t.Errorf("asked %v, hits %v, row %+v", asked, got, row)
	}
	if row, _, _ := timeSearches(context.Background(), search, qs, 2, nil); row.Recall != 0 {
		t.Errorf("recall %v without truth", row.Recall)
	}
	boom := errors.New("boom")
	if _, _, err := timeSearches(context.Background(), func(context.Context, []float32, int) ([]index.Hit, error) { return nil, boom }, qs, 2, nil); !errors.Is(err, boom) {
		t.Errorf("error %v", err)
	}
	if _, _, err := timeSearches(context.Background(), search, qs, 2, [][]index.Hit{nil}); err == nil {
		t.Error("truth for 1 of 2 questions accepted")
	}
}

// firstWords encodes a question as a vector of its first bytes: any fixed
// map from text to vectors serves to search with.
type firstWords struct{ dim int }

func (e firstWords) EncodeAnswers(ctx context.Context, texts []string) ([][]float32, error) {
	return nil, errors.New("not used")
}

func (e firstWords) EncodeQuestion(_ context.Context, text string) ([]float32, error) {
	v := make([]float32, e.dim)
	for i := range v {
		v[i] = float32(text[i%len(text)]) / 128
	}
	return v, nil
}

// TestIndexes measures every kind on a padded pool: flat is its own truth,
// and the exact settings (rescoring every vector, a beam as wide as the
// pool) find flat's answers.
func TestIndexes(t *testing.T) {
	const dim, n = 8, 40
	rng := rand.New(rand.NewPCG(1, 2))
	ids, vecs := make([]string, n), make([][]float32, n)
	for i := range vecs {
		ids[i], vecs[i] = fmt.Sprint("s", i), make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(rng.NormFloat64())
		}
	}
	var logged []string
	o := IndexOptions{Size: 300, Seed: 1, Noise: 0.01, K: 5, Kinds: []string{index.BinaryKind, index.HNSWKind, index.FlatKind},
		Rescore: []int{5, 300}, EfSearch: []int{5, 300}, HNSW: index.HNSWOptions{M: 8, EfConstruction: 50, Workers: 2},
		Log: func(format string, a ...any) { logged = append(logged, fmt.Sprintf(format, a...)) }}
	questions := []string{"What is the capital of France?", "who wrote book3 ?", "What river flows through Paris?"}
	rep, err := Indexes(context.Background(), flat(t, ids, vecs), ids, firstWords{dim}, "first bytes", questions, "test", o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Size != 300 || rep.Real != n || rep.Dim != dim || rep.Queries != 3 || rep.K != 5 || len(rep.Rows) != 5 {
		t.Fatalf("report %+v", rep)
	}
	for i, want := range []string{"flat exact", "binary rescore 5", "binary rescore 300", "hnsw M 8, efConstruction 50, efSearch 5, 2 build workers", "hnsw M 8, efConstruction 50, efSearch 300, 2 build workers"} {
		row := rep.Rows[i]
		if got := row.Index + " " + row.Settings; got != want || row.P99ms < row.P50ms || row.MemoryBytes < 0 {
			t.Errorf("row %d: %+v, want %s", i, row, want)
		}
		if exact := i == 0 || i == 2 || i == 4; exact && row.Recall != 1 {
			t.Errorf("%s: recall %v, want 1", want, row.Recall)
		}
	}
	if !slices.ContainsFunc(logged, func(s string) bool { return strings.HasPrefix(s, "building hnsw over 300 vectors") }) {
		t.Errorf("log %q", logged)
	}
	for _, tc := range []struct {
		change func(*IndexOptions)
		want   string
	}{
		{func(o *IndexOptions) { o.Kinds = []string{"ivf"} }, `kind "ivf"`},
		{func(o *IndexOptions) { o.Kinds = []string{"weaviate"} }, "no server"},
		{func(o *IndexOptions) { o.Rescore = []int{3} }, "rescore 3: want at least k (5)"},
		{func(o *IndexOptions) { o.EfSearch = []int{0} }, "ef-search 0"},
		{func(o *IndexOptions) { o.Size = 0 }, "size 0"},
		{func(o *IndexOptions) { o.K = 0 }, "k 0"},
		{func(o *IndexOptions) { o.Noise = 2 }, "noise 2"},
	} {
		bad := o
		tc.change(&bad)
		if _, err := Indexes(context.Background(), flat(t, ids, vecs), ids, firstWords{dim}, "", questions, "", bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one with %q", err, tc.want)
		}
	}
}

// TestQuestions: the questions of a file, blank lines skipped, drawn
// seeded and without replacement.
func TestQuestions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "qs.txt")
	if err := os.WriteFile(file, []byte("q1\n\n  q2  \nq3\nq4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, source, err := Questions(file, 10, 1)
	if err != nil || source != file {
		t.Fatal(err, source)
	}
	sorted := slices.Sorted(slices.Values(all))
	if !slices.Equal(sorted, []string{"q1", "q2", "q3", "q4"}) {
		t.Errorf("questions %q", all)
	}
	two, _, _ := Questions(file, 2, 1)
	again, _, _ := Questions(file, 2, 1)
	if len(two) != 2 || !slices.Equal(two, again) || two[0] == two[1] {
		t.Errorf("seed 1: %q, then %q", two, again)
	}
	if _, _, err := Questions(filepath.Join(dir, "none.txt"), 2, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("\n \n"), 0o644)
	if _, _, err := Questions(empty, 2, 1); err == nil || !strings.Contains(err.Error(), "no questions") {
		t.Errorf("empty file: %v", err)
	}
	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, []byte("q1\n"+strings.Repeat("x", 2<<20)+"\n"), 0o644)
	if _, _, err := Questions(long, 2, 1); err == nil || !strings.Contains(err.Error(), "long.txt: line 2") {
		t.Errorf("a 2 MiB line: %v", err)
	}
}

// TestIndexOptionsCheck: errors name the option with the caller's prefix
// (as2 bench index's flags), and good options pass.
func TestIndexOptionsCheck(t *testing.T) {
	good := IndexOptions{Size: 10, K: 5, Noise: 0.01, Kinds: []string{"flat", "binary"}, Rescore: []int{5, 50}, EfSearch: []int{10}}
	for _, tc := range []struct {
		change func(*IndexOptions)
		want   string
	}{
		{func(*IndexOptions) {}, ""},
		{func(o *IndexOptions) { o.Size = -1 }, "--size -1: must be at least 1"},
		{func(o *IndexOptions) { o.K = 0 }, "--k 0: must be at least 1"},
		{func(o *IndexOptions) { o.Noise = -0.5 }, "--noise -0.5: want 0 to 1"},
		{func(o *IndexOptions) { o.Kinds = []string{"flat", "ivf"} }, `--kind "ivf": want flat, binary, hnsw, weaviate`},
		{func(o *IndexOptions) { o.Rescore = []int{3} }, "--rescore 3: want at least --k (5)"},
		{func(o *IndexOptions) { o.EfSearch = []int{0} }, "--ef-search 0: must be at least 1"},
	} {
		o := good
		tc.change(&o)
		err := o.Check("--")
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("Check: %v, want %q", err, tc.want)
		}
	}
}
