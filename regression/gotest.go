package regression

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/as2/as2/internal/shareddata"
)

// TestSummary counts the verdicts of a `go test -json` run, and the skips
// by their reason: the tests of a tier above unit (shareddata.Tier), and
// those whose shared data is missing (shareddata.Dir and File).
type TestSummary struct {
	Passed, Failed, Skipped int
	// SkippedTier counts the tier skips by tier; SkippedData the data skips.
	SkippedTier map[string]int
	SkippedData int
	// Failures lists the failed tests as "package Test".
	Failures []string
	// FailedPackages lists the packages that failed (a build error, a
	// panic outside a test, or a failed test).
	FailedPackages []string
}

type testEvent struct {
	Action, Package, Test, Output string
}

// SummarizeTests reads the events of `go test -json` from r. It copies to
// w the output of every failed test and package, then a line per package,
// as `go test` prints them.
func SummarizeTests(r io.Reader, w io.Writer) (*TestSummary, error) {
	s := &TestSummary{SkippedTier: map[string]int{}}
	out := map[string]*strings.Builder{} // by "package test"
	skipTier := map[string]string{}      // by "package test": the tier it was left to
	skipData := map[string]bool{}        // by "package test": it found no shared data
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		var e testEvent
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// go test prints build errors as plain text.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			io.WriteString(w, e.Output)
		case "output":
			b := out[key]
			if b == nil {
				b = &strings.Builder{}
				out[key] = b
			}
			b.WriteString(e.Output)
			if e.Test != "" {
				if tier, ok := shareddata.SkipTier(e.Output); ok {
					skipTier[key] = tier
				} else if strings.Contains(e.Output, shareddata.SkipDataPrefix) {
					skipData[key] = true
				}
			}
		case "pass", "fail", "skip":
			if e.Test == "" {
				if e.Action == "fail" {
					s.FailedPackages = append(s.FailedPackages, e.Package)
					if b := out[key]; b != nil {
						io.WriteString(w, b.String())
					}
				} else if b := out[key]; b != nil {
					// The package's "ok" line.
					for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
						if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?") {
							fmt.Fprintln(w, l)
						}
					}
				}
				continue
			}
			// Subtests are counted with their parents' verdicts too; count
			// only top-level tests.
			if strings.Contains(e.Test, "/") {
				continue
			}
			switch e.Action {
			case "pass":
				s.Passed++
			case "fail":
				s.Failed++
				s.Failures = append(s.Failures, key)
				if b := out[key]; b != nil {
					io.WriteString(w, b.String())
				}
			case "skip":
				s.Skipped++
				if tier, ok := skipTier[key]; ok {
					s.SkippedTier[tier]++
				} else if skipData[key] {
					s.SkippedData++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Strings(s.FailedPackages)
	return s, nil
}

// Report is the summary's closing lines: counts, and what was not checked
// and why, in plain words.
func (s *TestSummary) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tests passed, %d failed, %d skipped\n", s.Passed, s.Failed, s.Skipped)
	if s.SkippedData > 0 {
		fmt.Fprintf(&b, "%d tests skipped because the shared data is missing (../shared or $AS2_DATA, $AS2_SHARED): their accuracy and readers of the real files were NOT checked\n", s.SkippedData)
	}
	tiers := make([]string, 0, len(s.SkippedTier))
	for t := range s.SkippedTier {
		tiers = append(tiers, t)
	}
	sort.Strings(tiers)
	for _, t := range tiers {
		fmt.Fprintf(&b, "%d tests of the %s tier skipped (accuracy floors, long checks): go run ./regression/cmd/regress run --tier %s\n", s.SkippedTier[t], t, t)
	}
	if len(s.FailedPackages) > 0 {
		fmt.Fprintf(&b, "FAIL: %s\n", strings.Join(s.FailedPackages, ", "))
	}
	return b.String()
}
