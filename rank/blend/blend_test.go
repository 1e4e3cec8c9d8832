package blend

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// feature scores each candidate by its features' k-th value.
func feature(features map[string][]float64, k int) rank.Ranker {
	return rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		s := make([]float64, len(q.Candidates))
		for i, c := range q.Candidates {
			s[i] = features[c.ID][k]
		}
		return s, nil
	})
}

// logisticQuestions draws 400 questions of 10 candidates with two features
// each, labelled by a logistic model with weights want and the bias.
func logisticQuestions(want []float64, bias float64) ([]dataset.Question, map[string][]float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	var qs []dataset.Question
	features := map[string][]float64{}
	for i := 0; i < 400; i++ {
		q := dataset.Question{ID: "q"}
		for j := 0; j < 10; j++ {
			f := []float64{rng.NormFloat64(), 3 * rng.NormFloat64()}
			p := 1 / (1 + math.Exp(-(bias + want[0]*f[0] + want[1]*f[1])))
			label := dataset.Negative
			if rng.Float64() < p {
				label = dataset.Positive
			}
			id := strconv.Itoa(len(features))
			features[id] = f
			q.Candidates = append(q.Candidates, dataset.Candidate{ID: id, Text: "c", Position: j, Label: label})
		}
		qs = append(qs, q)
	}
	return qs, features
}

// TestFitRecoversWeights draws labels from a known logistic model of two
// features and checks that Fit finds its weights.
func TestFitRecoversWeights(t *testing.T) {
	want := []float64{2, -0.5}
	const bias = -1.0
	qs, features := logisticQuestions(want, bias)
	b, err := Fit(context.Background(), []rank.Ranker{feature(features, 0), feature(features, 1)}, qs, Options{L2: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range want {
		if math.Abs(b.Weights[k]-w) > 0.15*math.Abs(w) {
			t.Errorf("weight %d: %.3f, want about %.3f", k, b.Weights[k], w)
		}
	}
	if math.Abs(b.Bias-bias) > 0.15 {
		t.Errorf("bias %.3f, want about %.3f", b.Bias, bias)
	}
	s, err := b.Score(context.Background(), &qs[0])
	if err != nil {
		t.Fatal(err)
	}
	f := features[qs[0].Candidates[3].ID]
	if got := b.Bias + b.Weights[0]*f[0] + b.Weights[1]*f[1]; math.Abs(s[3]-got) > 1e-12 {
		t.Errorf("score %v, want %v", s[3], got)
	}
}

// TestFitNonNegative: the model's second weight is negative, so a
// non-negative fit sets it to 0 and is the fit of the first feature alone.
func TestFitNonNegative(t *testing.T) {
	qs, features := logisticQuestions([]float64{2, -0.5}, -1)
	ctx := context.Background()
	f0, f1 := feature(features, 0), feature(features, 1)
	for _, listwise := range []bool{false, true} {
		nn, err := Fit(ctx, []rank.Ranker{f0, f1}, qs, Options{L2: 1e-6, Listwise: listwise, NonNegative: true})
		if err != nil {
			t.Fatal(err)
		}
		alone, err := Fit(ctx, []rank.Ranker{f0}, qs, Options{L2: 1e-6, Listwise: listwise})
		if err != nil {
			t.Fatal(err)
		}
		if nn.Weights[1] != 0 || math.Abs(nn.Weights[0]-alone.Weights[0]) > 1e-9 || math.Abs(nn.Bias-alone.Bias) > 1e-9 {
			t.Errorf("listwise %v: non-negative fit %v bias %v, want [%v 0] bias %v", listwise, nn.Weights, nn.Bias, alone.Weights[0], alone.Bias)
		}
	}
	// A ranker left at 0 is not run: this one would fail.
	failing := rank.Func(func(context.Context, *dataset.Question) ([]float64, error) { return nil, errors.New("run") })
	b := &Blend{Rankers: []rank.Ranker{f0, failing}, Weights: []float64{1, 0}}
	if _, err := b.Score(ctx, &qs[0]); err != nil {
		t.Errorf("a blend ran its ranker of weight 0: %v", err)
	}
	// Only negative weights: an error, not a blend of nothing.
	if _, err := Fit(ctx, []rank.Ranker{f1}, qs, Options{L2: 1e-6, NonNegative: true}); err == nil || !strings.Contains(err.Error(), "no ranker gets a positive weight") {
		t.Errorf("a fit whose only weight is negative: %v", err)
	}
}

func TestReadSpec(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"rankers": ["wo", "m.as2"], "weights": [1, 2], "bias": -1}`, ""},
		{`{"rankers": ["wo"], "weights": [1, 2]}`, "1 rankers and 2 weights"},
		{`{"rankers": [], "weights": []}`, "at least one"},
		{`{"rankers": ["wo"], "weights": [1], "extra": 1}`, "unknown field"},
		{`{"rankers": ["wo"], "weights": [1e999]}`, "blend spec"},
		{`[`, "blend spec"},
		{`{"rankers": ["wo", "m.as2"], "weights": [1, 2], "gate": {"ranker": "m.as2", "k": 3}}`, ""},
		{`{"rankers": ["wo"], "weights": [1], "gate": {"ranker": "m.as2", "k": 3}}`, `gate ranker "m.as2" is not one of the rankers`},
		{`{"rankers": ["wo", "m.as2"], "weights": [1, 2], "gate": {"ranker": "m.as2", "k": 0}}`, "gate k 0: want at least 1"},
	} {
		_, err := ReadSpec(strings.NewReader(tc.in))
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzReadSpec(f *testing.F) {
	f.Add(`{"rankers": ["wo", "m.as2"], "weights": [1, 2], "bias": -1}`)
	f.Add(`{"rankers": ["wo"], "weights": [NaN]}`)
	f.Add(`{"rankers": ["wo", "m.as2"], "weights": [1, 2], "gate": {"ranker": "m.as2", "k": 5}}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadSpec(strings.NewReader(in))
		if err == nil && (len(s.Rankers) == 0 || len(s.Rankers) != len(s.Weights)) {
			t.Fatalf("accepted %q: %+v", in, s)
		}
		if err == nil && s.Gate != nil && (s.Gate.K < 1 || !slices.Contains(s.Rankers, s.Gate.Ranker)) {
			t.Fatalf("accepted a gate %+v outside the rankers %q", *s.Gate, s.Rankers)
		}
	})
}

