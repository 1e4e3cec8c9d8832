package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/as2/as2/rank"
)

// TestSpecFile checks the ranker-spec syntax: a bare name is a rule-based
// ranker even when a file of that name exists; file:PATH, or a path with a
// separator or an extension, is a model file.
func TestSpecFile(t *testing.T) {
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	if err := os.WriteFile("bm25", []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{
		"bm25": "", "wo+rr": "", "idf-overlap": "",
		"file:bm25": "bm25", "./bm25": "./bm25", "m.as2": "m.as2", filepath.Join("models", "m"): filepath.Join("models", "m"),
	} {
		if got := specFile(spec); got != want {
			t.Errorf("specFile(%q) = %q, want %q", spec, got, want)
		}
	}
	rule, file := specRanker("bm25", rank.DefaultOptions()), specRanker("file:bm25", rank.DefaultOptions())
	if _, err := rule.build(nil); err != nil {
		t.Errorf("bm25 beside a file called bm25: %v", err)
	}
	if _, err := file.build(nil); err == nil {
		t.Error("file:bm25 did not read the file")
	}
}
