// Package blend combines rankers: a candidate's score is a weighted sum of
// several rankers' scores, with weights fitted by logistic regression on
// labelled dev questions, P(correct) = σ(b + Σ wᵢsᵢ). The WikiQA paper
// does this with its CNN-Cnt (Yang et al. 2015, section 5.1: the CNN's
// score and word-count features in a logistic regression); as2's built-in
// model blends its cross-encoder with lexical overlap and BM25, which hold
// up on text unlike the training data (see docs/results.md's cross-dataset
// table).
//
// A Spec, the JSON file form, names the rankers as cascades do (a
// rule-based ranker or a model file) with their weights.
package blend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// Blend is a ranker whose score is Bias + Σ Weights[i]·Rankers[i]'s score:
// the logit of the probability that the candidate is correct, when the
// weights were fitted (Fit).
type Blend struct {
	Rankers []rank.Ranker
	Weights []float64
	Bias    float64
	// Gate, when its K is above 0, runs one ranker only on the K
	// candidates the others rank best (see Gate).
	Gate Gate
}

// Gate makes a blend a two-stage cascade (Matsubara et al. 2020,
// ../shared/papers/sequential-rerankers-transformer-as2.md, section 3):
// the other rankers' weighted sum scores every candidate, and the ranker
// Rankers[Ranker], the slow one, scores only the K best of that sum. The
// scores stay the blend's (a logit when fitted), so a calibration of the
// full blend still reads them: a kept candidate gets its full score, and
// a dropped one the others' sum plus the lowest weighted score the gated
// ranker gave a kept candidate, held below every kept candidate's score.
// With a non-negative weight that is what the gated ranker's score would
// have to be, at most, for the dropped candidate to rank where it does.
type Gate struct {
	Ranker int // index into Rankers
	K      int // candidates the gated ranker scores; 0: no gate
}

