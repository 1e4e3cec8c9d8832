package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyDev writes two labelled questions to dev.jsonl in a new folder.
func tinyDev(t *testing.T) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, "dev.jsonl")
	if err := os.WriteFile(path, []byte(`{"id": "1", "question": "who wrote hamlet?", "candidates": [{"text": "Hamlet is a play.", "label": 0}, {"text": "Shakespeare wrote Hamlet.", "label": 1}, {"text": "It is long.", "label": 0}]}
{"id": "2", "question": "where is paris?", "candidates": [{"text": "Paris is in France.", "label": 1}, {"text": "It is big.", "label": 0}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// TestTuneBlend fits a blend of two rule-based rankers on a tiny labelled
// file, ranks with the written blend, and refuses a broken one.
func TestTuneBlend(t *testing.T) {
	dir, in := tinyDev(t)
	out := filepath.Join(dir, "sub", "blend.json")
	os.MkdirAll(filepath.Dir(out), 0o755)
	msg, err := run(t, "tune", "blend", "--rankers", "wo,bm25", "--listwise", "--dataset", "jsonl", "--path", in, "--out", out)
	if err != nil || !strings.Contains(msg, "blend (bias 0.0000)") {
		t.Fatalf("tune blend: %v\n%s", err, msg)
	}
	if msg, err = run(t, "eval", "--model", out, "--dataset", "jsonl", "--path", in); err != nil || !strings.Contains(msg, "map") {
		t.Fatalf("eval --model blend.json: %v\n%s", err, msg)
	}
	// What a blend file may hold is as2.OpenRanker's (TestOpenRanker);
	// here, that its error reaches the user under the flag.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"rankers": ["wo"], "weights": [1, 2]}`), 0o644)
	if _, err := run(t, "eval", "--model", bad, "--dataset", "jsonl", "--path", in); err == nil || !strings.Contains(err.Error(), "--model: "+bad+": ") || !strings.Contains(err.Error(), "1 rankers and 2 weights") {
		t.Errorf("a bad blend: got %v", err)
	}
	if _, err := run(t, "tune", "blend", "--rankers", "wo", "--dataset", "jsonl", "--path", in); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("no --out: %v", err)
	}
	// --cv chooses the penalty: a table of the grid's held-out losses.
	if msg, err = run(t, "tune", "blend", "--rankers", "wo,bm25", "--listwise", "--cv", "2", "--dataset", "jsonl", "--path", in, "--out", out); err != nil || !strings.Contains(msg, "held-out loss (2 folds)") || !strings.Contains(msg, "\n1000 ") {
		t.Errorf("tune blend --cv 2: %v\n%s", err, msg)
	}
	for _, tc := range []struct{ args, want string }{
		{"--cv 1", "--cv 1: needs at least 2 folds"},
		{"--cv -2", "--cv -2: needs at least 2 folds"},
		{"--cv 3", "2 questions for 3 folds"},
		{"--cv 2 --l2 1", "--l2 and --cv"},
		{"--rankers wo,magic", `--rankers magic: unknown ranker "magic"`},
		{"--rankers wo," + filepath.Join(dir, "none.as2"), "--rankers " + filepath.Join(dir, "none.as2") + ": file not found"},
	} {
		args := append([]string{"tune", "blend", "--rankers", "wo", "--dataset", "jsonl", "--path", in, "--out", out}, strings.Fields(tc.args)...)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.args, err, tc.want)
		}
	}
}
