package regression

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/as2/as2/internal/shareddata"
	"go.yaml.in/yaml/v3"
)

// Tiers, cheapest first: the tiers the tests' shareddata.Tier guards know.
// The unit tier is `go test ./...` itself and has no specs; the others are
// run by `regress run --tier`.
const (
	TierUnit  = shareddata.Unit
	TierQuick = shareddata.Quick
	TierLong  = shareddata.Long
	TierFull  = shareddata.Full
)

// specTier reports whether a spec can belong to tier: any tier but unit.
func specTier(tier string) bool {
	return tier == TierQuick || tier == TierLong || tier == TierFull
}

// Kinds of spec: how a run's metrics are read.
const (
	// KindTrain trains a model and evaluates it once on test: its steps
	// print `as2 train`'s summary line (parameters, seconds) and `as2 eval
	// --format json` (the metrics).
	KindTrain = "train"
	// KindEval evaluates a ranker that needs no training (no seeds).
	KindEval = "eval"
	// KindTest runs `go test -run` for an accuracy floor: its metric is
	// pass (1) or fail (0).
	KindTest = "test"
	// KindReference is a row quoted from a paper: its cells are given, it
	// has no command and no records.
	KindReference = "reference"
)

// A Table is one file under specs/: the rows of one table in the docs, in
// order. Its Name is the NAME in the docs' markers
// `<!-- regress:begin NAME -->` and `<!-- regress:end NAME -->`.
type Table struct {
	Name  string `yaml:"table"`
	Title string `yaml:"title"`
	// Feeds names the docs files that hold the table, for readers; `docs`
	// looks for the markers in every Markdown file it is given.
	Feeds   []string `yaml:"feeds"`
	Columns []Column `yaml:"columns"`
	// Defaults fill a row's empty fields.
	Defaults Spec   `yaml:"defaults"`
	Rows     []Spec `yaml:"rows"`
	// Lines make the table a view: its cells, line by line, are text in
	// which {SPEC:METRIC} or {SPEC:METRIC:FORMAT} is replaced by that
	// spec's metric over its records (format by default mean-std for a
	// spec with seeds, pct without). A view has no rows of its own; its
	// Columns give the headings. Views live in their own folder
	// (regression/tables), one table a file, named as the docs' markers.
	Lines [][]string `yaml:"lines"`
	// Source says where the literal numbers of a view's cells come from
	// (the numbers no record holds yet).
	Source string `yaml:"source"`

	file string
}

// A Column of a generated table: a metric summarised over a row's records
// in a format, or (Metric empty) the row's literal cell of that heading.
type Column struct {
	Head   string `yaml:"head"`
	Metric string `yaml:"metric"`
	// Format: "mean-std" (mean ± sample std in percent, 2 decimals), "pct"
	// (mean in percent, 2 decimals), "count" (mean as an integer with
	// thousands separators), "median" (median, 1 decimal), "median0"
	// (median, no decimals), "frac" (mean, 4 decimals), "num2" (mean, 2 decimals, unscaled), "pass"
	// (passed/runs).
	Format string `yaml:"format"`
}

// A Spec is one row of a table: a command run once per seed, the metrics
// it must reach, its tier and expected minutes (for all its seeds).
type Spec struct {
	Name  string `yaml:"name"`
	Label string `yaml:"label"`
	Kind  string `yaml:"kind"`
	Tier  string `yaml:"tier"`
	// Steps are command lines run in order in the module root, split like
	// a shell's words (quotes group; no expansion). `as2` is the binary
	// built from this checkout; {seed}, {dir} (a scratch folder of the
	// run's own) and {cache} (a folder kept between runs) are replaced.
	Steps []string `yaml:"steps"`
	// Cache lists steps run before Steps unless their Creates file exists
	// in {cache}: a pre-trained model several rows start from.
	Cache []CacheStep `yaml:"cache"`
	// Env adds variables to the steps' environment; a test spec's steps
	// also get $AS2_TIER at its tier.
	Env      map[string]string `yaml:"env"`
	Seeds    []int             `yaml:"seeds"`
	Expected map[string]Expect `yaml:"expected"`
	Minutes  float64           `yaml:"minutes"`
	// Cells are literal cells by column heading (a paper's numbers).
	Cells map[string]string `yaml:"cells"`

	table *Table
}

// A CacheStep builds Creates (relative to {cache}) with Step unless it exists.
type CacheStep struct {
	Creates string `yaml:"creates"`
	Step    string `yaml:"step"`
}