// Score implements rank.Ranker. A candidate that any ranker scores -Inf
// (an empty one) scores -Inf. A ranker of weight 0 (as a non-negative fit
// leaves some) adds nothing, so it is not run.
func (b *Blend) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	if len(b.Rankers) != len(b.Weights) {
		return nil, fmt.Errorf("blend: %d rankers, %d weights", len(b.Rankers), len(b.Weights))
	}
	gated := -1
	if b.Gate.K > 0 {
		if b.Gate.Ranker < 0 || b.Gate.Ranker >= len(b.Rankers) {
			return nil, fmt.Errorf("blend: gate on ranker %d of %d", b.Gate.Ranker+1, len(b.Rankers))
		}
		if b.Weights[b.Gate.Ranker] != 0 {
			gated = b.Gate.Ranker
		}
	}
	out := make([]float64, len(q.Candidates))
	for i := range out {
		out[i] = b.Bias
	}
	for k := range b.Rankers {
		if b.Weights[k] == 0 || k == gated {
			continue
		}
		if err := b.add(ctx, k, q, out, nil); err != nil {
			return nil, err
		}
	}
	if gated >= 0 {
		if err := b.addGated(ctx, gated, q, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// add adds ranker k's weighted scores of q's candidates to out or, with
// kept, to the entries of out that kept names (q then holds only those
// candidates, in kept's order).
func (b *Blend) add(ctx context.Context, k int, q *dataset.Question, out []float64, kept []int) error {
	s, err := b.Rankers[k].Score(ctx, q)
	if err != nil {
		return fmt.Errorf("blend ranker %d: %w", k+1, err)
	}
	if len(s) != len(q.Candidates) {
		return fmt.Errorf("blend ranker %d: %d scores for %d candidates", k+1, len(s), len(q.Candidates))
	}
	for j, v := range s {
		i := j
		if kept != nil {
			i = kept[j]
		}
		if math.IsInf(v, -1) {
			out[i] = math.Inf(-1)
		} else {
			out[i] += b.Weights[k] * v
		}
	}
	return nil
}

// addGated adds ranker k's weighted scores to out, which holds the other
// rankers' sum, for the Gate.K candidates best by that sum, and scores
// the rest as Gate says.
func (b *Blend) addGated(ctx context.Context, k int, q *dataset.Question, out []float64) error {
	var kept []int
	for _, i := range rank.Order(q, out)[:min(b.Gate.K, len(out))] {
		if !math.IsInf(out[i], -1) {
			kept = append(kept, i)
		}
	}
	finite := 0
	for _, v := range out {
		if !math.IsInf(v, -1) {
			finite++
		}
	}
	if len(kept) == finite {
		return b.add(ctx, k, q, out, nil) // nothing to drop
	}
	slices.Sort(kept) // the candidates' own order, for rankers that read it
	sub := *q
	sub.Candidates = make([]dataset.Candidate, len(kept))
	for j, i := range kept {
		sub.Candidates[j] = q.Candidates[i]
	}
	partial := slices.Clone(out)
	if err := b.add(ctx, k, &sub, out, kept); err != nil {
		return err
	}
	lowest, floor := math.Inf(1), math.Inf(1) // the lowest weighted gated score and full score kept
	for _, i := range kept {
		if !math.IsInf(out[i], -1) {
			lowest = min(lowest, out[i]-partial[i])
			floor = min(floor, out[i])
		}
	}
	if math.IsInf(lowest, 1) {
		return nil // every kept candidate scored -Inf: the rest keep the others' sum
	}
	isKept := make(map[int]bool, len(kept))
	for _, i := range kept {
		isKept[i] = true
	}
	for i, v := range out {
		if isKept[i] || math.IsInf(v, -1) {
			continue
		}
		out[i] = min(v+lowest, math.Nextafter(floor, math.Inf(-1)))
	}
	return nil
}

// Spec is a blend as a file: its rankers by name (a rule-based ranker such
// as "wo", or a model file, relative to the spec's folder), and the
// weights.
type Spec struct {
	Rankers []string  `json:"rankers"`
	Weights []float64 `json:"weights"`
	Bias    float64   `json:"bias"`
	// Gate, when set, names one of Rankers and the number of candidates
	// it scores (Blend.Gate).
	Gate *GateSpec `json:"gate,omitempty"`
}

// GateSpec is a Gate as a file names it.
type GateSpec struct {
	Ranker string `json:"ranker"`
	K      int    `json:"k"`
}

// Add adds ranker name with weight w, to the weight it already has if
// the spec names it.
func (s *Spec) Add(name string, w float64) {
	for i, n := range s.Rankers {
		if n == name {
			s.Weights[i] += w
			return
		}
	}
	s.Rankers = append(s.Rankers, name)
	s.Weights = append(s.Weights, w)
}

// ReadSpec reads a Spec from JSON, refusing unknown fields and a spec
// whose weights do not match its rankers.
func ReadSpec(r io.Reader) (Spec, error) {
	var s Spec
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("blend spec: %w", err)
	}
	if len(s.Rankers) == 0 || len(s.Rankers) != len(s.Weights) {
		return s, fmt.Errorf("blend spec: %d rankers and %d weights: want as many, at least one", len(s.Rankers), len(s.Weights))
	}
	for _, w := range append([]float64{s.Bias}, s.Weights...) {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return s, errors.New("blend spec: weights must be finite")
		}
	}
	if g := s.Gate; g != nil {
		if !slices.Contains(s.Rankers, g.Ranker) {
			return s, fmt.Errorf("blend spec: gate ranker %q is not one of the rankers", g.Ranker)
		}
		if g.K < 1 {
			return s, fmt.Errorf("blend spec: gate k %d: want at least 1", g.K)
		}
	}
	return s, nil
}

// WriteSpec writes s as indented JSON, which ReadSpec reads back.
func WriteSpec(w io.Writer, s Spec) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// Build returns the Blend of s, each ranker made by resolve.
func (s Spec) Build(resolve func(name string) (rank.Ranker, error)) (*Blend, error) {
	b := &Blend{Weights: s.Weights, Bias: s.Bias}
	for i, name := range s.Rankers {
		r, err := resolve(name)
		if err != nil {
			return nil, fmt.Errorf("blend ranker %s: %w", name, err)
		}
		b.Rankers = append(b.Rankers, r)
		if s.Gate != nil && s.Gate.Ranker == name {
			b.Gate = Gate{Ranker: i, K: s.Gate.K}
		}
	}
	return b, nil
}

