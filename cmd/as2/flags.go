package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/model"
	_ "github.com/as2/as2/model/all" // links every architecture
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/model/crossencoder"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/cascade"
	"github.com/as2/as2/trec"
	"github.com/as2/as2/trigger"
)

// datasetFlags select a benchmark and its evaluation subset.
type datasetFlags struct {
	name, path, split, subset string
	seed                      uint64
	keepStoredOrder           bool
	normalizeNumbers          bool
	empty                     string
	// errOut receives warnings (nil: standard error).
	errOut io.Writer
}

// emptyFlagHelp documents --empty wherever questions are read.
const emptyFlagHelp = "empty or white-space candidates: keep (in place, never relevant, ranked below every other; a warning counts them), skip (drop them; the others keep their positions) or error"

// warnEmpty prints what an --empty policy met, if anything.
func warnEmpty(w io.Writer, what string, p dataset.EmptyPolicy, c dataset.EmptyCounts) {
	if msg := c.Warning(p); msg != "" {
		fmt.Fprintf(w, "as2: warning: %s: %s\n", what, msg)
	}
}

func (d *datasetFlags) register(fs *pflag.FlagSet, subsetDefault string) {
	fs.StringVar(&d.name, "dataset", "", "benchmark: "+strings.Join(catalog.Names, ", ")+" (jsonl and tsv are as2's formats for your own data)")
	fs.StringVar(&d.path, "path", "", "dataset folder or file (default <data folder>/<dataset>: $AS2_DATA, else the per-user folder of as2 data get)")
	fs.StringVar(&d.split, "split", "", "split: train, dev, test (wikiqa); train, train-all, dev, test, raw-dev, raw-test (trecqa; dev/test are the clean sets); dev, or its article-disjoint halves train and test (squad). Default test (squad: dev)")
	fs.StringVar(&d.subset, "subset", subsetDefault, "questions to keep: all, answered (>= 1 correct candidate; the Cosinet paper), filtered (>= 1 correct and >= 1 incorrect; the WikiQA paper's -filtered.ref)")
	fs.Uint64Var(&d.seed, "shuffle-seed", 1, "seed for shuffling TrecQA candidates, which the files store positives first")
	fs.BoolVar(&d.keepStoredOrder, "keep-stored-order", false, "do not shuffle TrecQA candidates (inspection only: the stored order leaks the labels)")
	fs.BoolVar(&d.normalizeNumbers, "normalize-numbers", false, "replace numbers by <num> (TrecQA TRAIN-ALL's convention)")
	fs.StringVar(&d.empty, "empty", "keep", emptyFlagHelp)
}

// describe names the data read, for reports: "wikiqa test", or the file of
// a jsonl or tsv dataset, which has no splits.
func (d *datasetFlags) describe() string {
	if catalog.IsFile(d.name) {
		return d.name + " " + d.path
	}
	return d.name + " " + d.splitName("")
}

// splitName is split, or else --split, or else the dataset's default.
func (d *datasetFlags) splitName(split string) string {
	switch {
	case split != "":
		return split
	case d.split != "":
		return d.split
	}
	return catalog.DefaultSplit(d.name)
}

// load reads a split (empty: as splitName says) and returns all its
// questions and those of a subset (empty: --subset). It changes nothing in
// d, so that one set of flags can load several splits.
func (d *datasetFlags) load(split string, sub dataset.Subset) (all, kept []dataset.Question, _ dataset.Subset, err error) {
	if d.name == "" {
		return nil, nil, "", fmt.Errorf("--dataset is required (one of %s)", strings.Join(catalog.Names, ", "))
	}
	if sub == "" {
		if sub, err = dataset.ParseSubset(d.subset); err != nil {
			return nil, nil, "", fmt.Errorf("--subset: %w", err)
		}
	}
	policy, err := dataset.ParseEmptyPolicy(d.empty)
	if err != nil && d.empty != "" {
		return nil, nil, "", fmt.Errorf("--empty: %w", err)
	}
	var counts dataset.EmptyCounts
	all, err = catalog.Load(d.name, d.path, d.splitName(split), catalog.Options{
		Seed: d.seed, KeepStoredOrder: d.keepStoredOrder, NormalizeNumbers: d.normalizeNumbers,
		Empty: policy, Counts: &counts,
	})
	if err != nil {
		return nil, nil, "", notFound(pathFlag(d.name), d.path, err)
	}
	w := d.errOut
	if w == nil {
		w = os.Stderr
	}
	if catalog.IsFile(d.name) {
		warnEmpty(w, d.path, policy, counts)
	} else {
		warnEmpty(w, d.name+" "+d.splitName(split), policy, counts)
	}
	return all, dataset.Filter(all, sub), sub, nil
}

