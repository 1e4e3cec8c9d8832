// Package tradeoff measures the accuracy-latency trade-off of two-stage
// cascades of rankers (the sequential rerankers paper's Figure 2): Sweep
// the number k that the first stage passes on, Plot the curve, and Choose
// the k to deploy for a latency budget or an accuracy target. It sits above
// package evaluation, which measures each point, and rank/cascade, which
// builds each cascade.
package tradeoff

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/cascade"
)

// Point is one cascade of a sweep: the first stage passing K candidates to
// the last (K = 0: the last stage alone, on every candidate).
type Point struct {
	K         int
	P1, MAP   float64
	Latency   time.Duration // mean wall time per question, both stages
	Candidate float64       // mean candidates the last stage scored per question
}

// Sweep measures, for each k of ks, the two-stage cascade first:k → last on
// qs, and the last stage alone (K = 0, first in the result): accuracy, and
// the mean latency per question, questions scored one at a time.
func Sweep(ctx context.Context, first, last rank.Ranker, firstName, lastName string, ks []int, qs []dataset.Question) ([]Point, error) {
	ms := []metric.Measure{metric.MustParseMeasure("p@1"), metric.MustParseMeasure("map")}
	var out []Point
	for _, k := range append([]int{0}, ks...) {
		var r rank.Ranker = last
		var c *cascade.Cascade
		if k > 0 {
			var err error
			if c, err = cascade.New(&cascade.Stage{Name: firstName, Ranker: first, K: k}, &cascade.Stage{Name: lastName, Ranker: last}); err != nil {
				return nil, err
			}
			r = c
		}
		start := time.Now()
		rep, err := evaluation.Evaluate(ctx, r, qs, evaluation.Options{Measures: ms})
		if err != nil {
			return nil, fmt.Errorf("k=%d: %w", k, err)
		}
		p := Point{K: k, P1: rep.Result.Mean["p@1"], MAP: rep.Result.Mean["map"], Latency: time.Since(start) / time.Duration(max(len(qs), 1))}
		if c != nil {
			st := c.Stats()
			p.Candidate = float64(st[1].Pairs) / float64(max(st[1].Calls, 1))
		} else {
			for i := range qs {
				p.Candidate += float64(len(qs[i].Candidates))
			}
			p.Candidate /= float64(max(len(qs), 1))
		}
		out = append(out, p)
	}
	return out, nil
}

// Plot draws P@1 against latency per question, one point per k, like
// Figure 2 of the sequential reranking paper, and saves it to each path
// (the extension picks the format: .png, .svg, .pdf).
func Plot(points []Point, title string, paths ...string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "mean latency per question (ms)"
	p.Y.Label.Text = "P@1 (%)"
	xys := make(plotter.XYs, len(points))
	labels := make([]string, len(points))
	for i, pt := range points {
		xys[i].X = float64(pt.Latency.Microseconds()) / 1000
		xys[i].Y = 100 * pt.P1
		labels[i] = "k=" + strconv.Itoa(pt.K)
		if pt.K == 0 {
			labels[i] = "last stage alone"
		}
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	p.Add(sc, lb, plotter.NewGrid())
	for _, path := range paths {
		if err := save(p, path); err != nil {
			return fmt.Errorf("saving %s: %w", filepath.Base(path), err)
		}
	}
	return nil
}

// save writes the plot atomically, in the format of the path's extension.
func save(p *plot.Plot, path string) error {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, ext)
	if err != nil {
		return err
	}
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644))
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if _, err := wt.WriteTo(f); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}

// Choose picks the point of a sweep to deploy: with a latency budget (> 0),
// the most accurate point (P@1, then MAP) whose latency fits it; otherwise
// the fastest point keeping at least target (a fraction, e.g. 0.995) of the
// last stage's own P@1, points[0].
func Choose(points []Point, budget time.Duration, target float64) (Point, error) {
	if len(points) == 0 {
		return Point{}, fmt.Errorf("cascade: no points to choose from")
	}
	best, found := Point{}, false
	for _, p := range points {
		if budget > 0 {
			if p.Latency <= budget && (!found || p.P1 > best.P1 || p.P1 == best.P1 && p.MAP > best.MAP) {
				best, found = p, true
			}
			continue
		}
		if p.P1 >= target*points[0].P1 && (!found || p.Latency < best.Latency) {
			best, found = p, true
		}
	}
	if !found {
		if budget > 0 {
			return Point{}, fmt.Errorf("cascade: no k meets the latency budget of %s", budget)
		}
		return Point{}, fmt.Errorf("cascade: no k keeps %.1f%% of the last stage's P@1", 100*target)
	}
	return best, nil
}

// Tuning is a k chosen on dev and measured on test (Tune).
type Tuning struct {
	First, Last string
	// DevQuestions and TestQuestions count the questions of each set.
	DevQuestions, TestQuestions int
	// Chosen is the dev point chosen (K = 0: the last stage alone).
	Chosen Point
	// Alone is the last stage alone on test, At the chosen cascade there.
	Alone, At Point
}

// Tune sweeps ks on dev, chooses the k to deploy (Choose, with budget and
// target), and measures that cascade and the last stage alone on test:
// the k is never chosen on the data it is reported on.
func Tune(ctx context.Context, first, last rank.Ranker, firstName, lastName string, ks []int, dev, test []dataset.Question, budget time.Duration, target float64) (Tuning, error) {
	if budget < 0 || target <= 0 || target > 1 {
		return Tuning{}, fmt.Errorf("budget %s and target %v: want a budget >= 0 and a target in (0, 1]", budget, target)
	}
	devPoints, err := Sweep(ctx, first, last, firstName, lastName, ks, dev)
	if err != nil {
		return Tuning{}, err
	}
	chosen, err := Choose(devPoints, budget, target)
	if err != nil {
		return Tuning{}, err
	}
	var testKs []int
	if chosen.K > 0 {
		testKs = []int{chosen.K}
	}
	testPoints, err := Sweep(ctx, first, last, firstName, lastName, testKs, test)
	if err != nil {
		return Tuning{}, err
	}
	return Tuning{First: firstName, Last: lastName, DevQuestions: len(dev), TestQuestions: len(test),
		Chosen: chosen, Alone: testPoints[0], At: testPoints[len(testPoints)-1]}, nil
}

// WriteText writes the choice and its test numbers, against the last
// stage alone, in two lines.
func (t Tuning) WriteText(w io.Writer) error {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	k := fmt.Sprint(t.Chosen.K)
	if t.Chosen.K == 0 {
		k = "all (the last stage alone)"
	}
	if _, err := fmt.Fprintf(w, "%s → %s; chosen on dev (%d questions): k = %s (dev P@1 %.2f, %.2f ms/question)\n", t.First, t.Last, t.DevQuestions, k, 100*t.Chosen.P1, ms(t.Chosen.Latency)); err != nil {
		return err
	}
	at, alone := t.At, t.Alone
	_, err := fmt.Fprintf(w, "test (%d questions): P@1 %.2f, MAP %.2f, %.2f ms/question; last stage alone: P@1 %.2f, MAP %.2f, %.2f ms/question (%.1f%% of its P@1 at %.2fx its latency)\n",
		t.TestQuestions, 100*at.P1, 100*at.MAP, ms(at.Latency), 100*alone.P1, 100*alone.MAP, ms(alone.Latency),
		100*at.P1/max(alone.P1, 1e-12), float64(at.Latency)/float64(max(alone.Latency, 1)))
	return err
}
