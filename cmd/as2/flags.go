package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trigger"
)

// datasetFlags select a benchmark and its evaluation subset.
type datasetFlags struct {
	name, path, split, subset string
	seed                      uint64
	keepStoredOrder           bool
	normalizeNumbers          bool
	empty                     string
	errOut                    io.Writer // warnings (nil: standard error)
	fileFlag                  string    // the flag of a jsonl or tsv file, for errors ("": --path)
}

const emptyFlagHelp = "empty or white-space candidates: keep (in place, never relevant, ranked below every other; a warning counts them), skip (drop them; the others keep their positions) or error"

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

// source is the dataset the flags name.
func (d *datasetFlags) source() catalog.Source {
	return catalog.Source{Name: d.name, Path: d.path, Split: d.split, Subset: d.subset, Empty: d.empty,
		Options: catalog.Options{Seed: d.seed, KeepStoredOrder: d.keepStoredOrder, NormalizeNumbers: d.normalizeNumbers}}
}

// describe names the data read, with the dataset's name also for a file.
func (d *datasetFlags) describe() string {
	if catalog.IsFile(d.name) {
		return d.name + " " + d.path
	}
	return d.source().Describe("")
}

// load reads a split ("": --split's) and returns all its questions and
// those of a subset ("": --subset's), warning of empty candidates
// (catalog.Source.Load); it leaves d as it was.
func (d *datasetFlags) load(split string, sub dataset.Subset) (all, kept []dataset.Question, _ dataset.Subset, err error) {
	src := d.source()
	l, err := src.Load(split, sub)
	var fe *catalog.FieldError
	switch {
	case errors.As(err, &fe):
		return nil, nil, "", fmt.Errorf("--%w", fe)
	case err != nil && catalog.IsFile(d.name):
		return nil, nil, "", withDataHint(d.name, d.path, notFound(cmp.Or(d.fileFlag, "--path"), d.path, err))
	case err != nil:
		return nil, nil, "", withDataHint(d.name, d.path, notFound("--dataset "+d.name, d.path, err))
	}
	if msg := l.Counts.Warning(l.Policy); msg != "" {
		fmt.Fprintf(cmp.Or[io.Writer](d.errOut, os.Stderr), "as2: warning: %s: %s\n", src.Describe(split), msg)
	}
	return l.All, l.Kept, l.Subset, nil
}

// loadSplit loads a DATASET:SPLIT spec of flag's with d's other settings.
func loadSplit(d datasetFlags, flag, spec string, sub dataset.Subset) ([]dataset.Question, error) {
	name, split, ok := strings.Cut(spec, ":")
	if !ok || name == "" || split == "" {
		return nil, fmt.Errorf("%s %q: want DATASET:SPLIT, e.g. trecqa:train-all", flag, spec)
	}
	d.name, d.path = name, ""
	_, kept, _, err := d.load(split, sub)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, spec, err)
	}
	return kept, nil
}

const int8FlagHelp = "--int8 runs every transformer model (builtin, model files, Hugging Face folders) with int8 weights on the int8 kernels, --int8=false every one float32; left out, the built-in model runs int8 and model files float32 (float32 wherever only the generic kernels run)"

// int8Choice is what --int8 says of fs: every model int8, every model
// float32 (--int8=false), or neither when it is left out.
func int8Choice(fs *pflag.FlagSet, int8 bool) (all8, all32 bool) {
	return int8, fs != nil && fs.Changed("int8") && !int8
}

// rankerFlags choose a ranker (as2.RankerChoice); def is --ranker's ("": wo+rr).
type rankerFlags struct {
	def string
	c   as2.RankerChoice
	fs  *pflag.FlagSet
}