// rankerFlags choose and configure a ranker.
type rankerFlags struct {
	// def is --ranker's default: wo+rr unless the command sets it (rank
	// and serve rank with the built-in model when nothing is named).
	def     string
	name    string
	model   string
	cascade string
	opts    rank.Options
	idf     string
	// fs, when the flags were registered, tells which were given.
	fs *pflag.FlagSet
}

func (r *rankerFlags) register(fs *pflag.FlagSet) {
	def := rank.DefaultOptions()
	r.fs = fs
	fs.StringVar(&r.name, "ranker", cmp.Or(r.def, "wo+rr"), "ranker: "+builtin.Name+" (the built-in neural model, in the binary) or a rule-based ranker: "+rank.NamesHelp()+" (stopwords dropped, words stemmed: bm25"+rank.StemSuffix+")")
	fs.StringVar(&r.model, "model", "", "model file (from as2 train or as2 import) to rank with, instead of --ranker; FILE.json is a blend (as2 tune blend), FILE.run a TREC run whose scores rank the questions and candidates it lists (another system's output), a folder a Hugging Face cross-encoder checkpoint, ranked as it is")
	fs.StringVar(&r.cascade, "cascade", "", `cascade of rankers instead of --ranker, e.g. "bm25:100,cosinet=m.as2:10": each stage NAME[=MODEL FILE]:K passes its best K candidates on`)
	fs.BoolVar(&r.opts.Stopwords, "stopwords", false, "drop English stopwords before matching words")
	fs.BoolVar(&r.opts.Punctuation, "punctuation", false, "count punctuation tokens as words")
	fs.BoolVar(&r.opts.Stem, "stem", false, "match words by their Snowball English stems (a ranker name ending in "+rank.StemSuffix+" sets this and --stopwords)")
	fs.Float64Var(&r.opts.K1, "bm25-k1", def.K1, "BM25 term-frequency saturation k1")
	fs.Float64Var(&r.opts.B, "bm25-b", def.B, "BM25 length normalisation b (0 to 1)")
	fs.StringVar(&r.idf, "idf", "pool", "IDF and average length for bm25 and idf-overlap: pool (each question's own candidates) or collection (every candidate sentence of the questions read)")
}

// label names the ranker in reports: the model file, the cascade, or the
// ranker's name.
func (r *rankerFlags) label() string {
	switch {
	case r.model != "":
		return r.model
	case r.cascade != "":
		return "cascade " + r.cascade
	}
	return r.name
}

// specFile returns the model file a ranker spec names, or "" when it names
// a rule-based ranker: "file:PATH", or a path, which has a separator or an
// extension (m.as2, ./bm25), names a file; a bare name (bm25, wo+rr) never
// does, even if a file of that name exists.
func specFile(spec string) string {
	if path, ok := strings.CutPrefix(spec, "file:"); ok {
		return path
	}
	if strings.ContainsRune(spec, filepath.Separator) || strings.ContainsRune(spec, '/') || filepath.Ext(spec) != "" {
		return spec
	}
	return ""
}

// specRanker returns the flags of a ranker spec: a model file or a
// rule-based ranker (see specFile).
func specRanker(spec string, opts rank.Options) rankerFlags {
	if file := specFile(spec); file != "" {
		return rankerFlags{model: file, opts: opts, idf: "pool"}
	}
	return rankerFlags{name: spec, opts: opts, idf: "pool"}
}

// check reports flags that contradict each other, before any data is read.
func (r *rankerFlags) check() error {
	if r.model != "" && r.cascade != "" {
		return fmt.Errorf("--model and --cascade: give one")
	}
	// --ranker names the ranker only when neither --model nor --cascade
	// does: given with them, it would be silently ignored.
	if r.fs != nil && r.fs.Changed("ranker") && (r.model != "" || r.cascade != "") {
		with := "--model"
		if r.cascade != "" {
			with = "--cascade"
		}
		return fmt.Errorf("--ranker %s does not go with %s, which is the ranker: give one", r.name, with)
	}
	return nil
}

