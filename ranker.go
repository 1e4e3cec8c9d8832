package as2

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/as2/as2/dataset"
	_ "github.com/as2/as2/model/all" // a model file may hold any architecture
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/model/crossencoder"
	"github.com/as2/as2/model/quant"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/blend"
	"github.com/as2/as2/rank/cascade"
	"github.com/as2/as2/trec"
	"github.com/as2/as2/trigger"
)

// Builtin is the spec of the built-in model, which needs no file: two
// neural models embedded in as2, blended with word-overlap scores, and
// calibrated (see CalibrationOf).
const Builtin = builtin.Name

// CascadePrefix starts a cascade spec: "cascade:bm25:100,cosinet=m.as2:10".
const CascadePrefix = "cascade:"

// FilePrefix makes a spec a file even when it looks like a ranker's name:
// "file:bm25" is the file bm25, "bm25" the rule-based ranker.
const FilePrefix = "file:"

// RankerOption configures OpenRanker.
type RankerOption func(*rankerOptions)

type rankerOptions struct {
	rules      rank.Options
	collection []dataset.Question
	// useCollection is set by WithCollection, even with no questions, so
	// that an empty collection is still the caller's choice.
	useCollection bool
	int8          bool // WithInt8
	int8Set       bool // WithInt8 was given (else the built-in model is int8)
}

// WithRuleOptions sets the options of rule-based rankers (stopwords,
// stems, punctuation, BM25's k1 and b), those a spec names and those of a
// cascade's stages; the default is rank.DefaultOptions(). A name ending in
// rank.StemSuffix still turns stems and stopwords on. Rankers inside a
// blend file keep the defaults the blend was fitted with.
func WithRuleOptions(o rank.Options) RankerOption {
	return func(r *rankerOptions) { r.rules = o }
}

// WithCollection makes bm25 and idf-overlap take IDF and average length
// from every candidate of qs, rather than from each question's own pool
// (as2's --idf collection).
func WithCollection(qs []dataset.Question) RankerOption {
	return func(r *rankerOptions) { r.collection, r.useCollection = qs, true }
}

