package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecWiring checks that ranker specs reach as2.OpenRanker as the
// flags mean them (the syntax itself is tested in the root package): a
// bare --ranker name is a rule-based ranker even beside a file of that
// name, --model and file: always read a file, and a bare serve --ranker
// target that is a file reads it.
func TestSpecWiring(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("bm25", []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "doc.txt")
	os.WriteFile(doc, []byte("Hamlet is a play. Shakespeare wrote Hamlet."), 0o644)
	if out, err := run(t, "rank", "--ranker", "bm25", "--question", "who wrote hamlet?", "--document", doc); err != nil || !strings.Contains(out, "1\t") {
		t.Errorf("--ranker bm25 beside a file called bm25: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"rank", "--model", "bm25", "--question", "who?", "--document", doc},
		{"serve", "--ranker", "a=file:bm25", "--addr", "256.0.0.1:99999"},
		{"serve", "--ranker", "a=./bm25", "--addr", "256.0.0.1:99999"},
	} {
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), "bm25: ") || strings.Contains(err.Error(), "unknown ranker") {
			t.Errorf("as2 %s: %v, want the file bm25 read", strings.Join(args, " "), err)
		}
	}
}