// loadModel reads an as2 model file, a blend of rankers (FILE.json, from
// as2 tune blend), a TREC run's scores (FILE.run), or, given a folder,
// ranks with the Hugging Face cross-encoder checkpoint in it as it is (what
// as2 import hf would write).
func loadModel(path string) (rank.Ranker, error) {
	switch filepath.Ext(path) {
	case ".json":
		return loadBlend(path)
	case ".run":
		return loadRun(path)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		m, err := crossencoder.LoadHF(path)
		if err != nil {
			return nil, fmt.Errorf("%s: a folder is read as a Hugging Face checkpoint: %w", path, err)
		}
		return m, nil
	}
	return model.Load(path)
}

// loadRun reads a TREC run file (as2 rank --format trec, or another
// system's) as a ranker of the questions and candidates it scores.
func loadRun(path string) (rank.Ranker, error) {
	run, err := dataset.ReadFile(path, trec.ReadRun)
	if err != nil {
		return nil, err
	}
	return trec.NewRunRanker(run, path), nil
}

// build returns the ranker; qs is the collection for --idf collection.
func (r *rankerFlags) build(qs []dataset.Question) (rank.Ranker, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	if r.model != "" {
		return openModelFile("--model", r.model)
	}
	if r.cascade != "" {
		c, err := cascade.Parse(r.cascade, func(name, file string) (rank.Ranker, error) {
			if file != "" {
				m, err := loadModel(file)
				if err != nil && errors.Is(err, fs.ErrNotExist) {
					return nil, &notFoundError{flag: "model file", path: file, err: err}
				}
				return m, err
			}
			return namedRanker(name, r.opts)
		})
		if err != nil {
			return nil, fmt.Errorf("--cascade: %w", err)
		}
		return c, nil
	}
	if r.opts.K1 < 0 {
		return nil, fmt.Errorf("--bm25-k1 %v: must be >= 0", r.opts.K1)
	}
	if r.opts.B < 0 || r.opts.B > 1 {
		return nil, fmt.Errorf("--bm25-b %v: must be in [0, 1]", r.opts.B)
	}
	switch r.idf {
	case "pool":
	case "collection":
		r.opts.Collection = rank.NewCollection(qs, r.opts.ForRanker(r.name))
	default:
		return nil, fmt.Errorf("--idf %q: want pool or collection", r.idf)
	}
	rk, err := namedRanker(r.name, r.opts)
	if err != nil {
		return nil, fmt.Errorf("--ranker: %w", err)
	}
	return rk, nil
}

// namedRanker returns the ranker a bare name names: the built-in model or
// a rule-based ranker.
func namedRanker(name string, opts rank.Options) (rank.Ranker, error) {
	if name == builtin.Name {
		return builtin.Ranker()
	}
	return rank.New(name, opts)
}

// openRanker opens the ranker spec names for flag: a model file (see
// specFile), the built-in model, or a rule-based ranker with its default
// options.
func openRanker(flag, spec string) (rank.Ranker, error) {
	if file := specFile(spec); file != "" {
		return openModelFile(flag, file)
	}
	r, err := namedRanker(spec, rank.DefaultOptions())
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w; or %s, or a model file (a path, or file:NAME)", flag, spec, err, builtin.Name)
	}
	return r, nil
}

// openModelFile loads the model file path that flag names: a missing file
// is reported as such, other errors under the flag.
func openModelFile(flag, path string) (rank.Ranker, error) {
	m, err := loadModel(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound(flag, path, err)
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return m, nil
}

// calibration returns the answer-triggering calibration of the ranker the
// flags name, when as2 has one: the built-in model's.
func (r *rankerFlags) calibration() (trigger.Calibration, bool) {
	if r.model == "" && r.cascade == "" && r.name == builtin.Name {
		return builtin.Calibration(), true
	}
	return trigger.Calibration{}, false
}

// pathFlag names the flag that gives a dataset's path, for errors.
func pathFlag(name string) string {
	if catalog.IsFile(name) {
		return "--path"
	}
	return "--dataset " + name
}

// notFound turns a missing file into "FLAG PATH: file not found", which is
// what happened, keeping the cause for errors.Is; other errors pass as they
// are (they already name file and line).
func notFound(flag, path string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		path = pe.Path
	}
	return &notFoundError{flag: flag, path: path, err: err}
}

type notFoundError struct {
	flag, path string
	err        error
}

func (e *notFoundError) Error() string { return e.flag + " " + e.path + ": file not found" }
func (e *notFoundError) Unwrap() error { return e.err }
