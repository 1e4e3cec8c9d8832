// Package trigger decides whether a question has an answer among its
// candidates at all (answer triggering, Yang et al. 2015, WikiQA: about 60%
// of its questions have no correct sentence). A ranker's best score is
// calibrated into a probability with Platt scaling fitted on a dev set,
// P(top candidate correct) = σ(a·s + b), and a threshold on it, also chosen
// on dev to maximise F1, lets as2 say "no answer".
//
// The measures are the WikiQA paper's (section 5.2): a question counts as
// answered when the system triggers, and answered correctly when its top
// candidate is correct; precision = correct / answered, recall = correct /
// questions that have a correct candidate, F1 their harmonic mean.
// FitReport runs that protocol (fit on dev, measure on test) in one call,
// and Report prints it as as2 trigger does.
package trigger

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// Calibration turns a ranker's top score into a probability and a decision.
type Calibration struct {
	A         float64 `json:"a"`
	B         float64 `json:"b"`
	Threshold float64 `json:"threshold"` // trigger when Prob(top) >= Threshold
}

// Prob is the calibrated probability that a top candidate scoring s is correct.
func (c Calibration) Prob(s float64) float64 { return 1 / (1 + math.Exp(-(c.A*s + c.B))) }

// Answer reports whether to trigger on a top score s.
func (c Calibration) Answer(s float64) bool { return c.Prob(s) >= c.Threshold }

// Top is a question's best candidate: its score and whether it is correct.
type Top struct {
	Score      float64
	Correct    bool // the top candidate is labelled positive
	Answerable bool // some candidate is labelled positive
}

// Tops ranks every question of qs with r and returns its best candidate.
func Tops(ctx context.Context, r rank.Ranker, qs []dataset.Question) ([]Top, error) {
	out := make([]Top, 0, len(qs))
	for i := range qs {
		q := &qs[i]
		ranked, err := rank.Rank(ctx, r, q)
		if err != nil {
			return nil, fmt.Errorf("question %q: %w", q.ID, err)
		}
		if len(ranked) == 0 {
			continue
		}
		out = append(out, Top{Score: ranked[0].Score, Correct: q.Candidates[ranked[0].Index].Label == dataset.Positive, Answerable: q.Positives() > 0})
	}
	return out, nil
}

// Fit fits Platt scaling to tops (Newton's method on the logistic loss of
// "top is correct") and picks the threshold with the best F1 on them.
func Fit(tops []Top) (Calibration, error) {
	if len(tops) == 0 {
		return Calibration{}, errors.New("trigger: no questions to fit on")
	}
	pos := 0
	for _, t := range tops {
		if t.Correct {
			pos++
		}
	}
	if pos == 0 || pos == len(tops) {
		return Calibration{}, errors.New("trigger: the dev questions' top candidates are all correct or all wrong: nothing to calibrate")
	}
	// Standardise scores for a well-conditioned fit, then map back.
	var mean, sd float64
	for _, t := range tops {
		mean += t.Score
	}
	mean /= float64(len(tops))
	for _, t := range tops {
		sd += (t.Score - mean) * (t.Score - mean)
	}
	sd = math.Sqrt(sd / float64(len(tops)))
	if sd == 0 {
		sd = 1
	}
	a, b := 0.0, 0.0
	for iter := 0; iter < 100; iter++ {
		var ga, gb, haa, hab, hbb float64
		for _, t := range tops {
			x := (t.Score - mean) / sd
			p := 1 / (1 + math.Exp(-(a*x + b)))
			y := 0.0
			if t.Correct {
				y = 1
			}
			w := p * (1 - p)
			ga += (p - y) * x
			gb += p - y
			haa += w*x*x + 1e-9
			hab += w * x
			hbb += w + 1e-9
		}
		det := haa*hbb - hab*hab
		if det <= 0 {
			break
		}
		da, db := (hbb*ga-hab*gb)/det, (haa*gb-hab*ga)/det
		a, b = a-da, b-db
		if math.Abs(da)+math.Abs(db) < 1e-10 {
			break
		}
	}
	c := Calibration{A: a / sd, B: b - a*mean/sd}
	// Threshold: try every question's probability as the cut.
	probs := make([]float64, len(tops))
	for i, t := range tops {
		probs[i] = c.Prob(t.Score)
	}
	sort.Float64s(probs)
	best := -1.0
	for _, th := range probs {
		if f := Measure(tops, Calibration{A: c.A, B: c.B, Threshold: th}).F1; f > best {
			best, c.Threshold = f, th
		}
	}
	return c, nil
}

// Result is answer-triggering quality.
type Result struct {
	Questions, Answerable, Triggered, Correct int
	Precision, Recall, F1                     float64
}

// Measure computes precision, recall and F1 of c's decisions on tops.
func Measure(tops []Top, c Calibration) Result {
	var r Result
	for _, t := range tops {
		r.Questions++
		if t.Answerable {
			r.Answerable++
		}
		if c.Answer(t.Score) {
			r.Triggered++
			if t.Correct {
				r.Correct++
			}
		}
	}
	if r.Triggered > 0 {
		r.Precision = float64(r.Correct) / float64(r.Triggered)
	}
	if r.Answerable > 0 {
		r.Recall = float64(r.Correct) / float64(r.Answerable)
	}
	if r.Precision+r.Recall > 0 {
		r.F1 = 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
	}
	return r
}
