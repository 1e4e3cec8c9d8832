package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFileRanker writes a ranker's TREC run with as2 rank, reads it back
// as a ranker (--model FILE.run) to the same numbers, blends it, and
// refuses a run that lacks a question.
func TestRunFileRanker(t *testing.T) {
	data, _ := writeTinyData(t)
	dir := t.TempDir()
	runFile := filepath.Join(dir, "bm25.run")
	if out, err := run(t, "rank", "--ranker", "bm25", "--input", data, "--format", "trec", "--output", runFile); err != nil {
		t.Fatalf("rank: %v\n%s", err, out)
	}
	eval := func(args ...string) string {
		t.Helper()
		out, err := run(t, append([]string{"eval", "--dataset", "jsonl", "--path", data, "--metrics", "map,mrr"}, args...)...)
		if err != nil {
			t.Fatalf("eval %v: %v\n%s", args, err, out)
		}
		return out[max(strings.Index(out, "map "), 0):]
	}
	if own, viaRun := eval("--ranker", "bm25"), eval("--model", runFile); own != viaRun {
		t.Errorf("bm25: %q; its run file: %q", own, viaRun)
	}
	blend := filepath.Join(dir, "blend.json")
	if out, err := run(t, "tune", "blend", "--rankers", runFile+",wo", "--dataset", "jsonl", "--path", data, "--out", blend); err != nil {
		t.Errorf("tune blend with a run file: %v\n%s", err, out)
	}
	raw, _ := os.ReadFile(runFile)
	partial := filepath.Join(dir, "partial.run")
	os.WriteFile(partial, raw[:strings.Index(string(raw), "\nq1 ")+1], 0o644) // q0 only
	if out, err := run(t, "eval", "--dataset", "jsonl", "--path", data, "--model", partial); err == nil || !strings.Contains(err.Error(), `no results for question "q1"`) {
		t.Errorf("a run without q1: %v\n%s", err, out)
	}
}