// Expect is a metric's expected mean over the seeds and how far a
// regenerated mean may move from it.
type Expect struct {
	Value float64 `yaml:"value"`
	Tol   float64 `yaml:"tol"`
}

// Table returns the table the spec is a row of.
func (s *Spec) Table() *Table { return s.table }

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// Specs is every table read from a folder, and their rows by name, and the
// views that the docs' markers name.
type Specs struct {
	Tables []*Table
	Views  []*Table
	byName map[string]*Spec
}

// Spec returns the row called name, or nil.
func (ss *Specs) Spec(name string) *Spec { return ss.byName[name] }

// TableNamed returns the view called name, else the table of specs, or nil.
func (ss *Specs) TableNamed(name string) *Table {
	for _, t := range ss.Views {
		if t.Name == name {
			return t
		}
	}
	return ss.specTable(name)
}

// All returns every runnable spec (no reference rows), table by table.
func (ss *Specs) All() []*Spec {
	var out []*Spec
	for _, t := range ss.Tables {
		out = append(out, t.runnable()...)
	}
	return out
}

// runnable returns t's rows but the reference ones.
func (t *Table) runnable() []*Spec {
	var out []*Spec
	for i := range t.Rows {
		if t.Rows[i].Kind != KindReference {
			out = append(out, &t.Rows[i])
		}
	}
	return out
}

// Select returns the specs of tier (and cheaper tiers above unit when
// cumulative is false, only that tier) or, when names are given, the specs
// and tables named.
func (ss *Specs) Select(tier string, names []string) ([]*Spec, error) {
	if len(names) > 0 {
		var out []*Spec
		seen := map[string]bool{}
		for _, n := range names {
			var got []*Spec
			if s := ss.Spec(n); s != nil {
				got = []*Spec{s}
			} else if t := ss.specTable(n); t != nil {
				got = t.runnable()
			} else {
				return nil, fmt.Errorf("%q: no spec or table of that name (regress list names them)", n)
			}
			for _, s := range got {
				if !seen[s.Name] {
					seen[s.Name] = true
					out = append(out, s)
				}
			}
		}
		return out, nil
	}
	if !specTier(tier) {
		return nil, fmt.Errorf("tier %q: want quick, long or full (the unit tier is go test ./...)", tier)
	}
	var out []*Spec
	for _, s := range ss.All() {
		if s.Tier == tier {
			out = append(out, s)
		}
	}
	return out, nil
}

func (ss *Specs) specTable(name string) *Table {
	for _, t := range ss.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// LoadViews reads the views in dir (every *.yaml file) into ss, checking
// that every spec their cells name exists.
func (ss *Specs) LoadViews(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		t, err := readTable(f)
		if err != nil {
			return err
		}
		if len(t.Rows) > 0 || len(t.Lines) == 0 {
			return fmt.Errorf("%s: a view has lines and no rows", f)
		}
		for _, v := range ss.Views {
			if v.Name == t.Name {
				return fmt.Errorf("%s: view %q is also in %s", f, t.Name, v.file)
			}
		}
		for i, line := range t.Lines {
			if len(line) != len(t.Columns) {
				return fmt.Errorf("%s: line %d has %d cells, want %d (one per column)", f, i+1, len(line), len(t.Columns))
			}
			for _, c := range line {
				for _, m := range templateRE.FindAllStringSubmatch(c, -1) {
					if ss.Spec(m[1]) == nil {
						return fmt.Errorf("%s: line %d: %s: no spec %q", f, i+1, m[0], m[1])
					}
					if m[3] != "" && !slices.Contains(formats, m[3]) {
						return fmt.Errorf("%s: line %d: %s: format %q: want one of %s", f, i+1, m[0], m[3], strings.Join(formats, ", "))
					}
				}
			}
		}
		ss.Views = append(ss.Views, t)
	}
	return nil
}

// LoadSpecs reads every *.yaml file in dir.
func LoadSpecs(dir string) (*Specs, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.yaml specs", dir)
	}
	sort.Strings(files)
	ss := &Specs{byName: map[string]*Spec{}}
	for _, f := range files {
		t, err := readTable(f)
		if err != nil {
			return nil, err
		}
		if other := ss.TableNamed(t.Name); other != nil {
			return nil, fmt.Errorf("%s: table %q is also in %s", f, t.Name, other.file)
		}
		for i := range t.Rows {
			s := &t.Rows[i]
			if other, ok := ss.byName[s.Name]; ok {
				return nil, fmt.Errorf("%s: spec %q is also in %s", f, s.Name, other.table.file)
			}
			ss.byName[s.Name] = s
		}
		ss.Tables = append(ss.Tables, t)
	}
	return ss, nil
}

