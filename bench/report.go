package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Formats are the ways a report prints: an aligned table for people, or
// one JSON object for scripts.
var Formats = []string{"table", "json"}

// CheckFormat refuses a format other than Formats, before a long run
// rather than after it.
func CheckFormat(format string) error {
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("format %q: want table or json", format)
	}
	return nil
}

// writeReport prints report in format: as JSON, or as table prints it.
// Every report's Write is this, so that the formats are checked and
// written alike.
func writeReport(w io.Writer, format string, report any, table func(io.Writer) error) error {
	if err := CheckFormat(format); err != nil {
		return err
	}
	if format == "json" {
		return json.NewEncoder(w).Encode(report)
	}
	return table(w)
}

// Result is a throughput measurement: as2 bench train and infer.
type Result struct {
	Benchmark   string  `json:"benchmark"`
	Machine     string  `json:"machine"`
	Settings    string  `json:"settings"`
	Pairs       int     `json:"pairs"`
	Seconds     float64 `json:"seconds"`
	PairsPerSec float64 `json:"pairs_per_second"`
	P50ms       float64 `json:"p50_ms_per_question,omitempty"`
	P99ms       float64 `json:"p99_ms_per_question,omitempty"`
	Params      int     `json:"params,omitempty"`
}

// Write prints r in format (see Formats).
func (r Result) Write(w io.Writer, format string) error { return writeReport(w, format, r, r.table) }

// table prints r for people.
func (r Result) table(w io.Writer) error {
	fmt.Fprintf(w, "%s on %s\n  settings: %s\n  %d pairs in %.2fs: %.0f pairs/s", r.Benchmark, r.Machine, r.Settings, r.Pairs, r.Seconds, r.PairsPerSec)
	if r.Params > 0 {
		fmt.Fprintf(w, ", %d parameters", r.Params)
	}
	if r.P50ms > 0 {
		fmt.Fprintf(w, "; per question p50 %.2f ms, p99 %.2f ms", r.P50ms, r.P99ms)
	}
	_, err := fmt.Fprintln(w)
	return err
}
