package regression

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/version"
)

// A Runner runs specs and records each finished seed at once.
type Runner struct {
	Records *Records
	// Root is the module root: steps run there.
	Root string
	// AS2 is the as2 binary that a step's `as2` names.
	AS2 string
	// Cache is the folder of {cache}: pre-trained models kept between runs.
	Cache string
	// Progress receives a line per step and per finished run.
	Progress io.Writer
	// Machine describes the machine in each record.
	Machine string
	// Rerun runs seeds that already have a record, replacing it.
	Rerun bool
}

// Machine describes this machine for records: host name, OS/architecture,
// cores.
func Machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s %s/%s, %d cores", host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}

// Minutes is the expected time of specs, from their specs.
func Minutes(specs []*Spec) float64 {
	var m float64
	for _, s := range specs {
		m += s.Minutes
	}
	return m
}

// Run runs every seed of specs that has no record yet (all with Rerun). A
// failing test spec is recorded as pass 0 and reported at the end; a failing
// train or eval step stops the run.
func (r *Runner) Run(ctx context.Context, specs []*Spec) error {
	var failed []string
	total := 0
	for _, s := range specs {
		total += len(s.runSeeds())
	}
	n := 0
	for _, s := range specs {
		for _, seed := range s.runSeeds() {
			n++
			if !r.Rerun && r.Records.Has(s.Name, seed) {
				fmt.Fprintf(r.Progress, "[%d/%d] %s%s: recorded, skipped\n", n, total, s.Name, seedText(seed))
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			fmt.Fprintf(r.Progress, "[%d/%d] %s%s: running (expected %.1f min for the spec)\n", n, total, s.Name, seedText(seed), s.Minutes)
			rec, err := r.runOne(ctx, s, seed)
			if err != nil {
				return fmt.Errorf("%s%s: %w", s.Name, seedText(seed), err)
			}
			if err := r.Records.Add(rec); err != nil {
				return err
			}
			fmt.Fprintf(r.Progress, "[%d/%d] %s%s: %s (%.1f min)\n", n, total, s.Name, seedText(seed), metricsText(rec.Metrics), rec.Minutes)
			if s.Kind == KindTest && rec.Metrics["pass"] != 1 {
				failed = append(failed, s.Name)
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// runSeeds returns the seeds a spec runs with: seed 0 alone for a spec
// without seeds.
func (s *Spec) runSeeds() []int {
	if len(s.Seeds) == 0 {
		return []int{0}
	}
	return s.Seeds
}

func seedText(seed int) string {
	if seed == 0 {
		return ""
	}
	return fmt.Sprintf(" seed %d", seed)
}

func metricsText(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %s", k, strconv.FormatFloat(m[k], 'g', 6, 64)))
	}
	return strings.Join(parts, ", ")
}

// expand replaces the placeholders of a step.
func expand(step string, seed int, dir, cache string) string {
	return strings.NewReplacer("{seed}", strconv.Itoa(seed), "{dir}", dir, "{cache}", cache).Replace(step)
}

func (r *Runner) runOne(ctx context.Context, s *Spec, seed int) (Record, error) {
	start := time.Now()
	dir, err := os.MkdirTemp("", "regress-")
	if err != nil {
		return Record{}, err
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(r.Cache, 0o755); err != nil {
		return Record{}, err
	}
	for _, c := range s.Cache {
		p := filepath.Join(r.Cache, expand(c.Creates, seed, dir, r.Cache))
		if exists(p) {
			continue
		}
		fmt.Fprintf(r.Progress, "  building %s\n", p)
		if _, err := r.step(ctx, s, expand(c.Step, seed, dir, r.Cache)); err != nil {
			return Record{}, err
		}
	}
	rec := Record{Spec: s.Name, Seed: seed, Metrics: map[string]float64{}, Machine: r.Machine, Version: version.String()}
	if s.Kind == KindTest {
		rec.Metrics["pass"] = 1 // until a step fails
	}
	for _, st := range s.Steps {
		line := expand(st, seed, dir, r.Cache)
		rec.Command = append(rec.Command, line)
		out, err := r.step(ctx, s, line)
		if s.Kind == KindTest {
			if ctx.Err() != nil {
				return Record{}, ctx.Err()
			}
			// A test that skipped, or a pattern that matched none, checked
			// nothing: no record, say why. A subtest left to a higher tier
			// (shareddata.Tier) is no such skip, when something passed.
			if skips := uncheckedSkips(out); err == nil && skips != "" {
				return Record{}, fmt.Errorf("%s: skipped, nothing was checked:\n%s", line, skips)
			}
			if err == nil && bytes.Contains(out, []byte("no tests to run")) {
				return Record{}, fmt.Errorf("%s: no test matched: nothing was checked", line)
			}
			fmt.Fprint(r.Progress, verdictLines(out))
			if err != nil {
				rec.Metrics["pass"] = 0
				fmt.Fprintf(r.Progress, "%s\n", out)
			}
			continue
		}
		if err != nil {
			return Record{}, err
		}
		if err := ParseMetrics(out, rec.Metrics); err != nil {
			return Record{}, fmt.Errorf("%s: %w", line, err)
		}
	}
	rec.Date = time.Now().UTC().Format(time.RFC3339)
	rec.Minutes = math.Round(time.Since(start).Minutes()*100) / 100 // to the hundredth
	return rec, nil
}

// step runs one command line in Root and returns its standard output; its
// standard error goes to Progress.
func (r *Runner) step(ctx context.Context, s *Spec, line string) ([]byte, error) {
	words, err := SplitWords(line)
	if err != nil {
		return nil, err
	}
	if words[0] == "as2" {
		words[0] = r.AS2
	}
	fmt.Fprintf(r.Progress, "  $ %s\n", line)
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	cmd.Dir = r.Root
	cmd.Env = append(os.Environ(), r.sharedEnv()...)
	if s.Kind == KindTest {
		// The test's own tier guards (shareddata.Tier) let it run.
		cmd.Env = append(cmd.Env, shareddata.TierEnv+"="+s.Tier)
	}
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = r.Progress
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s: %w", line, err)
	}
	return out.Bytes(), nil
}

var (
	paramsRE  = regexp.MustCompile(`: (\d+) parameters`)
	secondsRE = regexp.MustCompile(`pairs in ([0-9.]+)s`)
)

// ParseMetrics reads what a step printed into m: `as2 eval --format json`'s
// metrics and question count, `as2 data stats --format json`'s counts and
// lengths of its one split (under their JSON names), and `as2 train`'s
// parameters and training seconds ("train_seconds").
func ParseMetrics(out []byte, m map[string]float64) error {
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "{") {
			var ev struct {
				Questions *int               `json:"questions"`
				Metrics   map[string]float64 `json:"metrics"`
				Splits    []map[string]any   `json:"splits"`
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				return fmt.Errorf("reading its JSON: %w", err)
			}
			for k, v := range ev.Metrics {
				m[k] = v
			}
			if len(ev.Splits) > 1 {
				return fmt.Errorf("data stats printed %d splits: give the step one --split", len(ev.Splits))
			}
			for _, sp := range ev.Splits {
				for k, v := range sp {
					if f, ok := v.(float64); ok {
						m[k] = f
					}
				}
			}
			if ev.Questions != nil {
				m["questions"] = float64(*ev.Questions)
			}
			continue
		}
		if p := paramsRE.FindStringSubmatch(line); p != nil {
			v, _ := strconv.ParseFloat(p[1], 64)
			m["params"] = v
		}
		if p := secondsRE.FindStringSubmatch(line); p != nil {
			v, _ := strconv.ParseFloat(p[1], 64)
			m["train_seconds"] = v
		}
	}
	return nil
}

// BuildAS2 builds the as2 command of the module at root into out.
func BuildAS2(ctx context.Context, root, out string, progress io.Writer) error {
	fmt.Fprintf(progress, "building %s\n", out)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/as2")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = progress, progress
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/as2: %w", err)
	}
	return nil
}

// uncheckedSkips returns the skips of go test -v output that left
// something unchecked, each with its messages: every skip when nothing
// passed, else those not left to a higher tier ("" when there are none).
// go test -v streams a test's messages under its "=== RUN" line and
// prints the "--- SKIP" verdicts later, so the two are matched by name.
func uncheckedSkips(out []byte) string {
	lines := strings.Split(string(out), "\n")
	logs := map[string][]string{} // test name -> its messages
	var running string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "=== RUN") || strings.HasPrefix(t, "=== CONT") || strings.HasPrefix(t, "=== NAME"):
			if f := strings.Fields(t); len(f) == 3 {
				running = f[2]
			}
		case strings.HasPrefix(t, "---"), t == "PASS", t == "FAIL":
			running = ""
		case running != "":
			logs[running] = append(logs[running], t)
		}
	}
	passed := bytes.Contains(out, []byte("--- PASS"))
	var keep []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		name, ok := strings.CutPrefix(t, "--- SKIP: ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		higher := slices.ContainsFunc(logs[name], func(m string) bool {
			_, ok := shareddata.SkipTier(m)
			return ok
		})
		if passed && higher {
			continue
		}
		keep = append(keep, t)
		keep = append(keep, logs[name]...)
	}
	return strings.Join(keep, "\n")
}

// NeedsAS2 reports whether a step of specs runs as2.
func NeedsAS2(specs []*Spec) bool {
	for _, s := range specs {
		for _, st := range s.allSteps() {
			if w, err := SplitWords(st); err == nil && w[0] == "as2" {
				return true
			}
		}
	}
	return false
}

// sharedEnv points as2 at the project's shared data and models beside the
// checkout (../shared/data, ../shared/models), unless $AS2_DATA and
// $AS2_MODELS say otherwise, as the table scripts before the runner did.
func (r *Runner) sharedEnv() []string {
	var env []string
	for _, v := range []struct{ name, dir string }{{"AS2_DATA", "data"}, {"AS2_MODELS", "models"}} {
		if os.Getenv(v.name) != "" {
			continue
		}
		if p := filepath.Join(r.Root, "..", "shared", v.dir); exists(p) {
			env = append(env, v.name+"="+filepath.Clean(p))
		}
	}
	return env
}

// verdictLines returns the lines of go test -v output that give a test's
// verdict or a package's.
func verdictLines(out []byte) string {
	var b strings.Builder
	for _, l := range strings.Split(string(out), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "--- ") || strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "FAIL") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
