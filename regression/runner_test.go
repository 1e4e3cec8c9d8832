package regression

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "as2 eval --ranker bm25", want: []string{"as2", "eval", "--ranker", "bm25"}},
		{in: `as2 rank --cascade "bm25-stem:10,p=x:1"  'a b'`, want: []string{"as2", "rank", "--cascade", "bm25-stem:10,p=x:1", "a b"}},
		{in: `a\ b "c\"d"`, want: []string{"a b", `c"d`}},
		{in: `a ""`, want: []string{"a", ""}},
		{in: `a "b`, err: true},
		{in: "   ", err: true},
	} {
		got, err := SplitWords(tc.in)
		if (err != nil) != tc.err || (!tc.err && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParseMetrics(t *testing.T) {
	out := "trained cosinet: 307204 parameters, 3 epochs (0 skipped), 20360 pairs in 13.5s (1508 pairs/s, 2 cores, pure Go); saved m.as2\n" +
		`{"dataset":"wikiqa","questions":243,"metrics":{"map":0.6672,"mrr":0.6855}}` + "\n"
	m := map[string]float64{}
	if err := ParseMetrics([]byte(out), m); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"params": 307204, "train_seconds": 13.5, "questions": 243, "map": 0.6672, "mrr": 0.6855}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %v, want %v", m, want)
	}
	if err := ParseMetrics([]byte("{not json\n"), m); err == nil {
		t.Error("bad JSON: no error")
	}
	// as2 data stats --format json: one split's numbers, by their names.
	m = map[string]float64{}
	stats := `{"dataset":"trecqa","splits":[{"split":"test","questions":68,"candidates":1442,"avg_candidates":21.2}],"subset":"all"}`
	if err := ParseMetrics([]byte(stats), m); err != nil {
		t.Fatal(err)
	}
	if want := map[string]float64{"questions": 68, "candidates": 1442, "avg_candidates": 21.2}; !reflect.DeepEqual(m, want) {
		t.Errorf("data stats: got %v, want %v", m, want)
	}
	two := `{"splits":[{"questions":1},{"questions":2}]}`
	if err := ParseMetrics([]byte(two), m); err == nil || !strings.Contains(err.Error(), "one --split") {
		t.Errorf("two splits: error %v, want one naming --split", err)
	}
}

const testSpec = `table: t
title: a test table
columns:
  - {head: model}
  - {head: MAP, metric: map, format: mean-std}
  - {head: params, metric: params, format: count}
  - {head: time, metric: train_seconds, format: median}
  - {head: paper}
defaults:
  kind: train
  tier: long
  seeds: [1, 2, 3]
  minutes: 1
rows:
  - name: t.a
    label: A
    steps: ["sh -c 'echo \"{\\\"metrics\\\":{\\\"map\\\":0.{seed}}}\"; echo \"x: 1234 parameters, 5 pairs in 2.5s\"'"]
    expected:
      map: {value: 0.2, tol: 0.01}
    cells: {paper: "70.1"}
  - name: t.b
    label: B
    steps: ["sh -c 'exit 3'"]
  - name: t.ref
    label: Paper
    kind: reference
    cells: {paper: "71.0", MAP: "71.0"}
`