// Options control Fit.
type Options struct {
	// L2 penalises the weights (on standardised scores).
	L2 float64
	// Listwise fits a softmax over each question's candidates (the
	// conditional logit: the correct candidates should outscore the
	// others of their question) instead of a logistic regression over all
	// candidates. It ranks better but leaves the bias at 0: calibrate the
	// scores afterwards (package trigger).
	Listwise bool
	// NonNegative keeps every weight at 0 or above: while the fit gives a
	// ranker a negative weight, the most negative one is set to 0 and the
	// others refitted. Rankers that nearly repeat each other (bm25 and
	// idf-overlap) otherwise get weights of opposite signs that cancel on
	// the dev set, a cancellation that need not hold on other text.
	NonNegative bool
}

// Fit fits the weights of rankers on every labelled, non-empty candidate
// of qs, with Newton's method (see Options).
func Fit(ctx context.Context, rankers []rank.Ranker, qs []dataset.Question, o Options) (*Blend, error) {
	data, err := scoreRows(ctx, rankers, qs)
	if err != nil {
		return nil, err
	}
	w, bias, err := data.fit(o)
	if err != nil {
		return nil, err
	}
	return &Blend{Rankers: rankers, Weights: w, Bias: bias}, nil
}

// DefaultL2Grid are the penalties FitCV tries by default: 0.001 (Fit's
// usual penalty, next to none on a few thousand candidates) up to 1000
// by factors of 10.
var DefaultL2Grid = []float64{1e-3, 1e-2, 1e-1, 1, 10, 100, 1000}

// CVScore is one penalty's mean loss on the held-out folds: the fit's own
// objective (the listwise or logistic negative log-likelihood), per
// question listwise and per candidate otherwise.
type CVScore struct {
	L2, Loss float64
}

// FitCV chooses o.L2 from grid (DefaultL2Grid when empty) by k-fold
// cross-validation over the questions, question i in fold i mod k, and
// fits every question with the penalty whose held-out loss is lowest
// (ties go to the larger penalty). The dev questions a blend is fitted on
// are few, and they come from the data its models trained on, so the
// penalty says how far the fit may follow them. The rankers score each
// question once. It returns the blend and each penalty's score.
func FitCV(ctx context.Context, rankers []rank.Ranker, qs []dataset.Question, o Options, k int, grid []float64) (*Blend, []CVScore, error) {
	if k < 2 {
		return nil, nil, fmt.Errorf("blend: %d folds: cross-validation needs at least 2", k)
	}
	if len(qs) < k {
		return nil, nil, fmt.Errorf("blend: %d questions for %d folds", len(qs), k)
	}
	if len(grid) == 0 {
		grid = DefaultL2Grid
	}
	for _, l2 := range grid { // before the rankers run, which is the slow part
		if l2 < 0 {
			return nil, nil, fmt.Errorf("blend: penalty %v: must be >= 0", l2)
		}
	}
	data, err := scoreRows(ctx, rankers, qs)
	if err != nil {
		return nil, nil, err
	}
	folds := make([]struct{ train, test *rows }, k)
	for f := range folds {
		folds[f].train, folds[f].test = data.split(func(g int) bool { return g%k == f })
	}
	scores := make([]CVScore, len(grid))
	best := 0
	for i, l2 := range grid {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		o.L2 = l2
		var loss, n float64
		for f, fold := range folds {
			w, bias, err := fold.train.fit(o)
			if err != nil {
				return nil, nil, fmt.Errorf("blend: penalty %v, fold %d: %w", l2, f+1, err)
			}
			l, m := fold.test.loss(w, bias, o.Listwise)
			loss, n = loss+l, n+m
		}
		if n == 0 {
			return nil, nil, errors.New("blend: no question has both correct and incorrect candidates to score the folds by")
		}
		scores[i] = CVScore{L2: l2, Loss: loss / n}
		if scores[i].Loss < scores[best].Loss || scores[i].Loss == scores[best].Loss && l2 > grid[best] {
			best = i
		}
	}
	o.L2 = grid[best]
	w, bias, err := data.fit(o)
	if err != nil {
		return nil, nil, err
	}
	return &Blend{Rankers: rankers, Weights: w, Bias: bias}, scores, nil
}

// rows are the rankers' scores of every labelled, non-empty candidate,
// one row each, with its label; groups[g] are the rows of question g.
type rows struct {
	xs     [][]float64
	ys     []float64
	groups [][2]int
}

