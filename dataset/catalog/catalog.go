// Package catalog opens a benchmark by name, the way the command line names
// them: "wikiqa", "trecqa", "squad" (SQuAD-sent), and as2's own "jsonl" and
// "tsv" formats for users' data.
package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/squad"
	"github.com/as2/as2/dataset/trecqa"
	"github.com/as2/as2/dataset/wikiqa"
)

// Names lists the dataset names Load accepts.
var Names = []string{"wikiqa", "trecqa", "squad", "jsonl", "tsv"}

// Options control Load.
type Options struct {
	// Seed for shuffling TrecQA's label-sorted candidates (0: trecqa.DefaultSeed).
	Seed uint64
	// KeepStoredOrder disables that shuffle (inspection only).
	KeepStoredOrder bool
	// NormalizeNumbers maps numbers to "<num>" (TrecQA, see trecqa).
	NormalizeNumbers bool
	// Empty says what to do with empty or white-space candidates (""
	// keeps them, see dataset.EmptyPolicy); Counts, if not nil, adds up
	// what it met.
	Empty  dataset.EmptyPolicy
	Counts *dataset.EmptyCounts
}

// DataDir is where the benchmarks live when no path is given: $AS2_DATA, or
// ../shared/data.
func DataDir() string {
	if d := os.Getenv("AS2_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "data")
}

// DefaultPath is the path Load uses for a named benchmark when none is given.
func DefaultPath(name string) string {
	return filepath.Join(DataDir(), name)
}

// DefaultSplit is the split used when none is given: test, except for
// SQuAD-sent, which has only dev.
func DefaultSplit(name string) string {
	if name == "squad" {
		return "dev"
	}
	return "test"
}

// IsFile reports whether dataset name is a single file of questions
// (jsonl, tsv), which has no splits, rather than a benchmark folder.
func IsFile(name string) bool { return name == "jsonl" || name == "tsv" }

// Load reads split of dataset name from path ("" means DefaultPath(name)).
// For jsonl and tsv, path is the file and split is ignored.
func Load(name, path, split string, opts Options) ([]dataset.Question, error) {
	if path == "" {
		if IsFile(name) {
			return nil, fmt.Errorf("dataset %s needs a file path", name)
		}
		path = DefaultPath(name)
	}
	ro := dataset.ReadOptions{Empty: opts.Empty, Counts: opts.Counts}
	var qs []dataset.Question
	var err error
	switch name {
	case "wikiqa":
		qs, err = wikiqa.Load(path, split)
	case "trecqa":
		qs, err = trecqa.Load(path, split, trecqa.Options{Seed: opts.Seed, KeepStoredOrder: opts.KeepStoredOrder, NormalizeNumbers: opts.NormalizeNumbers})
	case "squad":
		qs, err = squad.Load(path, split)
	case "jsonl":
		return dataset.ReadFile(path, ro.JSONL)
	case "tsv":
		return dataset.ReadFile(path, ro.TSV)
	default:
		return nil, fmt.Errorf("unknown dataset %q (want one of %s)", name, strings.Join(Names, ", "))
	}
	if err != nil {
		return nil, err
	}
	// The benchmarks' readers have no empty candidates today (checked on
	// every split); the policy holds for them all the same.
	if qs, err = dataset.ApplyEmptyAll(qs, opts.Empty, opts.Counts); err != nil {
		return nil, fmt.Errorf("%s %s: %w", name, split, err)
	}
	return qs, nil
}
