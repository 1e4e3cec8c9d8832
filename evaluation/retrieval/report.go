package retrieval

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/as2/as2/dataset/reqa"
)

// The formats of Report.Write.
const (
	FormatTable = "table" // for people: a header, a timing line, and the measures in percent
	FormatJSON  = "json"  // one object, the measures as fractions
)

// Report is one retrieval evaluation as as2 index eval prints it.
type Report struct {
	File      string     // the pool's file
	Pool      *reqa.Pool // the pool evaluated on
	Retriever string     // what retrieved, for people
	Result    Result
	// Build is the time to open or build the index, Search the time to
	// retrieve for every question.
	Build, Search time.Duration
}

// metrics is the JSON report's "metrics" object: the measures by the
// names as2 eval's report and the regression records use (mrr, r@k,
// eq15_r@k, ms_per_question), so that one reader serves both.
func (r Report) metrics() map[string]float64 {
	res := r.Result
	m := map[string]float64{"mrr": res.MRR, "ms_per_question": r.msPerQuestion()}
	for i, n := range res.Cutoffs {
		m[fmt.Sprintf("r@%d", n)] = res.Success[i]
		m[fmt.Sprintf("eq15_r@%d", n)] = res.RecallEq15[i]
	}
	return m
}

// msPerQuestion is the search time per question in milliseconds.
func (r Report) msPerQuestion() float64 {
	return r.Search.Seconds() * 1000 / float64(max(r.Result.Questions, 1))
}

// Write writes r in format (FormatTable or FormatJSON) to w.
func (r Report) Write(w io.Writer, format string) error {
	res := r.Result
	switch format {
	case FormatJSON:
		return json.NewEncoder(w).Encode(map[string]any{
			"pool": r.File, "split": r.Pool.Split, "answers": len(r.Pool.Answers), "questions": res.Questions,
			"retriever": r.Retriever, "mrr": res.MRR, "cutoffs": res.Cutoffs, "r_at": res.Success, "recall_eq15_at": res.RecallEq15,
			"build_seconds": r.Build.Seconds(), "search_seconds": r.Search.Seconds(),
			"metrics": r.metrics(),
		})
	case FormatTable:
	default:
		return fmt.Errorf("format %q: want %s or %s", format, FormatTable, FormatJSON)
	}
	fmt.Fprintf(w, "%s (%s): %d answers, %d questions\n", r.File, r.Pool.Split, len(r.Pool.Answers), res.Questions)
	fmt.Fprintf(w, "retriever: %s; built in %.1fs, %.2f ms per question\n", r.Retriever, r.Build.Seconds(),
		r.msPerQuestion())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head, row := "MRR\t", fmt.Sprintf("%.2f\t", 100*res.MRR)
	for i, n := range res.Cutoffs {
		head += fmt.Sprintf("R@%d\t", n)
		row += fmt.Sprintf("%.2f\t", 100*res.Success[i])
	}
	for i, n := range res.Cutoffs {
		head += fmt.Sprintf("Eq.15 R@%d\t", n)
		row += fmt.Sprintf("%.2f\t", 100*res.RecallEq15[i])
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, row)
	return tw.Flush()
}