// scoreRows scores every candidate of qs by each ranker.
func scoreRows(ctx context.Context, rankers []rank.Ranker, qs []dataset.Question) (*rows, error) {
	d := len(rankers)
	r := &rows{}
	for i := range qs {
		q := &qs[i]
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !q.Labelled() {
			return nil, fmt.Errorf("blend: question %q is not labelled", q.ID)
		}
		cols := make([][]float64, d)
		for k, rk := range rankers {
			s, err := rk.Score(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("blend: question %q: ranker %d: %w", q.ID, k+1, err)
			}
			cols[k] = s
		}
		start := len(r.xs)
	cands:
		for j, c := range q.Candidates {
			x := make([]float64, d)
			for k := range d {
				if x[k] = cols[k][j]; math.IsInf(x[k], 0) || math.IsNaN(x[k]) {
					continue cands // an empty candidate: nothing to learn
				}
			}
			r.xs = append(r.xs, x)
			r.ys = append(r.ys, float64(c.Label))
		}
		r.groups = append(r.groups, [2]int{start, len(r.xs)})
	}
	if len(r.xs) == 0 {
		return nil, errors.New("blend: no candidates to fit on")
	}
	return r, nil
}

// split divides the questions into those for which out(g) is false and
// those for which it is true.
func (r *rows) split(out func(g int) bool) (in, held *rows) {
	in, held = &rows{}, &rows{}
	for g, gr := range r.groups {
		t := in
		if out(g) {
			t = held
		}
		start := len(t.xs)
		t.xs = append(t.xs, r.xs[gr[0]:gr[1]]...)
		t.ys = append(t.ys, r.ys[gr[0]:gr[1]]...)
		t.groups = append(t.groups, [2]int{start, len(t.xs)})
	}
	return in, held
}

// loss is the negative log-likelihood of the rows under weights w and
// bias (see Options.Listwise), summed, and the number of terms: questions
// with both correct and incorrect candidates when listwise, candidates
// otherwise.
func (r *rows) loss(w []float64, bias float64, listwise bool) (sum, n float64) {
	if !listwise {
		for i, x := range r.xs {
			a := bias + dot(w, x)
			// −log σ(a) = log(1+e^−a), −log(1−σ(a)) = log(1+e^a).
			if r.ys[i] > 0 {
				a = -a
			}
			sum += softplus(a)
			n++
		}
		return sum, n
	}
	for _, gr := range r.groups {
		ys := r.ys[gr[0]:gr[1]]
		pos, ok := ranks(ys)
		if !ok {
			continue
		}
		p := softmax(r.xs[gr[0]:gr[1]], w)
		for j, y := range ys {
			if y > 0 {
				sum -= y / pos * math.Log(p[j])
			}
		}
		n++
	}
	return sum, n
}

// softplus is log(1+eᵃ), without overflow.
func softplus(a float64) float64 {
	if a > 0 {
		return a + math.Log1p(math.Exp(-a))
	}
	return math.Log1p(math.Exp(a))
}

// fit fits the weights (see Options) and returns them, on the rankers'
// own scales, with the bias.
func (r *rows) fit(o Options) ([]float64, float64, error) {
	xs := r.xs
	if len(xs) == 0 {
		return nil, 0, errors.New("no candidates to fit on")
	}
	d := len(xs[0])
	// Standardise for a well-conditioned fit; map back at the end.
	mean, sd := make([]float64, d), make([]float64, d)
	for _, x := range xs {
		for k, v := range x {
			mean[k] += v
		}
	}
	for k := range mean {
		mean[k] /= float64(len(xs))
	}
	for _, x := range xs {
		for k, v := range x {
			sd[k] += (v - mean[k]) * (v - mean[k])
		}
	}
	for k := range sd {
		if sd[k] = math.Sqrt(sd[k] / float64(len(xs))); sd[k] == 0 {
			sd[k] = 1
		}
	}
	// active are the rankers whose weights are fitted; the others stay 0.
	active := make([]int, d)
	for k := range active {
		active[k] = k
	}
	var w []float64 // over active, then the bias
	for {
		zs := make([][]float64, len(xs))
		for i, x := range xs {
			zs[i] = make([]float64, len(active)+1)
			for a, k := range active {
				zs[i][a] = (x[k] - mean[k]) / sd[k]
			}
			zs[i][len(active)] = 1
		}
		var err error
		if w, err = newton(zs, r.ys, r.groups, o); err != nil {
			return nil, 0, err
		}
		if !o.NonNegative {
			break
		}
		worst := -1
		for a := range active {
			if w[a] < 0 && (worst < 0 || w[a] < w[worst]) {
				worst = a
			}
		}
		if worst < 0 {
			break
		}
		if len(active) == 1 {
			return nil, 0, fmt.Errorf("blend: no ranker gets a positive weight (the last, ranker %d, gets %.3g)", active[0]+1, w[0])
		}
		active = slices.Delete(active, worst, worst+1)
	}
	weights, bias := make([]float64, d), w[len(active)]
	for a, k := range active {
		weights[k] = w[a] / sd[k]
		bias -= w[a] * mean[k] / sd[k]
	}
	if o.Listwise {
		bias = 0 // a shift of every score changes no softmax
	}
	return weights, bias, nil
}