func (r *rankerFlags) register(fs *pflag.FlagSet) {
	def := rank.DefaultOptions()
	r.fs = fs
	fs.StringVar(&r.c.Name, "ranker", cmp.Or(r.def, "wo+rr"), "ranker: "+as2.Builtin+" (the built-in neural model, in the binary) or a rule-based ranker: "+rank.NamesHelp()+" (stopwords dropped, words stemmed: bm25"+rank.StemSuffix+")")
	fs.StringVar(&r.c.Model, "model", "", "model file (from as2 train or as2 import) to rank with, instead of --ranker; FILE.json is a blend (as2 tune blend), FILE.run a TREC run whose scores rank the questions and candidates it lists (another system's output), a folder a Hugging Face cross-encoder checkpoint, ranked as it is")
	fs.StringVar(&r.c.Cascade, "cascade", "", `cascade of rankers instead of --ranker, e.g. "bm25:100,cosinet=m.as2:10": each stage NAME[=MODEL FILE]:K passes its best K candidates on`)
	fs.BoolVar(&r.c.Rules.Stopwords, "stopwords", false, "drop English stopwords before matching words")
	fs.BoolVar(&r.c.Rules.Punctuation, "punctuation", false, "count punctuation tokens as words")
	fs.BoolVar(&r.c.Rules.Stem, "stem", false, "match words by their Snowball English stems (a ranker name ending in "+rank.StemSuffix+" sets this and --stopwords)")
	fs.Float64Var(&r.c.Rules.K1, "bm25-k1", def.K1, "BM25 term-frequency saturation k1")
	fs.Float64Var(&r.c.Rules.B, "bm25-b", def.B, "BM25 length normalisation b (0 to 1)")
	fs.BoolVar(&r.c.Int8, "int8", false, int8FlagHelp)
	fs.StringVar(&r.c.IDF, "idf", "pool", "IDF and average length for bm25 and idf-overlap, alone or as --cascade stages: pool (each question's own candidates) or collection (every candidate sentence of the questions read)")
}

func (r *rankerFlags) label() string { return r.c.Label() }

// check reports contradicting flags before any data is read.
func (r *rankerFlags) check() error {
	r.c.NameSet = r.fs != nil && r.fs.Changed("ranker")
	r.c.Int8, r.c.Float32 = int8Choice(r.fs, r.c.Int8)
	if r.c.IDF == "" { // the library's default, but not a value --idf takes
		return fmt.Errorf(`--idf "": want pool or collection`)
	}
	return optionFlags(r.c.Check())
}

// build opens the ranker the flags name; qs is --idf collection's.
func (r *rankerFlags) build(qs []dataset.Question) (rank.Ranker, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	spec, option := r.c.Spec()
	return openRanker("--"+option, spec, r.c.Options(qs)...)
}

func openRanker(flag, spec string, opts ...as2.RankerOption) (rank.Ranker, error) {
	r, err := as2.OpenRanker(context.Background(), spec, opts...)
	if err != nil {
		return nil, flagError(flag, spec, err)
	}
	return r, nil
}

// calibration is --calibration's (spec), else r's own.
func calibration(r rank.Ranker, spec string) (*trigger.Calibration, error) {
	if _, ok := as2.CalibrationOf(r); spec == as2.Builtin && !ok {
		return nil, fmt.Errorf("--calibration builtin is the built-in model's: rank with --ranker builtin")
	}
	c, err := as2.ChooseCalibration(r, spec)
	if err != nil {
		return nil, flagError("--calibration", spec, err)
	}
	return c, nil
}

// configFlag names the flag of an *as2.ConfigError ("--depth 5: ...").
func configFlag(err error) error {
	if errors.As(err, new(*as2.ConfigError)) {
		return fmt.Errorf("--%w", err)
	}
	return err
}

// optionFlags names the flags of an *as2.OptionError.
func optionFlags(err error) error {
	var oe *as2.OptionError
	if errors.As(err, &oe) {
		return errors.New(oe.WithPrefix("--"))
	}
	return err
}

// flagError puts a flag before an error about its value: "FLAG PATH: file
// not found" for a missing file, "FLAG: ERR" when ERR names the value, else
// "FLAG VALUE: ERR".
func flagError(flag, value string, err error) error {
	value = strings.TrimPrefix(value, as2.FilePrefix)
	var nf *as2.NotFoundError
	var pe *fs.PathError
	switch {
	case errors.As(err, &nf):
		return fmt.Errorf("%s %w", flag, err)
	case errors.Is(err, fs.ErrNotExist):
		if errors.As(err, &pe) {
			value = pe.Path
		}
		return fmt.Errorf("%s %w", flag, &as2.NotFoundError{Path: value, Err: err})
	case strings.HasPrefix(err.Error(), value):
		return fmt.Errorf("%s: %w", flag, err)
	}
	return fmt.Errorf("%s %s: %w", flag, value, err)
}

// notFound is flagError for a missing file; other errors pass as they are.
func notFound(flag, path string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return flagError(flag, path, err)
}
