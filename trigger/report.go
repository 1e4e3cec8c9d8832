package trigger

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// Report is answer triggering measured as as2 trigger prints it: a
// calibration (fitted on the first split, or given) and its quality on
// each split. It is here, beside Fit and Measure, so that a Go program
// runs the paper's protocol in one call and reports it the same way.
type Report struct {
	Ranker  string // the ranker's label
	Dataset string
	// Source says where the calibration came from ("fitted on dev").
	Source      string
	Calibration Calibration
	Splits      []SplitResult
}

// SplitResult is a split's answer-triggering quality.
type SplitResult struct {
	Split string
	Result
}

// FitReport fits a calibration on the questions of fit (all of them,
// with or without an answer) and measures it on fit and on test.
func FitReport(ctx context.Context, r rank.Ranker, fitSplit string, fit []dataset.Question, testSplit string, test []dataset.Question) (Report, error) {
	tops, err := Tops(ctx, r, fit)
	if err != nil {
		return Report{}, err
	}
	c, err := Fit(tops)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Source: "fitted on " + fitSplit, Calibration: c, Splits: []SplitResult{{fitSplit, Measure(tops, c)}}}
	if err := rep.measure(ctx, r, testSplit, test); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// MeasureReport measures a given calibration c (from source, such as a
// file) on the questions of test.
func MeasureReport(ctx context.Context, r rank.Ranker, c Calibration, source, testSplit string, test []dataset.Question) (Report, error) {
	rep := Report{Source: source, Calibration: c}
	if err := rep.measure(ctx, r, testSplit, test); err != nil {
		return Report{}, err
	}
	return rep, nil
}

func (rep *Report) measure(ctx context.Context, r rank.Ranker, split string, qs []dataset.Question) error {
	tops, err := Tops(ctx, r, qs)
	if err != nil {
		return err
	}
	rep.Splits = append(rep.Splits, SplitResult{split, Measure(tops, rep.Calibration)})
	return nil
}

// MarshalJSON writes {"ranker", "calibration", each split's name: its
// Result, and "questions" and "metrics" (precision, recall and f1 as
// fractions) of the split measured last}: the shape as2 eval's report
// has, which the regression runner reads.
func (rep Report) MarshalJSON() ([]byte, error) {
	js := map[string]any{"ranker": rep.Ranker, "calibration": rep.Calibration}
	for _, s := range rep.Splits {
		js[s.Split] = s.Result
	}
	if n := len(rep.Splits); n > 0 {
		last := rep.Splits[n-1].Result
		js["questions"] = last.Questions
		js["metrics"] = map[string]float64{"precision": last.Precision, "recall": last.Recall, "f1": last.F1}
	}
	return json.Marshal(js)
}

// WriteText writes the calibration, then a line per split: questions,
// how many have an answer, how many were triggered and correct, and
// precision, recall and F1 in percent.
func (rep Report) WriteText(w io.Writer) error {
	c := rep.Calibration
	if _, err := fmt.Fprintf(w, "%s on %s: P(top correct) = sigmoid(%.4f*score + %.4f), trigger at >= %.4f (%s)\n", rep.Ranker, rep.Dataset, c.A, c.B, c.Threshold, rep.Source); err != nil {
		return err
	}
	for _, s := range rep.Splits {
		if _, err := fmt.Fprintf(w, "%-5s %d questions (%d with an answer): triggered %d, correct %d; precision %.2f recall %.2f F1 %.2f\n",
			s.Split, s.Questions, s.Answerable, s.Triggered, s.Correct, 100*s.Precision, 100*s.Recall, 100*s.F1); err != nil {
			return err
		}
	}
	return nil
}