// TestListwiseRanksWithinQuestions: feature 0 orders every question's
// candidates correctly but is shifted by a large per-question offset, which
// only a listwise fit can ignore; feature 1 is noise.
func TestListwiseRanksWithinQuestions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	features := map[string][]float64{}
	var qs []dataset.Question
	for i := 0; i < 100; i++ {
		q := dataset.Question{ID: strconv.Itoa(i)}
		offset := 20 * rng.NormFloat64()
		for j := 0; j < 5; j++ {
			id := strconv.Itoa(len(features))
			label := dataset.Negative
			f0 := offset + float64(j)
			if j == 4 {
				label = dataset.Positive
				f0 += 0.5 + rng.Float64()
			}
			features[id] = []float64{f0, rng.NormFloat64()}
			q.Candidates = append(q.Candidates, dataset.Candidate{ID: id, Text: "c", Position: j, Label: label})
		}
		qs = append(qs, q)
	}
	b, err := Fit(context.Background(), []rank.Ranker{feature(features, 0), feature(features, 1)}, qs, Options{L2: 1e-3, Listwise: true})
	if err != nil {
		t.Fatal(err)
	}
	if b.Weights[0] <= 0 || math.Abs(b.Weights[1]) > 0.2*b.Weights[0] || b.Bias != 0 {
		t.Fatalf("weights %v bias %v: want feature 0 to dominate, no bias", b.Weights, b.Bias)
	}
}

