package trigger

import (
	"math"
	"testing"
)

func TestMeasure(t *testing.T) {
	tops := []Top{
		{Score: 3, Correct: true, Answerable: true},
		{Score: 2, Correct: false, Answerable: true},
		{Score: 1, Correct: false, Answerable: false},
		{Score: 0, Correct: false, Answerable: false},
	}
	// Trigger on scores >= 2 (a = 1, b = 0: σ(2) as the threshold).
	r := Measure(tops, Calibration{A: 1, Threshold: 1 / (1 + math.Exp(-2))})
	// Triggered 2, correct 1: precision 1/2; answerable 2: recall 1/2.
	if r.Triggered != 2 || r.Correct != 1 || r.Precision != 0.5 || r.Recall != 0.5 || r.F1 != 0.5 {
		t.Fatalf("%+v", r)
	}
}

func TestFitSeparates(t *testing.T) {
	var tops []Top
	for i := 0; i < 200; i++ {
		s := float64(i%20) - 5
		tops = append(tops, Top{Score: s, Correct: s > 6 || (s > 3 && i%3 == 0), Answerable: s > 0})
	}
	c, err := Fit(tops)
	if err != nil {
		t.Fatal(err)
	}
	if c.A <= 0 || c.Prob(14) < 0.9 || c.Prob(-5) > 0.1 {
		t.Fatalf("calibration %+v: P(14) %.3f, P(-5) %.3f", c, c.Prob(14), c.Prob(-5))
	}
	best := Measure(tops, c).F1
	for _, th := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
		if f := Measure(tops, Calibration{A: c.A, B: c.B, Threshold: th}).F1; f > best+1e-12 {
			t.Fatalf("threshold %.1f gives F1 %.4f > the fitted %.4f", th, f, best)
		}
	}
	if _, err := Fit(nil); err == nil {
		t.Error("empty fit accepted")
	}
	if _, err := Fit([]Top{{Score: 1, Correct: true}}); err == nil {
		t.Error("all-correct fit accepted")
	}
}
