package as2_test

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/cascade"
	"github.com/as2/as2/trigger"
)

// hamlet is a question whose candidates every ranker here can order: the
// answer shares the most words with the question.
var (
	hamletQ     = "who wrote hamlet?"
	hamletCands = []string{"It is a long play.", "Shakespeare wrote hamlet.", "Hamlet is set in Denmark."}
)

// bestOfHamlet ranks hamlet's candidates with r and returns the best one's index.
func bestOfHamlet(t *testing.T, r rank.Ranker) int {
	t.Helper()
	ranked, err := rank.Texts(context.Background(), r, hamletQ, hamletCands)
	if err != nil {
		t.Fatal(err)
	}
	return ranked[0].Index
}

func writeTestFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenRanker opens every kind of spec the CLI accepts and checks that
// each ranks, and that bad specs fail with an error that says why.
func TestOpenRanker(t *testing.T) {
	dir := t.TempDir()
	// A blend names its members relative to its own folder.
	blendFile := writeTestFile(t, filepath.Join(dir, "blends", "b.json"), `{"rankers": ["wo", "bm25", "../r.run"], "weights": [1, 0.5, 0.1]}`)
	// rank.Texts names the question "question" and the candidates by
	// position: the run puts candidate 1 first.
	runFile := writeTestFile(t, filepath.Join(dir, "r.run"), "question Q0 0 2 0.5 t\nquestion Q0 1 1 3 t\nquestion Q0 2 3 0.1 t\n")
	nested := writeTestFile(t, filepath.Join(dir, "nested.json"), `{"rankers": ["blends/b.json"], "weights": [1]}`)
	badMember := writeTestFile(t, filepath.Join(dir, "bad.json"), `{"rankers": ["gone.as2"], "weights": [1]}`)
	notModel := writeTestFile(t, filepath.Join(dir, "bm25"), "not a model")
	missing := filepath.Join(dir, "missing.as2")
	mismatched := writeTestFile(t, filepath.Join(dir, "mismatched.json"), `{"rankers": ["wo"], "weights": [1, 2]}`)
	unknownMember := writeTestFile(t, filepath.Join(dir, "unknown.json"), `{"rankers": ["magic"], "weights": [1]}`)
	extraField := writeTestFile(t, filepath.Join(dir, "extra.json"), `{"rankers": ["wo"], "weights": [1], "x": 1}`)
	for _, tc := range []struct {
		spec string
		// want is the error's text, or "" for a ranker that puts the
		// answer first.
		want     string
		notExist bool
	}{
		{spec: "builtin"},
		{spec: "bm25"},
		{spec: "wo+rr"},
		{spec: "bm25-stem"},
		{spec: "idf-overlap-gated"},
		{spec: blendFile},
		{spec: runFile},
		{spec: "file:" + runFile},
		{spec: "cascade:bm25:2,wo+rr"},
		{spec: "cascade:wo:2,run=" + runFile + ":1"},
		{spec: "magic", want: `unknown ranker "magic"`},
		{spec: "file:" + notModel, want: notModel},
		{spec: missing, want: missing + ": file not found", notExist: true},
		{spec: "cascade:bm25:2,x=" + missing + ":1", want: missing + ": file not found", notExist: true},
		{spec: "cascade:bm25:0", want: "not a positive integer"},
		{spec: "cascade:magic:3", want: `unknown ranker "magic"`},
		{spec: nested, want: "a blend cannot hold a blend"},
		{spec: badMember, want: "gone.as2: file not found", notExist: true},
		{spec: mismatched, want: "1 rankers and 2 weights"},
		{spec: unknownMember, want: `unknown ranker "magic"`},
		{spec: extraField, want: "unknown field"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			r, err := as2.OpenRanker(context.Background(), tc.spec)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, fs.ErrNotExist) != tc.notExist {
					t.Fatalf("error %v, want %q (not exist: %v)", err, tc.want, tc.notExist)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b := bestOfHamlet(t, r); b != 1 {
				t.Errorf("best candidate %d, want 1 (%q)", b, hamletCands[1])
			}
		})
	}
	// A bare name is a ranker even beside a file of that name.
	t.Chdir(dir)
	if _, err := as2.OpenRanker(context.Background(), "bm25"); err != nil {
		t.Errorf("bm25 beside a file called bm25: %v", err)
	}
	if c, err := as2.OpenRanker(context.Background(), "cascade:bm25:2,wo+rr"); err != nil {
		t.Error(err)
	} else if _, ok := c.(*cascade.Cascade); !ok {
		t.Errorf("a cascade spec gave a %T", c)
	}
}