// newton fits weights over the columns of zs, whose last column is the
// constant 1 of the bias (left at 0 when listwise), by Newton's method on
// the penalised log-likelihood.
func newton(zs [][]float64, ys []float64, groups [][2]int, o Options) ([]float64, error) {
	d := len(zs[0]) - 1
	n := d + 1 // w[d] is the bias, fixed at 0 when listwise
	if o.Listwise {
		n = d
	}
	w := make([]float64, d+1)
	for iter := 0; iter < 100; iter++ {
		g := mat.NewVecDense(n, nil)
		h := mat.NewSymDense(n, nil)
		// add adds c·z to g and e·z zᵀ to h.
		add := func(z []float64, c, e float64) {
			for k := range n {
				g.SetVec(k, g.AtVec(k)+c*z[k])
				for l := k; l < n; l++ {
					h.SetSym(k, l, h.At(k, l)+e*z[k]*z[l])
				}
			}
		}
		if o.Listwise {
			for _, gr := range groups {
				rows := zs[gr[0]:gr[1]]
				pos, ok := ranks(ys[gr[0]:gr[1]])
				if !ok {
					continue
				}
				p := softmax(rows, w)
				mean := make([]float64, n)
				for j, z := range rows {
					for k := range n {
						mean[k] += p[j] * z[k]
					}
				}
				for j, z := range rows {
					// ∇ = Σ (p_j − t_j) z_j; H = Σ p_j (z_j − z̄)(z_j − z̄)ᵀ.
					c := make([]float64, n)
					for k := range n {
						c[k] = z[k] - mean[k]
					}
					add(z, p[j]-ys[gr[0]+j]/pos, 0)
					add(c, 0, p[j])
				}
			}
		} else {
			for i, z := range zs {
				a := dot(w, z)
				p := 1 / (1 + math.Exp(-a))
				add(z, p-ys[i], p*(1-p))
			}
		}
		for k := range d { // no penalty on the bias
			g.SetVec(k, g.AtVec(k)+o.L2*w[k])
			h.SetSym(k, k, h.At(k, k)+o.L2)
		}
		var step mat.VecDense
		if err := step.SolveVec(h, g); err != nil {
			return nil, fmt.Errorf("blend: the fit is singular: %w", err)
		}
		change := 0.0
		for k := range n {
			w[k] -= step.AtVec(k)
			change += math.Abs(step.AtVec(k))
		}
		if change < 1e-10 {
			break
		}
	}
	return w, nil
}

// ranks reports whether a question with labels ys has something to rank
// listwise (correct and incorrect candidates both), and its number of
// correct ones, which divide the listwise target.
func ranks(ys []float64) (pos float64, ok bool) {
	for _, y := range ys {
		pos += y
	}
	return pos, pos > 0 && pos < float64(len(ys))
}

func dot(w, z []float64) float64 {
	a := 0.0
	for k := range z {
		a += w[k] * z[k]
	}
	return a
}

// softmax is the softmax of w·z over rows.
func softmax(rows [][]float64, w []float64) []float64 {
	p := make([]float64, len(rows))
	m := math.Inf(-1)
	for j, z := range rows {
		p[j] = dot(w, z)
		m = max(m, p[j])
	}
	sum := 0.0
	for j := range p {
		p[j] = math.Exp(p[j] - m)
		sum += p[j]
	}
	for j := range p {
		p[j] /= sum
	}
	return p
}