func writeSpecs(t *testing.T, body string) *Specs {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err := LoadSpecs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func TestRunRecordsEachSeedAndResumes(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ss := writeSpecs(t, testSpec)
	recDir := t.TempDir()
	rs, err := LoadRecords(recDir)
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	r := &Runner{Records: rs, Root: t.TempDir(), Cache: t.TempDir(), Progress: &progress, AS2: "as2"}
	a := ss.Spec("t.a")
	if err := r.Run(context.Background(), []*Spec{a}); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	// Read back from disk: every seed was written.
	rs2, err := LoadRecords(recDir)
	if err != nil {
		t.Fatal(err)
	}
	runs := rs2.Runs("t.a")
	if len(runs) != 3 {
		t.Fatalf("%d records, want 3", len(runs))
	}
	for i, run := range runs {
		if run.Seed != i+1 || run.Metrics["params"] != 1234 || run.Metrics["train_seconds"] != 2.5 || run.Date == "" || len(run.Command) != 1 {
			t.Errorf("record %d: %+v", i, run)
		}
	}
	if got := Check([]*Spec{a}, rs2, true); len(got) != 0 {
		t.Errorf("check: %v", got)
	}
	// A second run finds every seed recorded and runs nothing.
	progress.Reset()
	if err := r.Run(context.Background(), []*Spec{a}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(progress.String(), "$ sh") || strings.Count(progress.String(), "recorded, skipped") != 3 {
		t.Errorf("second run did not resume:\n%s", progress.String())
	}
	// A failing step stops the run with the spec's name.
	if err := r.Run(context.Background(), []*Spec{ss.Spec("t.b")}); err == nil || !strings.Contains(err.Error(), "t.b seed 1") {
		t.Errorf("failing step: %v", err)
	}
	md := ss.Markdown(ss.TableNamed("t"), rs2)
	want := "| model | MAP | params | time | paper |\n|---|---|---|---|---|\n| A | 20.00 ± 10.00 | 1,234 | 2.5 | 70.1 |\n| Paper | 71.0 | | | 71.0 |\n"
	if md != want {
		t.Errorf("markdown:\n%s\nwant\n%s", md, want)
	}
}

func TestCheck(t *testing.T) {
	ss := writeSpecs(t, testSpec)
	rs, err := LoadRecords(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := ss.Spec("t.a")
	if got := Check([]*Spec{a}, rs, false); len(got) != 0 {
		t.Errorf("no records, not required: %v", got)
	}
	if got := Check([]*Spec{a}, rs, true); len(got) != 1 || !got[0].NoRecord {
		t.Errorf("no records, required: %v", got)
	}
	for _, tc := range []struct {
		maps []float64
		ok   bool
	}{
		{[]float64{0.2}, true},
		{[]float64{0.19, 0.21}, true},
		{[]float64{0.21}, true},
		{[]float64{0.2102}, false},
		{[]float64{0.15, 0.2}, false},
	} {
		rs, _ := LoadRecords(t.TempDir())
		for i, m := range tc.maps {
			if err := rs.Add(Record{Spec: "t.a", Seed: i + 1, Metrics: map[string]float64{"map": m}}); err != nil {
				t.Fatal(err)
			}
		}
		if got := Check([]*Spec{a}, rs, true); (len(got) == 0) != tc.ok {
			t.Errorf("maps %v: failures %v, want ok %v", tc.maps, got, tc.ok)
		}
	}
}

func TestFillDocs(t *testing.T) {
	ss := writeSpecs(t, testSpec)
	rs, _ := LoadRecords(t.TempDir())
	for seed, m := range []float64{0.1, 0.2, 0.3} {
		if err := rs.Add(Record{Spec: "t.a", Seed: seed + 1, Metrics: map[string]float64{"map": m}}); err != nil {
			t.Fatal(err)
		}
	}
	table := ss.Markdown(ss.TableNamed("t"), rs)
	filled := "a\n<!-- regress:begin t -->\n" + table + "<!-- regress:end t -->\nb\n"
	for _, tc := range []struct {
		name, doc, want, err string
		changed              int
	}{
		{name: "empty markers", doc: "a\n<!-- regress:begin t -->\n<!-- regress:end t -->\nb\n", want: filled, changed: 1},
		{name: "stale table", doc: "a\n<!-- regress:begin t -->\n| old |\n<!-- regress:end t -->\nb\n", want: filled, changed: 1},
		{name: "up to date", doc: filled, want: filled},
		{name: "no markers", doc: "just text\n", want: "just text\n"},
		{name: "unknown table", doc: "<!-- regress:begin nope -->\n<!-- regress:end nope -->\n", err: `line 1: no table "nope"`},
		{name: "no end", doc: "x\n<!-- regress:begin t -->\n", err: "line 2: regress:begin t with no end"},
		{name: "mismatched", doc: "<!-- regress:begin t -->\n<!-- regress:end u -->\n", err: "closed by"},
		{name: "end first", doc: "<!-- regress:end t -->\n", err: "with no begin"},
	} {
		got, changed, err := FillDocs([]byte(tc.doc), ss, rs)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want || len(changed) != tc.changed {
			t.Errorf("%s: got %q, %v, %v; want %q, %d changed", tc.name, got, changed, err, tc.want, tc.changed)
		}
	}
}

func TestLoadSpecsErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, err string }{
		{"bad name", strings.Replace(testSpec, "name: t.a", "name: T A", 1), `name "T A"`},
		{"bad tier", strings.Replace(testSpec, "tier: long", "tier: unit", 1), `tier "unit"`},
		{"unknown field", testSpec + "bogus: 1\n", "bogus"},
		{"bad format", strings.Replace(testSpec, "format: median", "format: avg", 1), `format "avg"`},
		{"unclosed quote", strings.Replace(testSpec, "exit 3'", "exit 3", 1), "unclosed"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(tc.body), 0o644)
		if _, err := LoadSpecs(dir); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
}

func TestLoadRecordsErrors(t *testing.T) {
	run := func(spec string, seed int) string {
		return fmt.Sprintf(`{"spec": %q, "command": ["x"], "seed": %d, "metrics": {"map": 0.5}, "date": "2026-11-28T00:00:00Z", "minutes": 1}`, spec, seed)
	}
	for _, tc := range []struct {
		name, file, body, err string
	}{
		{"good", "s.json", `{"spec": "s", "runs": [` + run("s", 1) + `,` + run("s", 2) + `]}`, ""},
		{"misnamed file", "t.json", `{"spec": "s", "runs": [` + run("s", 1) + `]}`, "belong in s.json"},
		{"another spec's run", "s.json", `{"spec": "s", "runs": [` + run("s", 1) + `,` + run("t", 2) + `]}`, `run 2 is of spec "t"`},
		{"a seed twice", "s.json", `{"spec": "s", "runs": [` + run("s", 1) + `,` + run("s", 1) + `]}`, "run 2: a second record of seed 1"},
		{"bad JSON", "s.json", `{"spec": "s", "runs": [}`, "s.json: invalid character"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := LoadRecords(dir)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "" && len(rs.Runs("s")) != 2:
			t.Errorf("%s: runs %v, want 2", tc.name, rs.Runs("s"))
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.file)):
			t.Errorf("%s: error %v, want the file and %q", tc.name, err, tc.err)
		}
	}
}