// TestFitCVChoosesPenalty: where the features carry the labels, the
// held-out folds want the weights free (a small penalty); where they are
// noise, any weight fitted on four folds costs on the fifth, so the
// largest penalty wins, and the weights shrink towards 0.
func TestFitCVChoosesPenalty(t *testing.T) {
	ctx := context.Background()
	qs, features := logisticQuestions([]float64{2, -0.5}, -1)
	rs := []rank.Ranker{feature(features, 0), feature(features, 1)}
	for _, listwise := range []bool{false, true} {
		b, scores, err := FitCV(ctx, rs, qs, Options{Listwise: listwise}, 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(scores) != len(DefaultL2Grid) {
			t.Fatalf("listwise %v: %d scores for %d penalties", listwise, len(scores), len(DefaultL2Grid))
		}
		best := scores[0]
		for _, s := range scores {
			if s.Loss < best.Loss {
				best = s
			}
		}
		if best.L2 > 10 || scores[len(scores)-1].Loss <= best.Loss {
			t.Errorf("listwise %v: informative features chose penalty %v (scores %v)", listwise, best.L2, scores)
		}
		// The blend is the fit of every question at the chosen penalty.
		want, err := Fit(ctx, rs, qs, Options{L2: best.L2, Listwise: listwise})
		if err != nil {
			t.Fatal(err)
		}
		for k := range want.Weights {
			if b.Weights[k] != want.Weights[k] || b.Bias != want.Bias {
				t.Errorf("listwise %v: weights %v bias %v, want %v bias %v", listwise, b.Weights, b.Bias, want.Weights, want.Bias)
			}
		}
		if !listwise && math.Abs(b.Weights[0]-2) > 0.3 {
			t.Errorf("weight %v, want about 2", b.Weights[0])
		}
	}

	// Noise: labels drawn independently of the features.
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range qs {
		for j := range qs[i].Candidates {
			qs[i].Candidates[j].Label = dataset.Negative
		}
		qs[i].Candidates[rng.IntN(len(qs[i].Candidates))].Label = dataset.Positive
	}
	free, err := Fit(ctx, rs, qs, Options{L2: 1e-3, Listwise: true})
	if err != nil {
		t.Fatal(err)
	}
	b, scores, err := FitCV(ctx, rs, qs, Options{Listwise: true}, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	last := scores[len(scores)-1]
	for _, s := range scores[:len(scores)-1] {
		if s.Loss < last.Loss {
			t.Errorf("noise: penalty %v scored %v, under the largest's %v", s.L2, s.Loss, last.Loss)
		}
	}
	if math.Abs(b.Weights[0]) >= math.Abs(free.Weights[0]) || math.Abs(b.Weights[1]) >= math.Abs(free.Weights[1]) {
		t.Errorf("noise: weights %v, want them shrunk from the unpenalised %v", b.Weights, free.Weights)
	}
}

// TestRowsLoss: with every weight 0, each of n candidates has
// probability 1/n listwise and 1/2 pointwise.
func TestRowsLoss(t *testing.T) {
	r := &rows{
		xs:     [][]float64{{1}, {2}, {3}, {4}, {5}, {6}},
		ys:     []float64{0, 1, 0, 0, 1, 1}, // question 2 has no wrong candidate: not scored listwise
		groups: [][2]int{{0, 4}, {4, 6}},
	}
	for _, tc := range []struct {
		listwise bool
		sum, n   float64
	}{
		{true, math.Log(4), 1},
		{false, 6 * math.Log(2), 6},
	} {
		sum, n := r.loss([]float64{0}, 0, tc.listwise)
		if math.Abs(sum-tc.sum) > 1e-12 || n != tc.n {
			t.Errorf("listwise %v: loss %v over %v, want %v over %v", tc.listwise, sum, n, tc.sum, tc.n)
		}
	}
	// A sure, right score costs nothing; a sure, wrong one a lot.
	if sum, _ := r.loss([]float64{0}, 50, false); sum < 100 {
		t.Errorf("a bias of 50 on 3 wrong candidates cost %v", sum)
	}
}

func TestFitCVErrors(t *testing.T) {
	qs, features := logisticQuestions([]float64{1, 0}, 0)
	rs := []rank.Ranker{feature(features, 0)}
	for _, tc := range []struct {
		k    int
		grid []float64
		qs   []dataset.Question
		want string
	}{
		{1, nil, qs, "at least 2"},
		{5, nil, qs[:3], "3 questions for 5 folds"},
		{5, []float64{1, -1}, qs, "penalty -1"},
	} {
		if _, _, err := FitCV(context.Background(), rs, tc.qs, Options{}, tc.k, tc.grid); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("k %d, grid %v: %v, want %q", tc.k, tc.grid, err, tc.want)
		}
	}
}

func TestWriteSpecReadsBack(t *testing.T) {
	for _, s := range []Spec{
		{Rankers: []string{"wo"}, Weights: []float64{1}},
		{Rankers: []string{"wo", "sub/m.as2"}, Weights: []float64{-0.5, 2.25}, Bias: 1e-3},
		{Rankers: []string{"wo", "m.as2"}, Weights: []float64{1, 2}, Gate: &GateSpec{Ranker: "m.as2", K: 4}},
	} {
		var b strings.Builder
		if err := WriteSpec(&b, s); err != nil {
			t.Fatal(err)
		}
		got, err := ReadSpec(strings.NewReader(b.String()))
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Errorf("%+v: read back %+v, %v\n%s", s, got, err, b.String())
		}
	}
}

