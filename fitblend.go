package as2

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/blend"
)

// BlendOptions configure FitBlend.
type BlendOptions struct {
	blend.Options
	// Folds, when >= 2, chooses Options.L2 by that many folds of
	// cross-validation over the questions (blend.FitCV) instead.
	Folds int
	// Dir is the folder the blend file will be written in: the file names
	// model files relative to it ("": the current folder).
	Dir string
	// Open opens a spec (nil: OpenRanker with its defaults, which are
	// what a blend file's rankers are read back with). Its errors are
	// returned as they are.
	Open func(spec string) (rank.Ranker, error)
}

// Check refuses a negative L2 penalty and fewer than 2 folds, as
// *OptionError for options "l2" and "cv" (as2 tune blend's flags).
func (o BlendOptions) Check() error {
	switch {
	case o.L2 < 0:
		return optionError("%[1]s VALUE: must be >= 0", fmt.Sprint(o.L2), "l2")
	case o.Folds < 0 || o.Folds == 1:
		return optionError("%[1]s VALUE: needs at least 2 folds", fmt.Sprint(o.Folds), "cv")
	}
	return nil
}

// BlendFit is a blend fitted by FitBlend, with what as2 tune blend
// reports of it.
type BlendFit struct {
	// Specs are the rankers blended, as given.
	Specs []string
	Blend *blend.Blend
	// File is the blend file to write (blend.WriteSpec), which
	// OpenRanker reads back to Blend.
	File blend.Spec
	// CV is each penalty's held-out loss, with Folds.
	CV    []blend.CVScore
	Folds int
	// MAP is the MAP on the fitted questions of each ranker, then of the
	// blend.
	MAP       []float64
	Questions int
}

// FitBlend opens the rankers specs name (BlendOptions.Open),
// fits their blend on the labelled questions qs (a dev set: never the
// test set, nor the data a model trained on), and measures each ranker's
// MAP and the blend's on qs, each ranker scoring each question once. It
// is as2 tune blend, for a Go program.
func FitBlend(ctx context.Context, specs []string, qs []dataset.Question, o BlendOptions) (*BlendFit, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	f := &BlendFit{Specs: specs, Folds: o.Folds, Questions: len(qs)}
	open := o.Open
	if open == nil {
		open = func(spec string) (rank.Ranker, error) {
			r, err := OpenRanker(ctx, spec)
			// A missing file's error already starts with its path.
			if err != nil && !strings.HasPrefix(err.Error(), strings.TrimPrefix(spec, FilePrefix)+":") {
				err = fmt.Errorf("%s: %w", spec, err)
			}
			return r, err
		}
	}
	var rs, once []rank.Ranker
	for _, spec := range specs {
		r, err := open(spec)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
		once = append(once, &scoredOnce{Ranker: r, scores: map[string]scoredQuestion{}})
	}
	var fitted *blend.Blend
	var err error
	if o.Folds > 0 {
		fitted, f.CV, err = blend.FitCV(ctx, once, qs, o.Options, o.Folds, nil)
	} else {
		fitted, err = blend.Fit(ctx, once, qs, o.Options)
	}
	if err != nil {
		return nil, err
	}
	// The blend returned ranks any question: it holds the rankers
	// themselves, not their scores of qs.
	f.Blend = &blend.Blend{Rankers: rs, Weights: fitted.Weights, Bias: fitted.Bias}
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	if f.File, err = BlendFileSpec(dir, specs, f.Blend.Weights, f.Blend.Bias); err != nil {
		return nil, err
	}
	maps := []metric.Measure{metric.MustParseMeasure("map")}
	for _, r := range append(once, rank.Ranker(fitted)) {
		rep, err := evaluation.Evaluate(ctx, r, qs, evaluation.Options{Measures: maps})
		if err != nil {
			return nil, err
		}
		f.MAP = append(f.MAP, rep.Result.Mean["map"])
	}
	return f, nil
}

// WriteCV writes the cross-validation's table, a penalty per line with
// its held-out loss; nothing without Folds.
func (f *BlendFit) WriteCV(w io.Writer) error {
	if f.Folds == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "l2\theld-out loss (%d folds)\n", f.Folds)
	for _, s := range f.CV {
		fmt.Fprintf(tw, "%g\t%.5f\n", s.L2, s.Loss)
	}
	return tw.Flush()
}

// WriteTable writes each ranker's weight and MAP, then the blend's bias
// and MAP.
func (f *BlendFit) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ranker\tweight\tdev MAP (%d questions)\n", f.Questions)
	for i, m := range f.MAP {
		name, weight := fmt.Sprintf("blend (bias %.4f)", f.Blend.Bias), ""
		if i < len(f.Specs) {
			name, weight = f.Specs[i], fmt.Sprintf("%.4f", f.Blend.Weights[i])
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4f\n", name, weight, m)
	}
	return tw.Flush()
}

// scoredOnce is a ranker that keeps its scores of each question: FitBlend
// fits the blend on the rankers' scores of qs, then measures each ranker
// and the blend on qs, which would otherwise run every ranker (a neural
// model among them, as a rule) three times over the same questions.
type scoredOnce struct {
	rank.Ranker
	mu     sync.Mutex
	scores map[string]scoredQuestion // by question id
}

// scoredQuestion is a question as it was scored, and its scores: a
// question of the same id with other candidates (evaluation leaves out
// empty ones, which changes a pool's statistics) is scored again.
type scoredQuestion struct {
	text       string
	candidates []dataset.Candidate
	scores     []float64
}

func (r *scoredOnce) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	r.mu.Lock()
	had, ok := r.scores[q.ID]
	r.mu.Unlock()
	if ok && had.text == q.Text && slices.Equal(had.candidates, q.Candidates) {
		return slices.Clone(had.scores), nil
	}
	s, err := r.Ranker.Score(ctx, q)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.scores[q.ID] = scoredQuestion{q.Text, slices.Clone(q.Candidates), slices.Clone(s)}
	r.mu.Unlock()
	return s, nil
}
