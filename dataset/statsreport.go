package dataset

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// SplitStats are the Stats of one split of a dataset.
type SplitStats struct {
	Split string `json:"split"`
	Stats
}

// WriteStats writes the Stats of dataset name's splits, with the subset
// of questions they were computed over, as format "table" (aligned
// columns, lengths in tokens) or "json" (one object).
func WriteStats(w io.Writer, name, subset, format string, rows []SplitStats) error {
	switch format {
	case "json":
		return json.NewEncoder(w).Encode(map[string]any{"dataset": name, "subset": subset, "splits": rows})
	case "table":
	default:
		return fmt.Errorf("format %q: want table or json", format)
	}
	fmt.Fprintf(w, "%s, subset %s (lengths in as2 tokens)\n", name, subset)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "split\tquestions\tcandidates\tpositives\t% answered\tavg cands\tavg Q len\tavg C len\tP@1 random\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", r.Split, r.Questions, r.Candidates, r.Positives,
			r.AnsweredPercent, r.AvgCandidates, r.AvgQuestionLen, r.AvgCandidateLen, 100*r.RandomP1)
	}
	return tw.Flush()
}