// TestGate checks the two-stage blend against the ungated one: the gated
// ranker sees only the K best candidates of the others' sum, in their own
// order; those keep their full scores; the dropped ones rank below them,
// in the others' order, scored with the lowest weighted gated score; an
// empty candidate is never sent and stays -Inf; and with K at least the
// candidates, nothing changes.
func TestGate(t *testing.T) {
	ctx := context.Background()
	// Candidate i: cheap score cheap[i], slow score slow[i]; "" is empty.
	texts := []string{"a", "b", "", "c", "d", "e"}
	cheap := []float64{3, 1, 0, 5, 2, 4}
	slow := []float64{-1, 7, 0, 2, 9, 0.5}
	byText := func(v []float64) map[string]float64 {
		m := map[string]float64{}
		for i, t := range texts {
			m[t] = v[i]
		}
		return m
	}
	var seen [][]string
	scorer := func(v map[string]float64, record bool) rank.Ranker {
		return rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
			var got []string
			s := make([]float64, len(q.Candidates))
			for i, c := range q.Candidates {
				got = append(got, c.Text)
				s[i] = v[c.Text]
				if c.Text == "" {
					s[i] = math.Inf(-1)
				}
			}
			if record {
				seen = append(seen, got)
			}
			return s, nil
		})
	}
	q := &dataset.Question{ID: "q", Text: "q"}
	for i, t := range texts {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: strconv.Itoa(i), Text: t, Position: i})
	}
	const wCheap, wSlow, bias = 2.0, 0.5, -1.0
	blend := func(k int) *Blend {
		return &Blend{Rankers: []rank.Ranker{scorer(byText(cheap), false), scorer(byText(slow), true)},
			Weights: []float64{wCheap, wSlow}, Bias: bias, Gate: Gate{Ranker: 1, K: k}}
	}
	full, err := blend(0).Score(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		k       int
		sent    []string // what the gated ranker scores, in order
		dropped []int    // candidates scored without it
	}{
		{k: 0, sent: texts},
		{k: 5, sent: texts}, // five finite candidates: nothing dropped
		{k: 9, sent: texts},
		{k: 3, sent: []string{"a", "c", "e"}, dropped: []int{1, 4}},
		{k: 1, sent: []string{"c"}, dropped: []int{0, 1, 4, 5}},
	} {
		seen = nil
		got, err := blend(tc.k).Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != 1 || !reflect.DeepEqual(seen[0], tc.sent) {
			t.Errorf("k=%d: the gated ranker scored %q, want %q", tc.k, seen, tc.sent)
		}
		if !math.IsInf(got[2], -1) {
			t.Errorf("k=%d: the empty candidate scored %v", tc.k, got[2])
		}
		isDropped := map[int]bool{}
		for _, i := range tc.dropped {
			isDropped[i] = true
		}
		lowest, floor := math.Inf(1), math.Inf(1)
		for i := range texts {
			if !isDropped[i] && i != 2 {
				lowest, floor = min(lowest, wSlow*slow[i]), min(floor, full[i])
			}
		}
		for i := range texts {
			switch {
			case i == 2:
			case !isDropped[i]:
				if got[i] != full[i] {
					t.Errorf("k=%d: kept candidate %d scored %v, ungated %v", tc.k, i, got[i], full[i])
				}
			default:
				want := min(bias+wCheap*cheap[i]+lowest, math.Nextafter(floor, math.Inf(-1)))
				if got[i] != want || got[i] >= floor {
					t.Errorf("k=%d: dropped candidate %d scored %v, want %v (below %v)", tc.k, i, got[i], want, floor)
				}
			}
		}
	}
}

// TestSpecBuildGate: Build finds the gated ranker by name.
func TestSpecBuildGate(t *testing.T) {
	s := Spec{Rankers: []string{"wo", "m.as2", "bm25"}, Weights: []float64{1, 2, 3}, Gate: &GateSpec{Ranker: "m.as2", K: 4}}
	b, err := s.Build(func(string) (rank.Ranker, error) { return rank.Func(nil), nil })
	if err != nil || b.Gate != (Gate{Ranker: 1, K: 4}) {
		t.Errorf("Build: gate %+v, %v; want ranker 1, k 4", b.Gate, err)
	}
}