// TestCommittedRecords holds the committed records to their specs: a spec
// whose expected numbers and records disagree fails here, before the docs.
func TestCommittedRecords(t *testing.T) {
	ss, err := LoadSpecs("specs")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := LoadRecords("records")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range rs.Specs() {
		if ss.Spec(name) == nil {
			t.Errorf("records/%s.json: no spec %s", name, name)
		}
	}
	for _, f := range Check(ss.All(), rs, false) {
		t.Error(f)
	}
}

func TestViews(t *testing.T) {
	ss := writeSpecs(t, testSpec)
	rs, _ := LoadRecords(t.TempDir())
	for seed, m := range []float64{0.1, 0.2, 0.3} {
		if err := rs.Add(Record{Spec: "t.a", Seed: seed + 1, Metrics: map[string]float64{"map": m, "params": 1234567}}); err != nil {
			t.Fatal(err)
		}
	}
	view := `table: v
columns: [{head: model}, {head: MAP}, {head: paper}]
lines:
  - ["A", "**{t.a:map}** / {t.a:params:count}", "70.1"]
  - ["B", "{t.a:map:pct}", ""]
`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "v.yaml"), []byte(view), 0o644)
	if err := ss.LoadViews(dir); err != nil {
		t.Fatal(err)
	}
	got := ss.Markdown(ss.TableNamed("v"), rs)
	want := "| model | MAP | paper |\n|---|---|---|\n| A | **20.00 ± 10.00** / 1,234,567 | 70.1 |\n| B | 20.00 | |\n"
	if got != want {
		t.Errorf("view:\n%s\nwant\n%s", got, want)
	}
	for _, tc := range []struct{ body, err string }{
		{strings.Replace(view, "{t.a:map:pct}", "{t.nope:map}", 1), `no spec "t.nope"`},
		{strings.Replace(view, "{t.a:map:pct}", "{t.a:map:avg}", 1), `format "avg"`},
		{strings.Replace(view, `"70.1"]`, `"70.1", "x"]`, 1), "4 cells, want 3"},
	} {
		ss := writeSpecs(t, testSpec)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "v.yaml"), []byte(tc.body), 0o644)
		if err := ss.LoadViews(dir); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("error %v, want %q", err, tc.err)
		}
	}
}

// TestCommittedViews: every view loads, names only specs that exist, and
// the docs' marked tables are the views rendered from the records (what
// `regress docs --check` checks in CI).
func TestCommittedViews(t *testing.T) {
	ss, err := LoadSpecs("specs")
	if err != nil {
		t.Fatal(err)
	}
	if err := ss.LoadViews("tables"); err != nil {
		t.Fatal(err)
	}
	rs, err := LoadRecords("records")
	if err != nil {
		t.Fatal(err)
	}
	files, err := DocFiles("..")
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := UpdateDocs(files, ss, rs, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("%s differs from its records: go run ./regression/cmd/regress docs", d)
	}
}