func readTable(file string) (*Table, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	t := &Table{file: file}
	if err := dec.Decode(t); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if !nameRE.MatchString(t.Name) {
		return nil, fmt.Errorf("%s: table name %q: want lower-case letters, digits, '.' and '-'", file, t.Name)
	}
	if len(t.Lines) == 0 && len(t.Columns) == 0 {
		return nil, fmt.Errorf("%s: table %s has no columns", file, t.Name)
	}
	for _, c := range t.Columns {
		if c.Metric != "" && !slices.Contains(formats, c.Format) {
			return nil, fmt.Errorf("%s: column %q: format %q: want one of %s", file, c.Head, c.Format, strings.Join(formats, ", "))
		}
	}
	for i := range t.Rows {
		s := &t.Rows[i]
		s.table = t
		s.fill(&t.Defaults)
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("%s: row %d (%s): %w", file, i+1, s.Name, err)
		}
	}
	return t, nil
}

func (s *Spec) fill(d *Spec) {
	if s.Kind == "" {
		s.Kind = d.Kind
	}
	if s.Tier == "" {
		s.Tier = d.Tier
	}
	if s.Steps == nil {
		s.Steps = d.Steps
	}
	if s.Seeds == nil {
		s.Seeds = d.Seeds
	}
	if s.Minutes == 0 {
		s.Minutes = d.Minutes
	}
	if s.Kind == KindTest && s.Expected == nil {
		// A test's one metric: it passed.
		s.Expected = map[string]Expect{"pass": {Value: 1}}
	}
	s.Env = overlay(d.Env, s.Env)
	s.Cells = overlay(d.Cells, s.Cells)
}

// overlay returns the defaults d with s's entries over them, a new map
// when d has any (d is shared by every row), s itself otherwise.
func overlay(d, s map[string]string) map[string]string {
	if len(d) == 0 {
		return s
	}
	out := maps.Clone(d)
	maps.Copy(out, s)
	return out
}

func (s *Spec) validate() error {
	if !nameRE.MatchString(s.Name) {
		return fmt.Errorf("name %q: want lower-case letters, digits, '.' and '-'", s.Name)
	}
	if s.Label == "" {
		return errors.New("no label")
	}
	switch s.Kind {
	case KindReference:
		if len(s.Steps) > 0 {
			return errors.New("a reference row has no steps")
		}
		return nil
	case KindTrain, KindEval, KindTest:
	default:
		return fmt.Errorf("kind %q: want train, eval, test or reference", s.Kind)
	}
	if !specTier(s.Tier) {
		return fmt.Errorf("tier %q: want quick, long or full", s.Tier)
	}
	if len(s.Steps) == 0 {
		return errors.New("no steps")
	}
	for _, st := range s.allSteps() {
		if _, err := SplitWords(st); err != nil {
			return fmt.Errorf("step %q: %w", st, err)
		}
	}
	if s.Kind == KindTrain && len(s.Seeds) == 0 {
		return errors.New("a train spec needs seeds")
	}
	if s.Kind != KindTrain && len(s.Seeds) > 0 {
		return fmt.Errorf("a %s spec has no seeds", s.Kind)
	}
	if s.Minutes <= 0 {
		return errors.New("no expected minutes")
	}
	for m, e := range s.Expected {
		if e.Tol < 0 {
			return fmt.Errorf("expected %s: negative tolerance %g", m, e.Tol)
		}
	}
	return nil
}

// allSteps returns the spec's steps, then its cache steps.
func (s *Spec) allSteps() []string {
	out := slices.Clone(s.Steps)
	for _, c := range s.Cache {
		out = append(out, c.Step)
	}
	return out
}

// formats are the cell formats that cell knows.
var formats = []string{"mean-std", "pct", "count", "median", "median0", "frac", "num2", "pass"}

// SplitWords splits a command line into words as a shell does for plain
// words and quotes, without expansion: quotes group, a backslash escapes
// the next character outside single quotes.
func SplitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	esc := false
	for _, r := range line {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				esc = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if esc {
		return nil, errors.New("trailing backslash")
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}
