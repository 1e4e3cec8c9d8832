package as2_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/trigger"
)

const berlin = "The Berlin Wall divided the city for decades. The Berlin Wall fell on 9 November 1989. Berlin is now the capital of Germany."

// TestSelect ranks a document's sentences with the built-in model: every
// sentence once, best first, offsets into the document, a calibrated
// answer for a question the document answers and none for one it does
// not.
func TestSelect(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		question string
		answer   bool
		best     string // the best sentence, when answered
	}{
		{"When did the Berlin Wall fall?", true, "The Berlin Wall fell on 9 November 1989."},
		{"How do penguins keep their eggs warm?", false, ""},
	} {
		sel, err := as2.Select(ctx, tc.question, berlin)
		if err != nil {
			t.Fatal(err)
		}
		if len(sel.Sentences) != 3 || !sel.Calibrated || sel.Answer != tc.answer || sel.Probability <= 0 || sel.Probability >= 1 {
			t.Fatalf("%s: %+v", tc.question, sel)
		}
		if tc.answer && sel.Sentences[0].Text != tc.best {
			t.Errorf("%s: best %q, want %q", tc.question, sel.Sentences[0].Text, tc.best)
		}
		seen := map[int]bool{}
		for k, s := range sel.Sentences {
			if berlin[s.Start:s.End] != s.Text || seen[s.Index] || k > 0 && s.Score > sel.Sentences[k-1].Score {
				t.Errorf("%s: sentence %d %+v: not its document span, repeated or out of order", tc.question, k, s)
			}
			seen[s.Index] = true
		}
	}
}

// TestSelectOptions: another ranker is uncalibrated unless given a
// calibration; blank sentences come last; no sentence is an error.
func TestSelectOptions(t *testing.T) {
	ctx := context.Background()
	wo, err := as2.OpenRanker(ctx, "wo")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := as2.Select(ctx, "who wrote hamlet?", "It is a play. Shakespeare wrote Hamlet.", as2.WithRanker(wo))
	if err != nil || sel.Calibrated || sel.Answer || sel.Sentences[0].Index != 1 {
		t.Fatalf("wo: %+v, %v", sel, err)
	}
	// wo scores 2 for the answer: sigmoid(2a+b) >= 0.5 with a=1, b=-1.
	cal := &trigger.Calibration{A: 1, B: -1, Threshold: 0.5}
	sel, err = as2.SelectSentences(ctx, "who wrote hamlet?", []string{"  ", "It is a play.", "Shakespeare wrote Hamlet."}, as2.WithRanker(wo), as2.WithCalibration(cal))
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Calibrated || !sel.Answer || math.Abs(sel.Probability-cal.Prob(2)) > 1e-12 {
		t.Errorf("calibrated wo: %+v", sel)
	}
	last := sel.Sentences[len(sel.Sentences)-1]
	if sel.Sentences[0].Index != 2 || last.Index != 0 || !math.IsInf(last.Score, -1) || last.Start != -1 {
		t.Errorf("sentences: %+v; want the answer first and the blank one last, -Inf, no offsets", sel.Sentences)
	}
	// WithCalibration(nil) turns the built-in model's off.
	if sel, err := as2.Select(ctx, "who wrote hamlet?", "Shakespeare wrote Hamlet.", as2.WithCalibration(nil)); err != nil || sel.Calibrated {
		t.Errorf("no calibration: %+v, %v", sel, err)
	}
	if _, err := as2.Select(ctx, " ", "Shakespeare wrote Hamlet."); !errors.Is(err, as2.ErrNoQuestion) {
		t.Errorf("an empty question: %v", err)
	}
	for _, doc := range []string{"", " \n "} {
		if _, err := as2.Select(ctx, "who?", doc); !errors.Is(err, as2.ErrNoSentences) || !strings.Contains(err.Error(), "no sentences") {
			t.Errorf("document %q: %v", doc, err)
		}
	}
}