// TestRunSetsTier: a test spec runs with $AS2_TIER at its tier, so that
// its tests' tier guards let them run without an env of its own.
func TestRunSetsTier(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Setenv("AS2_TIER", "")
	ss := writeSpecs(t, `table: q
columns: [{head: test}, {head: passed, metric: pass, format: pass}]
rows:
  - {name: q.long, label: long, kind: test, tier: long, minutes: 1, steps: ["sh -c 'test \"$AS2_TIER\" = long && echo \"--- PASS: TestX\"'"]}
`)
	rs, _ := LoadRecords(t.TempDir())
	var progress bytes.Buffer
	r := &Runner{Records: rs, Root: t.TempDir(), Cache: t.TempDir(), Progress: &progress}
	if err := r.Run(context.Background(), ss.All()); err != nil || rs.Runs("q.long")[0].Metrics["pass"] != 1 {
		t.Errorf("%v, %v\n%s", err, rs.Runs("q.long"), progress.String())
	}
}

func TestRunTestSpecs(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	body := `table: q
columns: [{head: test}, {head: passed, metric: pass, format: pass}]
defaults: {kind: test, tier: quick, minutes: 1, env: {AS2_TIER: quick}}
rows:
  - {name: q.pass, label: passes, steps: ["sh -c 'test \"$AS2_TIER\" = quick && echo \"--- PASS: TestX\"'"]}
  - {name: q.fail, label: fails, steps: ["sh -c 'echo \"--- FAIL: TestX\"; exit 1'"]}
  - {name: q.skip, label: skips, steps: ["sh -c 'echo \"--- SKIP: TestX\"; echo \"    no shared data\"'"]}
  - {name: q.higher, label: leaves a subtest to the long tier, steps: ["sh -c 'echo \"=== RUN   TestX/b\"; echo \"    x_test.go:9: tier long: an accuracy floor\"; echo \"--- PASS: TestX/a\"; echo \"    --- SKIP: TestX/b (0.00s)\"'"]}
  - {name: q.alltier, label: leaves everything to the long tier, steps: ["sh -c 'echo \"=== RUN   TestX\"; echo \"    x_test.go:9: tier long: an accuracy floor\"; echo \"--- SKIP: TestX (0.00s)\"'"]}
  - {name: q.none, label: matches none, steps: ["sh -c 'echo \"testing: warning: no tests to run\"'"]}
  - {name: q.failfirst, label: fails then passes, steps: ["sh -c 'echo \"--- FAIL: TestX\"; exit 1'", "sh -c 'echo \"--- PASS: TestY\"'"]}
`
	ss := writeSpecs(t, body)
	rs, _ := LoadRecords(t.TempDir())
	var progress bytes.Buffer
	r := &Runner{Records: rs, Root: t.TempDir(), Cache: t.TempDir(), Progress: &progress}
	if NeedsAS2(ss.All()) {
		t.Error("NeedsAS2: true for go test specs")
	}
	if err := r.Run(context.Background(), []*Spec{ss.Spec("q.pass")}); err != nil || rs.Runs("q.pass")[0].Metrics["pass"] != 1 {
		t.Errorf("passing test: %v, %v\n%s", err, rs.Runs("q.pass"), progress.String())
	}
	if err := r.Run(context.Background(), []*Spec{ss.Spec("q.fail")}); err == nil || rs.Runs("q.fail")[0].Metrics["pass"] != 0 {
		t.Errorf("failing test: %v, %v", err, rs.Runs("q.fail"))
	}
	if err := r.Run(context.Background(), []*Spec{ss.Spec("q.failfirst")}); err == nil || rs.Runs("q.failfirst")[0].Metrics["pass"] != 0 {
		t.Errorf("a failing step before a passing one: %v, %v", err, rs.Runs("q.failfirst"))
	}
	if got := Check([]*Spec{ss.Spec("q.fail")}, rs, true); len(got) != 1 {
		t.Errorf("check of a failed test: %v", got)
	}
	if err := r.Run(context.Background(), []*Spec{ss.Spec("q.higher")}); err != nil || len(rs.Runs("q.higher")) != 1 {
		t.Errorf("a subtest of a higher tier: %v, records %v", err, rs.Runs("q.higher"))
	}
	for _, name := range []string{"q.skip", "q.alltier", "q.none"} {
		if err := r.Run(context.Background(), []*Spec{ss.Spec(name)}); err == nil || !strings.Contains(err.Error(), "nothing was checked") || len(rs.Runs(name)) != 0 {
			t.Errorf("%s: %v, records %v", name, err, rs.Runs(name))
		}
	}
}
