package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTuneBlend fits a blend of two rule-based rankers on a tiny labelled
// file, ranks with the written blend, and refuses a broken one.
func TestTuneBlend(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dev.jsonl")
	os.WriteFile(in, []byte(`{"id": "1", "question": "who wrote hamlet?", "candidates": [{"text": "Hamlet is a play.", "label": 0}, {"text": "Shakespeare wrote Hamlet.", "label": 1}, {"text": "It is long.", "label": 0}]}
{"id": "2", "question": "where is paris?", "candidates": [{"text": "Paris is in France.", "label": 1}, {"text": "It is big.", "label": 0}]}
`), 0o644)
	out := filepath.Join(dir, "sub", "blend.json")
	os.MkdirAll(filepath.Dir(out), 0o755)
	msg, err := run(t, "tune", "blend", "--rankers", "wo,bm25", "--listwise", "--dataset", "jsonl", "--path", in, "--out", out)
	if err != nil || !strings.Contains(msg, "blend (bias 0.0000)") {
		t.Fatalf("tune blend: %v\n%s", err, msg)
	}
	if msg, err = run(t, "eval", "--model", out, "--dataset", "jsonl", "--path", in); err != nil || !strings.Contains(msg, "map") {
		t.Fatalf("eval --model blend.json: %v\n%s", err, msg)
	}
	bad := filepath.Join(dir, "bad.json")
	for content, want := range map[string]string{
		`{"rankers": ["wo"], "weights": [1, 2]}`:      "1 rankers and 2 weights",
		`{"rankers": ["magic"], "weights": [1]}`:      `unknown ranker "magic"`,
		`{"rankers": ["m.as2"], "weights": [1]}`:      "m.as2",
		`{"rankers": ["bad.json"], "weights": [1]}`:   "a blend cannot hold a blend",
		`{"rankers": ["wo"], "weights": [1], "x": 1}`: "unknown field",
	} {
		os.WriteFile(bad, []byte(content), 0o644)
		if _, err := run(t, "eval", "--model", bad, "--dataset", "jsonl", "--path", in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", content, err, want)
		}
	}
	if _, err := run(t, "tune", "blend", "--rankers", "wo", "--dataset", "jsonl", "--path", in); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("no --out: %v", err)
	}
}