// OpenRanker returns the ranker spec names:
//
//   - "builtin" (Builtin): the built-in model, calibrated (CalibrationOf);
//   - a rule-based ranker's name, such as "bm25", "wo+rr" or "bm25-stem"
//     (rank.NamesHelp lists them);
//   - a file: "file:PATH" (FilePrefix), or anything with a path separator
//     or an extension. FILE.json is a blend (as2 tune blend), FILE.run a
//     TREC run whose scores rank the questions it lists, a folder a Hugging
//     Face cross-encoder checkpoint, and any other file an as2 model file
//     (as2 train, as2 import). A bare name is never a file, even if a file
//     of that name exists;
//   - "cascade:STAGES" (CascadePrefix): stages NAME[=FILE]:K separated by
//     commas, each passing its best K candidates on to the next, e.g.
//     "cascade:bm25:100,cosinet=m.as2:10". NAME is a rule-based ranker or
//     builtin, or, with =FILE, the stage's label for a file as above.
//
// A missing file gives "PATH: file not found", and errors.Is(err,
// fs.ErrNotExist) holds. Loading a model takes a second or so; the ranker
// is safe for concurrent use.
func OpenRanker(ctx context.Context, spec string, opts ...RankerOption) (rank.Ranker, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := rankerOptions{rules: rank.DefaultOptions()}
	for _, opt := range opts {
		opt(&o)
	}
	if err := checkRuleOptions(o.rules); err != nil {
		return nil, err
	}
	if stages, ok := strings.CutPrefix(spec, CascadePrefix); ok {
		c, err := cascade.Parse(stages, func(name, file string) (rank.Ranker, error) {
			if file != "" {
				return openFile(file, &o)
			}
			return o.named(name)
		})
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	if file := SpecFile(spec); file != "" {
		return openFile(file, &o)
	}
	return o.named(spec)
}

// checkRuleOptions refuses BM25 parameters outside their range.
func checkRuleOptions(o rank.Options) error {
	if o.K1 < 0 {
		return fmt.Errorf("BM25 k1 %v: must be >= 0", o.K1)
	}
	if o.B < 0 || o.B > 1 {
		return fmt.Errorf("BM25 b %v: must be in [0, 1]", o.B)
	}
	return nil
}

// named returns the built-in model or the rule-based ranker name.
func (o *rankerOptions) named(name string) (rank.Ranker, error) {
	if name == Builtin {
		return builtinRanker(o.builtinInt8())
	}
	opts := o.rules
	if o.useCollection {
		opts.Collection = rank.NewCollection(o.collection, opts.ForRanker(name))
	}
	r, err := rank.New(name, opts)
	if err != nil {
		return nil, fmt.Errorf("%w; or %s, a model file (a path, or %sPATH), or %sSTAGES", err, Builtin, FilePrefix, CascadePrefix)
	}
	return r, nil
}

// SpecFile returns the file a ranker spec names, or "" when it names the
// built-in model, a rule-based ranker or a cascade: "file:PATH", or a spec
// with a path separator or an extension (m.as2, ./bm25). A bare name
// (bm25, wo+rr) is never a file, even if a file of that name exists.
func SpecFile(spec string) string {
	if path, ok := strings.CutPrefix(spec, FilePrefix); ok {
		return path
	}
	if strings.HasPrefix(spec, CascadePrefix) {
		return ""
	}
	if strings.ContainsRune(spec, filepath.Separator) || strings.ContainsRune(spec, '/') || filepath.Ext(spec) != "" {
		return spec
	}
	return ""
}

// openFile loads a ranker file (see OpenRanker), reporting a missing file
// as such.
func openFile(path string, o *rankerOptions) (rank.Ranker, error) {
	r, err := loadFile(path, o)
	if err != nil {
		return nil, notFound(path, err)
	}
	return r, nil
}

// loadFile loads a ranker file, its transformer models int8 when o says so
// (WithInt8: float32 unless set).
func loadFile(path string, o *rankerOptions) (rank.Ranker, error) {
	switch filepath.Ext(path) {
	case ".json":
		return loadBlend(path, o)
	case ".run":
		run, err := dataset.ReadFile(path, trec.ReadRun)
		if err != nil {
			return nil, err
		}
		return trec.NewRunRanker(run, path), nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		m, err := crossencoder.LoadHF(path)
		if err != nil {
			return nil, fmt.Errorf("%s: a folder is read as a Hugging Face checkpoint: %w", path, err)
		}
		return m, useInt8(m, o.int8)
	}
	return quant.Load(path, o.int8)
}

// loadBlend reads a blend file (as2 tune blend --out), its rankers named
// relative to its folder, with their default options (those it was fitted
// with).
func loadBlend(path string, o *rankerOptions) (rank.Ranker, error) {
	spec, err := readBlendSpec(path)
	if err != nil {
		return nil, err
	}
	def := rankerOptions{rules: rank.DefaultOptions(), int8: o.int8, int8Set: o.int8Set}
	b, err := spec.Build(func(name string) (rank.Ranker, error) {
		if file := blendMemberFile(filepath.Dir(path), name); file != "" {
			if filepath.Ext(file) == ".json" {
				return nil, errors.New("a blend cannot hold a blend")
			}
			return loadFile(file, o)
		}
		return def.named(name)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// readBlendSpec reads a blend file's spec (as2 tune blend --out).
func readBlendSpec(path string) (blend.Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return blend.Spec{}, err
	}
	defer f.Close()
	spec, err := blend.ReadSpec(f)
	if err != nil {
		return blend.Spec{}, fmt.Errorf("%s: %w", path, err)
	}
	return spec, nil
}

// blendMemberFile is the file that a blend file in folder dir names by
// name, or "" for a ranker that is no file: blend files name model files
// relative to their own folder.
func blendMemberFile(dir, name string) string {
	file := SpecFile(name)
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	return file
}

// CalibrationOf returns the answer-triggering calibration that comes with
// r, when as2 has one: the built-in model's, for the ranker OpenRanker
// returns for "builtin". Its Prob turns a document's best score into the
// probability that the sentence answers; other rankers are calibrated
// with as2 trigger (trigger.LoadCalibration reads its file).
func CalibrationOf(r rank.Ranker) (trigger.Calibration, bool) {
	if !builtin.Is(r) { // false for nil and uncomparable rankers, without a panic
		return trigger.Calibration{}, false
	}
	return builtin.Calibration(), true
}

// OpenCalibration returns the calibration spec names for r: "builtin"
// (Builtin) is r's own (CalibrationOf), an error when r has none; any
// other spec is a file from as2 trigger --out (trigger.LoadCalibration).
func OpenCalibration(spec string, r rank.Ranker) (trigger.Calibration, error) {
	if spec != Builtin {
		c, err := trigger.LoadCalibration(spec)
		if err != nil {
			return c, notFound(spec, err)
		}
		return c, nil
	}
	c, ok := CalibrationOf(r)
	if !ok {
		return c, errors.New("builtin: the built-in model's calibration, for the built-in model only")
	}
	return c, nil
}

// NotFoundError reports a missing file: "PATH: file not found". It keeps
// the cause, so errors.Is(err, fs.ErrNotExist) holds.
type NotFoundError struct {
	Path string
	Err  error
}

func (e *NotFoundError) Error() string { return e.Path + ": file not found" }
func (e *NotFoundError) Unwrap() error { return e.Err }

// notFound turns a missing file into a *NotFoundError naming the file
// that is missing (the one the error's *fs.PathError names, which for a
// blend is a member of it); other errors pass as they are (they already
// name the file and line).
func notFound(path string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		path = pe.Path
	}
	return &NotFoundError{Path: path, Err: err}
}

// RankerChoice names a ranker as the command line and configuration files
// do: the model file Model, else the cascade Cascade, else the ranker Name,
// with the rule-based rankers' options. Its option names (OptionError) are
// the CLI's flag names without "--".
type RankerChoice struct {
	Name    string // option "ranker": Builtin or a rule-based ranker
	Model   string // option "model": a file, as OpenRanker reads it
	Cascade string // option "cascade": stages, without CascadePrefix
	// NameSet says that Name was chosen rather than defaulted: with Model
	// or Cascade, which name the ranker, it would be silently ignored.
	NameSet bool
	Rules   rank.Options // options "bm25-k1" and "bm25-b" among them
	IDF     string       // option "idf": "pool" ("" too) or "collection"
	// Int8 runs every transformer model int8 (WithInt8(true)), Float32
	// every one float32 (WithInt8(false)); neither, the built-in model is
	// int8 and model files float32.
	Int8    bool
	Float32 bool
}

// OptionError is a RankerChoice (or other option set) that contradicts
// itself or holds a value out of range. It names its options so that a
// command can name its flags (WithPrefix("--")).
type OptionError struct {
	Options []string // the options at fault
	format  string   // fmt format: %[i]s is option i (from 1)
}

func (e *OptionError) Error() string { return e.WithPrefix("") }

// WithPrefix is the message with prefix before every option's name.
func (e *OptionError) WithPrefix(prefix string) string {
	args := make([]any, len(e.Options))
	for i, o := range e.Options {
		args[i] = prefix + o
	}
	return fmt.Sprintf(e.format, args...)
}

// optionError is an OptionError whose message is format, %[i]s for option
// i, with value (escaped for fmt) wherever format has VALUE.
func optionError(format, value string, options ...string) error {
	return &OptionError{Options: options, format: strings.ReplaceAll(format, "VALUE", strings.ReplaceAll(value, "%", "%%"))}
}

// Check reports options that contradict each other or are out of range,
// before any data is read.
func (c RankerChoice) Check() error {
	switch {
	case c.Model != "" && c.Cascade != "":
		return optionError("%[1]s and %[2]s: give one", "", "model", "cascade")
	case c.NameSet && c.Model != "":
		return optionError("%[1]s VALUE does not go with %[2]s, which is the ranker: give one", c.Name, "ranker", "model")
	case c.NameSet && c.Cascade != "":
		return optionError("%[1]s VALUE does not go with %[2]s, which is the ranker: give one", c.Name, "ranker", "cascade")
	case c.Rules.K1 < 0:
		return optionError("%[1]s VALUE: must be >= 0", fmt.Sprint(c.Rules.K1), "bm25-k1")
	case c.Rules.B < 0 || c.Rules.B > 1:
		return optionError("%[1]s VALUE: must be in [0, 1]", fmt.Sprint(c.Rules.B), "bm25-b")
	case c.IDF != "" && c.IDF != "pool" && c.IDF != "collection":
		return optionError("%[1]s VALUE: want pool or collection", fmt.Sprintf("%q", c.IDF), "idf")
	}
	return nil
}

// Label names the ranker in reports: the model file, the cascade, or the
// ranker's name.
func (c RankerChoice) Label() string {
	switch {
	case c.Model != "":
		return c.Model
	case c.Cascade != "":
		return "cascade " + c.Cascade
	}
	return c.Name
}

// Spec is the OpenRanker spec of the choice, and the option that gave it.
func (c RankerChoice) Spec() (spec, option string) {
	switch {
	case c.Model != "":
		return FilePrefix + c.Model, "model"
	case c.Cascade != "":
		return CascadePrefix + c.Cascade, "cascade"
	}
	return c.Name, "ranker"
}

// Options are the OpenRanker options of the choice; qs is the collection
// for IDF "collection".
func (c RankerChoice) Options(qs []dataset.Question) []RankerOption {
	opts := append([]RankerOption{WithRuleOptions(c.Rules)}, int8Options(c.Int8, c.Float32)...)
	if c.IDF == "collection" {
		opts = append(opts, WithCollection(qs))
	}
	return opts
}

// ChooseCalibration returns the calibration that turns r's scores into
// probabilities: spec's (OpenCalibration) when given, else r's own
// (CalibrationOf), else nil.
func ChooseCalibration(r rank.Ranker, spec string) (*trigger.Calibration, error) {
	if spec != "" {
		c, err := OpenCalibration(spec, r)
		if err != nil {
			return nil, err
		}
		return &c, nil
	}
	if own, ok := CalibrationOf(r); ok {
		return &own, nil
	}
	return nil, nil
}
