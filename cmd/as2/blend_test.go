package main

import (
	"encoding/json"
	"math"
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
	// --cv chooses the penalty: a table of the grid's held-out losses.
	if msg, err = run(t, "tune", "blend", "--rankers", "wo,bm25", "--listwise", "--cv", "2", "--dataset", "jsonl", "--path", in, "--out", out); err != nil || !strings.Contains(msg, "held-out loss (2 folds)") || !strings.Contains(msg, "\n1000 ") {
		t.Errorf("tune blend --cv 2: %v\n%s", err, msg)
	}
	for _, tc := range []struct{ args, want string }{
		{"--cv 1", "--cv 1: needs at least 2 folds"},
		{"--cv -2", "--cv -2: needs at least 2 folds"},
		{"--cv 3", "2 questions for 3 folds"},
		{"--cv 2 --l2 1", "--l2 and --cv"},
	} {
		args := append([]string{"tune", "blend", "--rankers", "wo", "--dataset", "jsonl", "--path", in, "--out", out}, strings.Fields(tc.args)...)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestTuneBlendFlattens fits a blend whose rankers include a blend file
// in another folder: the file written is flat (the inner blend's rankers,
// weights multiplied in, model files named from the new blend's folder, a
// ranker named twice merged), its weights the nested sum's, and eval
// reads it.
func TestTuneBlendFlattens(t *testing.T) {
	dir, in := tinyDev(t)
	os.MkdirAll(filepath.Join(dir, "inner"), 0o755)
	inner := filepath.Join(dir, "inner", "pair.json")
	os.WriteFile(inner, []byte(`{"rankers": ["wo", "bm25"], "weights": [2, 0.5], "bias": 1}`), 0o644)
	out := filepath.Join(dir, "out", "blend.json")
	os.MkdirAll(filepath.Dir(out), 0o755)
	if msg, err := run(t, "tune", "blend", "--rankers", inner+",bm25,jaccard", "--listwise", "--dataset", "jsonl", "--path", in, "--out", out); err != nil {
		t.Fatalf("tune blend: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Rankers []string
		Weights []float64
		Bias    float64
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	if strings.Join(spec.Rankers, ",") != "wo,bm25,jaccard" {
		t.Fatalf("rankers %q, want wo,bm25,jaccard (the pair's, then the others, bm25 once)\n%s", spec.Rankers, b)
	}
	// The pair's weight w multiplies its own: wo gets 2w, and bm25 gets
	// 0.5w plus its own fitted weight; the pair's bias becomes w.
	w := spec.Weights[0] / 2
	if w <= 0 || math.Abs(spec.Bias-w) > 1e-9 {
		t.Errorf("weights %v, bias %v: want wo's weight twice the bias, both > 0", spec.Weights, spec.Bias)
	}
	if msg, err := run(t, "eval", "--model", out, "--dataset", "jsonl", "--path", in); err != nil || !strings.Contains(msg, "map") {
		t.Fatalf("eval --model of the flat blend: %v\n%s", err, msg)
	}
}