// TestOpenRankerHFFolder reads a folder as a Hugging Face cross-encoder,
// alone and as a cascade stage.
func TestOpenRankerHFFolder(t *testing.T) {
	dir := encodertest.BERTDir(t)
	for _, spec := range []string{dir, "cascade:bm25:2,x=" + dir + ":1"} {
		r, err := as2.OpenRanker(context.Background(), spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if _, err := rank.Texts(context.Background(), r, hamletQ, hamletCands); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "vocab.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := as2.OpenRanker(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "Hugging Face checkpoint") {
		t.Fatalf("a folder without a tokenizer: %v", err)
	}
}

// TestOpenRankerOptions checks that rule options and the collection reach
// the ranker, and that bad BM25 parameters are refused.
func TestOpenRankerOptions(t *testing.T) {
	ctx := context.Background()
	scores := func(r rank.Ranker) []float64 {
		t.Helper()
		q := dataset.Question{Text: hamletQ}
		for i, c := range hamletCands {
			q.Candidates = append(q.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: c, Position: i})
		}
		s, err := r.Score(ctx, &q)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	open := func(spec string, opts ...as2.RankerOption) rank.Ranker {
		t.Helper()
		r, err := as2.OpenRanker(ctx, spec, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	pool := scores(open("bm25"))
	other := rank.DefaultOptions()
	other.K1, other.B = 2, 0.1
	if s := scores(open("bm25", as2.WithRuleOptions(other))); sameScores(s, pool) {
		t.Errorf("k1 2, b 0.1 scored as the defaults: %v", s)
	}
	// A collection with many more sentences holding "hamlet" lowers its
	// IDF against the pool's.
	coll := []dataset.Question{{Text: "x", Candidates: []dataset.Candidate{{Text: "hamlet"}, {Text: "hamlet again"}, {Text: "more hamlet"}, {Text: "wrote"}}}}
	if s := scores(open("bm25", as2.WithCollection(coll))); sameScores(s, pool) {
		t.Errorf("the collection's IDF changed nothing: %v", s)
	}
	if s := scores(open("cascade:bm25:3", as2.WithCollection(coll))); sameScores(s, pool) {
		t.Errorf("a cascade stage ignored the collection: %v", s)
	}
	for _, o := range []rank.Options{{K1: -1, B: 0.5}, {K1: 1, B: 1.5}} {
		if _, err := as2.OpenRanker(ctx, "bm25", as2.WithRuleOptions(o)); err == nil || !strings.Contains(err.Error(), "BM25") {
			t.Errorf("%+v: %v", o, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := as2.OpenRanker(cancelled, "bm25"); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}

func sameScores(a, b []float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return len(a) == len(b)
}

// TestRankerCalibration: the built-in model comes with its calibration,
// other rankers with none.
func TestRankerCalibration(t *testing.T) {
	for spec, want := range map[string]bool{"builtin": true, "bm25": false, "cascade:bm25:2,builtin": false} {
		r, err := as2.OpenRanker(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := as2.CalibrationOf(r)
		if ok != want || ok && (c.Threshold <= 0 || c.Threshold >= 1 || c == (trigger.Calibration{})) {
			t.Errorf("%s: calibration %+v, %v; want one: %v", spec, c, ok, want)
		}
	}
	if _, ok := as2.CalibrationOf(nil); ok {
		t.Error("a nil ranker has a calibration")
	}
}

// TestRankerSpecFile checks which specs name files.
func TestRankerSpecFile(t *testing.T) {
	for spec, want := range map[string]string{
		"bm25": "", "wo+rr": "", "builtin": "", "cascade:bm25:10,m.as2": "",
		"file:bm25": "bm25", "./bm25": "./bm25", "m.as2": "m.as2", "models/m": "models/m", "b.json": "b.json",
	} {
		if got := as2.SpecFile(spec); got != want {
			t.Errorf("SpecFile(%q) = %q, want %q", spec, got, want)
		}
	}
}

// TestRankerBlendFileSpec flattens a blend file among the rankers of a
// blend to be written elsewhere: the inner blend's rankers with their
// weights multiplied in, files named from the new blend's folder, a
// ranker named twice merged, the inner bias carried.
func TestRankerBlendFileSpec(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeTestFile(t, filepath.Join("inner", "pair.json"), `{"rankers": ["wo", "bm25"], "weights": [2, 0.5], "bias": 1}`)
	spec, err := as2.BlendFileSpec("out", []string{filepath.Join("inner", "pair.json"), "bm25", filepath.Join("sub", "m.as2")}, []float64{3, 1, 2}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"wo", "bm25", filepath.Join("..", "sub", "m.as2")}
	if strings.Join(spec.Rankers, ",") != strings.Join(want, ",") || !sameScores(spec.Weights, []float64{6, 2.5, 2}) || spec.Bias != 3.5 {
		t.Errorf("spec %+v, want rankers %v, weights [6 2.5 2], bias 3.5", spec, want)
	}
	if _, err := as2.BlendFileSpec("out", []string{"missing.json"}, []float64{1}, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing blend: %v", err)
	}
	if _, err := as2.BlendFileSpec("out", []string{"wo"}, nil, 0); err == nil {
		t.Error("1 ranker and no weight: no error")
	}
}

func TestRankerChoice(t *testing.T) {
	def := rank.DefaultOptions()
	for _, tc := range []struct {
		name    string
		c       as2.RankerChoice
		err     string // "--"-prefixed message; "" for none
		options []string
		spec    string
		label   string
	}{
		{"name", as2.RankerChoice{Name: "bm25", Rules: def}, "", nil, "bm25", "bm25"},
		{"defaulted name under a model", as2.RankerChoice{Name: "builtin", Model: "m.as2", Rules: def}, "", nil, "file:m.as2", "m.as2"},
		{"cascade", as2.RankerChoice{Name: "wo", Cascade: "bm25:2,rr", Rules: def, IDF: "collection"}, "", nil, "cascade:bm25:2,rr", "cascade bm25:2,rr"},
		{"model and cascade", as2.RankerChoice{Model: "m.as2", Cascade: "bm25:2,rr", Rules: def}, "--model and --cascade: give one", []string{"model", "cascade"}, "", ""},
		{"chosen name under a model", as2.RankerChoice{Name: "bm25", NameSet: true, Model: "m.as2", Rules: def}, "--ranker bm25 does not go with --model, which is the ranker: give one", []string{"ranker", "model"}, "", ""},
		{"chosen name under a cascade", as2.RankerChoice{Name: "50%", NameSet: true, Cascade: "bm25:2,rr", Rules: def}, "--ranker 50% does not go with --cascade, which is the ranker: give one", []string{"ranker", "cascade"}, "", ""},
		{"k1", as2.RankerChoice{Name: "bm25", Rules: rank.Options{K1: -1, B: 0.5}}, "--bm25-k1 -1: must be >= 0", []string{"bm25-k1"}, "", ""},
		{"b", as2.RankerChoice{Name: "bm25", Rules: rank.Options{K1: 1, B: 2}}, "--bm25-b 2: must be in [0, 1]", []string{"bm25-b"}, "", ""},
		{"idf", as2.RankerChoice{Name: "bm25", Rules: def, IDF: "web"}, `--idf "web": want pool or collection`, []string{"idf"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Check()
			var oe *as2.OptionError
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tc.err != "" && !errors.As(err, &oe):
				t.Fatalf("Check = %v, want an *OptionError", err)
			case tc.err != "":
				if got := oe.WithPrefix("--"); got != tc.err {
					t.Errorf("WithPrefix = %q, want %q", got, tc.err)
				}
				if plain := strings.ReplaceAll(tc.err, "--", ""); err.Error() != plain {
					t.Errorf("Error = %q, want %q", err.Error(), plain)
				}
				if strings.Join(oe.Options, ",") != strings.Join(tc.options, ",") {
					t.Errorf("Options = %v, want %v", oe.Options, tc.options)
				}
				return
			}
			if spec, _ := tc.c.Spec(); spec != tc.spec || tc.c.Label() != tc.label {
				t.Errorf("Spec, Label = %q, %q; want %q, %q", spec, tc.c.Label(), tc.spec, tc.label)
			}
		})
	}
}

func TestRankerChoiceOpens(t *testing.T) {
	qs := []dataset.Question{{ID: "1", Text: hamletQ}}
	for i, c := range hamletCands {
		qs[0].Candidates = append(qs[0].Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: c, Position: i})
	}
	for _, c := range []as2.RankerChoice{
		{Name: "bm25", Rules: rank.DefaultOptions(), IDF: "collection"},
		{Name: "wo", Cascade: "bm25:2,wo", Rules: rank.DefaultOptions()},
	} {
		spec, _ := c.Spec()
		r, err := as2.OpenRanker(context.Background(), spec, c.Options(qs)...)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if best := bestOfHamlet(t, r); best != 1 {
			t.Errorf("%s ranks candidate %d first, want 1", c.Label(), best)
		}
	}
}

func TestChooseCalibration(t *testing.T) {
	wo, err := as2.OpenRanker(context.Background(), "wo")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := as2.ChooseCalibration(wo, ""); c != nil || err != nil {
		t.Errorf("a rule ranker, no spec: %v, %v; want none", c, err)
	}
	if _, err := as2.ChooseCalibration(wo, as2.Builtin); err == nil {
		t.Error("builtin calibration for a rule ranker: no error")
	}
	if _, err := as2.ChooseCalibration(wo, filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
