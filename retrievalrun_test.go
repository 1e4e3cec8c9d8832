package as2_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/rank"
)

// TestRetrievalRun evaluates bm25 on a small pool, builds and saves its
// index then reads it back, and names the setting of each error.
func TestRetrievalRun(t *testing.T) {
	dir := t.TempDir()
	pool := &reqa.Pool{Source: reqa.Source, Split: "dev", Questions: []reqa.Question{
		{ID: "q1", Text: "capital of France", Gold: []string{"fr"}},
		{ID: "q2", Text: "capital of Italy", Gold: []string{"it"}},
	}}
	for i, id := range capitalIDs {
		pool.Answers = append(pool.Answers, reqa.Answer{ID: id, Text: capitalTexts[i]})
	}
	file := filepath.Join(dir, "pool.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	saved := filepath.Join(dir, "bm25.idx")
	run := func(edit func(*as2.RetrievalRun)) as2.RetrievalRun {
		r := as2.RetrievalRun{RetrievalEval: as2.RetrievalEval{Depth: 10, FuseWeight: 1}, Pool: file,
			Index:        as2.IndexSettings{Retriever: "bm25", Kind: "flat", BM25: rank.DefaultOptions(), Workers: 1},
			OpenReranker: func(spec string) (rank.Ranker, error) { return nil, errors.New("no ranker " + spec) }}
		edit(&r)
		return r
	}
	for _, tc := range []struct {
		name    string
		edit    func(*as2.RetrievalRun)
		setting string // the *ConfigError's; "" for none
		err     string // in the error; "" for none
	}{
		{"build and save", func(r *as2.RetrievalRun) { r.Save = saved }, "", ""},
		{"load", func(r *as2.RetrievalRun) { r.Load = saved }, "", ""},
		{"no pool", func(r *as2.RetrievalRun) { r.Pool = filepath.Join(dir, "none.jsonl") }, "pool", "none.jsonl"},
		{"no index file", func(r *as2.RetrievalRun) { r.Load = filepath.Join(dir, "none.idx") }, "load-index", "none.idx"},
		{"bad fuse", func(r *as2.RetrievalRun) { r.Fuse = "tfidf" }, "fuse", "tfidf"},
		{"bad retriever", func(r *as2.RetrievalRun) { r.Index.Retriever = "tfidf" }, "retriever", "tfidf"},
		{"shallow", func(r *as2.RetrievalRun) { r.Depth = 5 }, "depth", "want at least 10"},
		{"reranker", func(r *as2.RetrievalRun) { r.Rerank = "x" }, "", "no ranker x"},
	} {
		rep, err := run(tc.edit).Run(context.Background())
		var ce *as2.ConfigError
		switch {
		case tc.err == "" && (err != nil || rep.Result.MRR != 1):
			t.Errorf("%s: MRR %v, %v; want 1", tc.name, rep.Result.MRR, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.err)
		case tc.setting != "" && (!errors.As(err, &ce) || ce.Setting != tc.setting):
			t.Errorf("%s: %v, want a *ConfigError for %s", tc.name, err, tc.setting)
		case tc.setting == "" && errors.As(err, &ce):
			t.Errorf("%s: %v is a *ConfigError", tc.name, err)
		}
	}
	if _, err := os.Stat(saved); err != nil {
		t.Errorf("Save: %v", err)
	}
}
