package evaluation

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/as2/as2/metric"
)

// Summary is an evaluation as as2 eval reports it, in JSON or as a table:
// what was measured, the mean of each measure and, if asked, each
// question's values, rounded to 4 decimals as trec_eval prints them. It is
// here rather than in the command so that a Go program reports the
// numbers the same way.
type Summary struct {
	Dataset     string             `json:"dataset,omitempty"`
	Split       string             `json:"split,omitempty"`
	Subset      string             `json:"subset,omitempty"`
	Ranker      string             `json:"ranker,omitempty"`
	Qrels       string             `json:"qrels,omitempty"`
	Run         string             `json:"run,omitempty"`
	Questions   int                `json:"questions"`
	Metrics     map[string]float64 `json:"metrics"`
	PerQuestion []QuestionValues   `json:"per_question,omitempty"`
	// Positions: how often each document position is ranked first,
	// against how often a correct answer sits there (Report.Positions).
	Positions *Positions `json:"positions,omitempty"`
	// Note says how the numbers were computed (Describe); the table
	// prints it.
	Note string `json:"-"`
	// measures keeps the order of the table's columns; perQuestion
	// says the table has a row per question.
	measures    []string
	perQuestion bool
}

// QuestionValues is one question's values in a Summary.
type QuestionValues struct {
	ID      string             `json:"id"`
	Metrics map[string]float64 `json:"metrics"`
}

// Summarize fills s's numbers from res: the means and, with perQuestion,
// every question's values.
func (s *Summary) Summarize(res metric.Result, perQuestion bool) {
	s.Questions = len(res.PerQuery)
	s.Metrics = rounded(res.Mean)
	s.measures = s.measures[:0]
	for _, m := range res.Measures {
		s.measures = append(s.measures, m.Name)
	}
	s.PerQuestion, s.perQuestion = nil, perQuestion
	if perQuestion {
		for _, q := range res.PerQuery {
			s.PerQuestion = append(s.PerQuestion, QuestionValues{ID: q.ID, Metrics: rounded(q.Values)})
		}
	}
}

// WriteJSON writes s as one JSON line.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(s)
}

// WriteTable writes s as text: a line saying what was evaluated, the
// note, then a measure per line (or a question per line, with the mean
// last, when s has per-question values) and the positions, if any.
func (s *Summary) WriteTable(w io.Writer) error {
	if s.Dataset != "" {
		fmt.Fprintf(w, "%s %s, %d questions, ranker %s\n", s.Dataset, s.Split, s.Questions, s.Ranker)
	} else {
		fmt.Fprintf(w, "run %s against qrels %s, %d questions\n", s.Run, s.Qrels, s.Questions)
	}
	fmt.Fprintf(w, "(%s)\n", s.Note)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if s.perQuestion {
		row := func(id string, values map[string]float64) {
			fmt.Fprint(tw, id)
			for _, m := range s.measures {
				fmt.Fprintf(tw, "\t%.4f", values[m])
			}
			fmt.Fprintln(tw)
		}
		fmt.Fprint(tw, "question")
		for _, m := range s.measures {
			fmt.Fprintf(tw, "\t%s", m)
		}
		fmt.Fprintln(tw)
		for _, q := range s.PerQuestion {
			row(q.ID, q.Metrics)
		}
		row("all", s.Metrics)
		return tw.Flush()
	}
	for _, m := range s.measures {
		fmt.Fprintf(tw, "%s\t%.4f\n", m, s.Metrics[m])
	}
	if p := s.Positions; p != nil {
		fmt.Fprintln(tw, "\nposition\tranked first\tcorrect there")
		for i := range p.Top {
			pos := strconv.Itoa(i)
			if i == len(p.Top)-1 {
				pos += "+"
			}
			fmt.Fprintf(tw, "%s\t%.2f%%\t%.2f%%\n", pos, 100*p.Top[i], 100*p.Gold[i])
		}
	}
	return tw.Flush()
}

// rounded keeps 4 decimals, as trec_eval prints them.
func rounded(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = math.Round(v*1e4) / 1e4
	}
	return out
}

// RunFileSummary is the summary of a TREC run file evaluated against
// qrels as trec_eval evaluates it (trec.Evaluate), its Note saying which
// questions count: those in both files, or with allQueries every qrels
// question (trec_eval -c).
func RunFileSummary(qrels, run string, allQueries bool) Summary {
	s := Summary{Qrels: qrels, Run: run, Note: "questions in both files; equal scores ordered by document id, descending, as trec_eval does"}
	if allQueries {
		s.Note = "every qrels question (missing from the run: 0); equal scores ordered as trec_eval does"
	}
	return s
}

// ParseMeasures reads a comma-separated list of measures ("map,mrr,p@1"),
// as metric.ParseMeasure reads each; empty items are skipped, and a list
// that names none is an error.
func ParseMeasures(list string) ([]metric.Measure, error) {
	var ms []metric.Measure
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == "" {
			continue
		}
		m, err := metric.ParseMeasure(name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%q names no measure", list)
	}
	return ms, nil
}
