package as2

import (
	"context"
	"fmt"

	"github.com/as2/as2/rank"
	"github.com/as2/as2/trigger"
)

// Selection is a document's sentences ranked for a question, best first,
// with the calibrated probability that the best one answers and whether
// it does (Answer false: the document has no answer). It is what the
// service's POST /v1/select returns.
type Selection = trigger.Selection

// Selected is one sentence of a Selection: its position in the document,
// text, the ranker's score and byte offsets.
type Selected = trigger.Selected

// ErrNoSentences is returned by Select for a document without a sentence,
// ErrNoQuestion for an empty question.
var (
	ErrNoSentences = trigger.ErrNoSentences
	ErrNoQuestion  = trigger.ErrNoQuestion
)

// SelectOption configures Select and SelectSentences.
type SelectOption func(*selectOptions)

type selectOptions struct {
	ranker rank.Ranker
	cal    *trigger.Calibration
	// calSet: WithCalibration was given (nil then means none).
	calSet bool
}

// WithRanker ranks with r (from OpenRanker) instead of the built-in
// model. Its calibration is CalibrationOf(r) unless WithCalibration
// gives one.
func WithRanker(r rank.Ranker) SelectOption {
	return func(o *selectOptions) { o.ranker = r }
}

// WithCalibration turns the ranker's best score into a probability and an
// answer with c (from as2 trigger; trigger.LoadCalibration reads it); nil
// leaves the scores uncalibrated.
func WithCalibration(c *trigger.Calibration) SelectOption {
	return func(o *selectOptions) { o.cal, o.calSet = c, true }
}

// Select splits document into sentences and ranks them for question with
// the built-in model (or WithRanker's), calibrated: the best sentence, its
// probability of answering, and whether it answers.
func Select(ctx context.Context, question, document string, opts ...SelectOption) (Selection, error) {
	r, cal, err := selectRanker(opts)
	if err != nil {
		return Selection{}, err
	}
	sel, err := trigger.SelectDocument(ctx, r, cal, question, document)
	if err != nil {
		return Selection{}, fmt.Errorf("as2.Select: %w", err)
	}
	return sel, nil
}

// SelectSentences is Select for a document already split into sentences,
// given in document order. Empty ones are never shown to the ranker: they
// come last with score -Inf. Offsets are -1.
func SelectSentences(ctx context.Context, question string, sentences []string, opts ...SelectOption) (Selection, error) {
	r, cal, err := selectRanker(opts)
	if err != nil {
		return Selection{}, err
	}
	sel, err := trigger.SelectSentences(ctx, r, cal, question, sentences)
	if err != nil {
		return Selection{}, fmt.Errorf("as2.SelectSentences: %w", err)
	}
	return sel, nil
}

func selectRanker(opts []SelectOption) (rank.Ranker, *trigger.Calibration, error) {
	var o selectOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.ranker == nil {
		// The built-in model runs int8 by default, as OpenRanker's does.
		r, err := builtinRanker(true)
		if err != nil {
			return nil, nil, err
		}
		o.ranker = r
	}
	if !o.calSet {
		if c, ok := CalibrationOf(o.ranker); ok {
			o.cal = &c
		}
	}
	return o.ranker, o.cal, nil
}
