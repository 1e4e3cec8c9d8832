package bench

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation/tradeoff"
	"github.com/as2/as2/rank"
)

// CascadeReport is the trade-off of a two-stage cascade as the candidates
// the first stage passes on (k) vary: as2 bench cascade.
type CascadeReport struct {
	Machine   string           `json:"machine"`
	First     string           `json:"first"`
	Last      string           `json:"last"`
	Data      string           `json:"-"` // the table's header only
	Questions int              `json:"questions"`
	Points    []tradeoff.Point `json:"points"`
}

// Cascade measures first passing its best k candidates to last for each
// of ks, and last alone (the first point, k 0), on qs. first and last are
// the stages' names in the report; data describes qs.
func Cascade(ctx context.Context, first, last rank.Ranker, firstName, lastName, data string, ks []int, qs []dataset.Question) (CascadeReport, error) {
	points, err := tradeoff.Sweep(ctx, first, last, firstName, lastName, ks, qs)
	if err != nil {
		return CascadeReport{}, err
	}
	return CascadeReport{Machine: Machine(), First: firstName, Last: lastName, Data: data, Questions: len(qs), Points: points}, nil
}

// Write prints r in format (see Formats). The table gives each k's P@1,
// MAP and latency, and both against the last stage alone.
func (r CascadeReport) Write(w io.Writer, format string) error {
	return writeReport(w, format, r, r.table)
}

// table prints r for people.
func (r CascadeReport) table(w io.Writer) error {
	fmt.Fprintf(w, "%s → %s, %s (%d questions), on %s\n", r.First, r.Last, r.Data, r.Questions, r.Machine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "k\tcandidates to last stage\tP@1\tMAP\tms/question\t% of last-stage P@1\tlatency vs last stage\t")
	var base tradeoff.Point
	if len(r.Points) > 0 {
		base = r.Points[0]
	}
	for _, p := range r.Points {
		k := strconv.Itoa(p.K)
		if p.K == 0 {
			k = "all"
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.2f\t%.2f\t%.1f%%\t%.2fx\t\n", k, p.Candidate, 100*p.P1, 100*p.MAP,
			Millis(p.Latency), 100*p.P1/max(base.P1, 1e-12), float64(p.Latency)/float64(max(base.Latency, 1)))
	}
	return tw.Flush()
}
