package crossencoder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/modeltest"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
	"github.com/as2/as2/safetensors"
)

func mustNew(t testing.TB, h Hyper, enc encoder.Encoder[float32]) *Model {
	t.Helper()
	m, err := New(h, enc, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func scores(t testing.TB, m model.Model, q *dataset.Question) []float64 {
	t.Helper()
	s, err := m.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An imported BERT sequence classifier scores a pair as its own
// Classify's logit₁ − logit₀; the batched, bucketed inference gives the
// training pass's scores; and the model file restores both models.
func TestScoresAndRoundTrip(t *testing.T) {
	benc := bertEncoder(t)
	full, err := bert.Load(encodertest.BERTDir(t))
	if err != nil {
		t.Fatal(err)
	}
	bm := mustNew(t, Recipe(), benc)
	if bm.Hyper().Pool != PoolPooler {
		t.Errorf("pool %q for a classifier checkpoint", bm.Hyper().Pool)
	}
	q := encodertest.LongQuestion(21)
	got := scores(t, bm, q)
	in := bm.prepare(q)
	var ids, types [][]int
	for _, s := range in.seqs {
		ids, types = append(ids, s.IDs), append(types, s.Types)
	}
	logits, err := full.Classify(ids, types)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(logits))
	for i, l := range logits {
		want[i] = float64(l[1] - l[0])
	}
	nntest.Close(t, "imported classifier", got, want, 1e-5)

	em := Recipe()
	em.ExactMatch = true
	marked := mustNew(t, em, encodertest.USELite(t, 1))
	randomize(marked.match, 3)
	em.Segments = true
	both := mustNew(t, em, encodertest.USELite(t, 1))
	randomize(both.match, 4)
	randomize(both.segment, 5)
	for name, m := range map[string]*Model{"bert": bm, "use-lite": mustNew(t, Recipe(), encodertest.USELite(t, 1)),
		"use-lite, exact match": marked, "use-lite, exact match and segments": both} {
		t.Run(name, func(t *testing.T) {
			m.hyper.BatchTokens = 40 // several buckets
			inf := scores(t, m, q)
			tp := nn.NewTape[float32](m.Params().NewGrads(), 0)
			tp.SetTrain(false)
			tr := m.forward(tp, m.prepare(q), false)
			trs := make([]float64, len(inf))
			for i, v := range tr.Value.Data {
				trs[i] = float64(v)
			}
			nntest.Close(t, "training pass", trs, inf, 1e-5)

			back := modeltest.RoundTrip(t, m)
			nntest.Close(t, "read back", scores(t, back, q), scores(t, m, q), 1e-6)
			if back.Config().Params != m.Params().Count() || back.Config().Architecture != Name {
				t.Errorf("config %+v", back.Config())
			}
		})
	}
}

// randomize sets p to seeded values in (-0.5, 0.5).
func randomize(p *nn.Param[float32], seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range p.Value.Data {
		p.Value.Data[i] = float32(rng.Float64() - 0.5)
	}
}

// TestExactMatch checks the marks: a piece both sentences hold is marked
// on both sides of the pair, by its kind; the separator and unshared
// pieces are not.
func TestExactMatch(t *testing.T) {
	tok := func(s string, ids ...int) encoder.Tokens { return encoder.Tokens{Text: strings.Fields(s), IDs: ids} }
	for _, c := range []struct {
		name string
		q, c encoder.Tokens
		seq  []int
		want []int
	}{
		{"shared words", tok("▁who ▁invented ▁the ▁cube ?", 10, 11, 12, 13, 14), tok("▁the ▁cube ▁was ▁invented ?", 12, 13, 15, 11, 14),
			[]int{10, 11, 12, 13, 14, 2, 12, 13, 15, 11, 14}, []int{-1, 0, 1, 0, 1, -1, 1, 0, -1, 0, 1}},
		{"nothing shared", tok("▁who", 10), tok("▁cube", 13), []int{10, 2, 13}, []int{-1, -1, -1}},
		{"digits and word pieces", tok("▁in ▁19 74 ##s", 20, 21, 22, 23), tok("▁19 74 ##s", 21, 22, 23), []int{20, 21, 22, 23, 2, 21, 22, 23}, []int{-1, 0, 0, 1, -1, 0, 0, 1}},
		{"unknown pieces", tok("▁x", -1), tok("▁x", -1), []int{0, 2, 0}, []int{-1, -1, -1}},
	} {
		if got := exactMatch(encoder.Sequence{IDs: c.seq}, c.q, c.c); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: marks %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSegments checks the segment marks, alone and beside exact-match
// marks: the candidate's positions (token type 1) get the segment row, or
// a match row plus it; the question's keep their match marks.
func TestSegments(t *testing.T) {
	tok := func(s string, ids ...int) encoder.Tokens { return encoder.Tokens{Text: strings.Fields(s), IDs: ids} }
	q, c := tok("▁who ▁invented ▁the ▁cube", 10, 11, 12, 13), tok("▁the ▁cube ▁was", 12, 13, 15)
	seq := encoder.Sequence{IDs: []int{10, 11, 12, 13, 2, 12, 13, 15}, Types: []int{0, 0, 0, 0, 0, 1, 1, 1}}
	for _, tc := range []struct {
		name                 string
		exactMatch, segments bool
		want                 []int
	}{
		{"exact match", true, false, []int{-1, -1, 1, 0, -1, 1, 0, -1}},
		{"segments", false, true, []int{-1, -1, -1, -1, -1, 0, 0, 0}},
		{"both", true, true, []int{-1, -1, 1, 0, -1, 4, 3, 2}},
	} {
		h := Recipe()
		h.ExactMatch, h.Segments = tc.exactMatch, tc.segments
		m := mustNew(t, h, encodertest.USELite(t, 1))
		if got := m.marks(seq, q, c); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: marks %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestMarkTablesStartAtZero: the exact-match and segment tables of a fresh
// model are zero and leave the scores as USE-Lite's; trained ones change
// them, and the model file keeps them.
func TestMarkTablesStartAtZero(t *testing.T) {
	q := encodertest.LongQuestion(5)
	plain := scores(t, mustNew(t, Recipe(), encodertest.USELite(t, 1)), q)
	for _, tc := range []struct {
		name                 string
		exactMatch, segments bool
	}{{"exact match", true, false}, {"segments", false, true}, {"both", true, true}} {
		h := Recipe()
		h.ExactMatch, h.Segments = tc.exactMatch, tc.segments
		m := mustNew(t, h, encodertest.USELite(t, 1))
		nntest.Close(t, tc.name+", zero tables", scores(t, m, q), plain, 1e-6)
		before := plain
		for k, p := range []*nn.Param[float32]{m.match, m.segment} {
			if p == nil {
				continue
			}
			randomize(p, uint64(k+1))
			moved := scores(t, m, q)
			if reflect.DeepEqual(moved, before) {
				t.Errorf("%s: %s does not change the scores", tc.name, p.Name)
			}
			if got := scores(t, modeltest.RoundTrip(t, m), q); !reflect.DeepEqual(got, moved) {
				t.Errorf("%s: read back: %v, want %v", tc.name, got, moved)
			}
			before = moved
		}
	}
}

// The model needs a transformer encoder, and corrupt files are errors.
func TestErrors(t *testing.T) {
	if _, err := New(Recipe(), encodertest.Static[float32](t), 1); err == nil || !strings.Contains(err.Error(), "transformer encoder") {
		t.Errorf("static encoder: %v", err)
	}
	h := Recipe()
	h.ExactMatch = true
	if _, err := New(h, bertEncoder(t), 1); err == nil || !strings.Contains(err.Error(), "exact-match") {
		t.Errorf("exact match on a BERT encoder: %v", err)
	}
	h = Recipe()
	h.Segments = true
	if _, err := New(h, bertEncoder(t), 1); err == nil || !strings.Contains(err.Error(), "segments") {
		t.Errorf("segments on a BERT encoder: %v", err)
	}
	h = Recipe()
	h.Pool = "min"
	if _, err := New(h, encodertest.USELite(t, 1), 1); err == nil || !strings.Contains(err.Error(), "want mean, max, attention") {
		t.Errorf("pool min: %v", err)
	}
	m := mustNew(t, Recipe(), encodertest.USELite(t, 1))
	ts := m.Tensors()
	for i := range ts {
		if ts[i].Name == "head.score.weight" {
			ts[i].Shape = []int{1, 12}
		}
	}
	var buf bytes.Buffer
	bad := badModel{m, ts}
	if err := model.Write(&buf, bad); err != nil {
		t.Fatal(err)
	}
	if _, err := model.Read(&buf); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("mismatched shape: %v", err)
	}
}

// badModel is a model whose file holds other tensors.
type badModel struct {
	*Model
	ts []safetensors.Tensor
}

func (b badModel) Tensors() []safetensors.Tensor { return b.ts }

// TestGradients checks the gradients of the real code (USE-Lite pair
// encoding, padding, bucketing, pooling, scoring, listwise loss) against
// central finite differences. USE-Lite and BERT are float32 models, so the
// check is in float32: a step of 2e-3 and a tolerance relative to the
// largest gradient of each parameter, on a random sample of entries.
func TestGradients(t *testing.T) {
	for _, c := range []struct {
		pool                 string
		exactMatch, segments bool
	}{{PoolMean, false, false}, {PoolMax, false, false}, {PoolAttention, false, false}, {PoolCLS, false, false},
		{PoolMean, true, false}, {PoolMean, false, true}, {PoolMean, true, true}} {
		t.Run(fmt.Sprintf("%s, exact match %v, segments %v", c.pool, c.exactMatch, c.segments), func(t *testing.T) {
			h := Recipe()
			h.Pool, h.Dropout, h.BatchTokens, h.ExactMatch, h.Segments = c.pool, 0, 30, c.exactMatch, c.segments
			m := mustNew(t, h, encodertest.USELite(t, 2))
			if m.match != nil {
				randomize(m.match, 2)
			}
			if m.segment != nil {
				randomize(m.segment, 4)
			}
			if m.query != nil { // away from zero, where the weights are uniform
				randomize(m.query, 3)
			}
			q := encodertest.Question()
			in := m.prepare(q)
			loss := func(g *nn.Grads[float32]) float64 {
				tp := nn.NewTape(g, 0)
				l := tp.KLDiv(m.forward(tp, in, false), []float32{0, 1, 0, 0})
				if g != nil {
					tp.Backward(l)
				}
				return l.Scalar()
			}
			g := m.Params().NewGrads()
			loss(g)
			if m.match != nil && !slices.ContainsFunc(g.Of(m.match).Data, func(v float32) bool { return v != 0 }) {
				t.Error("no gradient reaches the exact-match table: the question shares no piece with a candidate")
			}
			if m.segment != nil && !slices.ContainsFunc(g.Of(m.segment).Data, func(v float32) bool { return v != 0 }) {
				t.Error("no gradient reaches the segment row")
			}
			checkGradients(t, m, g, loss)
		})
	}
}

// Attention pooling starts as mean pooling: its query is zero, so every
// position weighs the same; once the query moves, the scores do too, and
// the model file keeps it.
func TestAttentionPoolStartsAsMean(t *testing.T) {
	enc := encodertest.USELite(t, 2)
	h := Recipe()
	mean := mustNew(t, h, enc)
	h.Pool = PoolAttention
	att := mustNew(t, h, encodertest.USELite(t, 2))
	q := encodertest.LongQuestion(7)
	want := scores(t, mean, q)
	got := scores(t, att, q)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-5 {
			t.Fatalf("attention pooling at zero scores %v, mean pooling %v", got, want)
		}
	}
	randomize(att.query, 4)
	moved := scores(t, att, q)
	if reflect.DeepEqual(moved, got) {
		t.Fatal("a non-zero query leaves the scores as they were")
	}
	if got := scores(t, modeltest.RoundTrip(t, att), q); !reflect.DeepEqual(got, moved) {
		t.Fatalf("read back: %v, want %v", got, moved)
	}
}

// checkGradients compares g, the gradients loss(g) left, with central
// finite differences of loss(nil) on a random sample of each parameter's
// entries. USE-Lite and BERT are float32 models, so the check is in
// float32: a step of 2e-3 and a tolerance relative to the largest
// gradient of each parameter. An entry whose step crosses a kink of
// USE-Lite's ReLU, where the loss has no derivative, shows as one-sided
// differences that disagree, by more than twice the tolerance, or by more
// than it with the gradient matching one side (the side whose step
// crosses no kink); it is counted as a kink, not checked.
// A wrong gradient leaves the sides in agreement and matches neither.
// (At encoder.layer0.qkv.bias[16] of the exact-match and segments case
// the sides are -0.0045 and -0.0093, for a gradient of -0.0096, a central
// difference of -0.0069 and a tolerance of 0.0025.)
func checkGradients(t *testing.T, m *Model, g *nn.Grads[float32], loss func(*nn.Grads[float32]) float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	checked, kinks := 0, 0
	at := loss(nil)
	for _, p := range m.Params().All() {
		grad := g.Of(p).Data
		scale := 1e-3
		for _, v := range grad {
			scale = max(scale, math.Abs(float64(v)))
		}
		for k := 0; k < 4; k++ {
			i := rng.IntN(len(p.Value.Data))
			old := p.Value.Data[i]
			const eps = 2e-3
			p.Value.Data[i] = old + eps
			up := loss(nil)
			p.Value.Data[i] = old - eps
			down := loss(nil)
			p.Value.Data[i] = old
			fd := (up - down) / (2 * eps)
			right, left := (up-at)/eps, (at-down)/eps
			// The loss is float32: a few ulps of its rounding, which the
			// kernel paths order differently (AVX-512 sums 16 lanes),
			// over eps are noise in the finite difference.
			ulp := float64(math.Nextafter32(float32(math.Abs(at)), float32(math.Inf(1))) - float32(math.Abs(at)))
			tol := 2e-2*scale + max(1e-4, 8*ulp/eps)
			near := func(x float64) bool { return math.Abs(x-float64(grad[i])) <= tol }
			switch {
			case near(fd):
				checked++
			case math.Abs(right-left) > 2*tol, math.Abs(right-left) > tol && (near(right) || near(left)):
				kinks++
			default:
				t.Errorf("%s[%d]: gradient %.6g, finite difference %.6g (one-sided %.6g, %.6g)", p.Name, i, grad[i], fd, right, left)
			}
		}
	}
	if checked < 40 || kinks > checked/10 {
		t.Errorf("%d entries checked, %d skipped at a kink", checked, kinks)
	}
}

// TestRecomputedForward: a training question past recomputeTokens drops
// its buckets' activations and runs them again in the backward. Without
// dropout it gives the loss and gradients of the one-pass forward; with
// dropout its gradients match finite differences of the loss, which they
// do only if the second pass draws the first pass's masks.
func TestRecomputedForward(t *testing.T) {
	defer func(v int) { recomputeTokens = v }(recomputeTokens)
	q := encodertest.LongQuestion(7)
	target := make([]float32, len(q.Candidates))
	target[2] = 1
	run := func(m *Model, threshold int) (float64, *nn.Grads[float32], func(*nn.Grads[float32]) float64) {
		in := m.prepare(q)
		loss := func(g *nn.Grads[float32]) float64 {
			recomputeTokens = threshold
			tp := nn.NewTape(g, 0)
			l := tp.KLDiv(m.forward(tp, in, false), target)
			if g != nil {
				tp.Backward(l)
			}
			return l.Scalar()
		}
		g := m.Params().NewGrads()
		return loss(g), g, loss
	}
	h := Recipe()
	h.Dropout, h.BatchTokens = 0, 30
	m := mustNew(t, h, encodertest.USELite(t, 2))
	if n := len(buckets(m.prepare(q).seqs, h.BatchTokens)); n < 3 {
		t.Fatalf("%d buckets: the question should span several", n)
	}
	once, gOnce, _ := run(m, math.MaxInt)
	again, gAgain, _ := run(m, 0)
	if math.Abs(once-again) > 1e-6*math.Max(1, math.Abs(once)) {
		t.Errorf("loss %v recomputed, %v in one pass", again, once)
	}
	for _, p := range m.Params().All() {
		a, b := gOnce.Of(p).Data, gAgain.Of(p).Data
		scale := 1e-6
		for _, v := range a {
			scale = max(scale, math.Abs(float64(v)))
		}
		for i := range a {
			if d := math.Abs(float64(a[i] - b[i])); d > 1e-4*scale+1e-6 {
				t.Fatalf("%s[%d]: gradient %v recomputed, %v in one pass", p.Name, i, b[i], a[i])
			}
		}
	}

	h.Dropout = 0.3
	m = mustNew(t, h, encodertest.USELite(t, 2))
	_, g, loss := run(m, 0)
	checkGradients(t, m, g, loss)
}

// countdown is a context that is done after its Err has said nil n times:
// it cancels a request in the middle of scoring, deterministically.
type countdown struct {
	context.Context
	n    atomic.Int64
	done chan struct{}
}

func (c *countdown) Done() <-chan struct{} { return c.done }

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// TestScoreHonoursDeadline: a request whose deadline passes while its
// padded batches are scored gets the context's error, not scores.
func TestScoreHonoursDeadline(t *testing.T) {
	m := mustNew(t, Recipe(), encodertest.USELite(t, 1))
	m.hyper.BatchTokens = 40 // many buckets
	q := encodertest.LongQuestion(40)
	if _, err := m.Score(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	for _, after := range []int64{3, 6} {
		ctx := &countdown{Context: context.Background(), done: make(chan struct{})}
		ctx.n.Store(after)
		if _, err := m.Score(ctx, q); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("deadline after %d checks: error %v", after, err)
		}
	}
}

// A checkpoint folder ranks as it is: LoadHF is the model as2 import hf
// writes, and a checkpoint without a classifier is refused with a hint.
func TestLoadHF(t *testing.T) {
	dir := encodertest.BERTDir(t)
	m, err := LoadHF(dir)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := bert.LoadEncoder(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := mustNew(t, Recipe(), enc).Score(context.Background(), encodertest.Question())
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Score(context.Background(), encodertest.Question())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("LoadHF scores %v, the imported model %v", got, want)
	}
	if err := os.Remove(filepath.Join(dir, "model.safetensors")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHF(dir); err == nil || !strings.Contains(err.Error(), "model.safetensors") {
		t.Fatalf("a folder without weights: %v", err)
	}
}

// bertEncoder is the tiny BERT checkpoint's encoder.
func bertEncoder(t *testing.T) *bert.Encoder {
	t.Helper()
	enc, err := bert.LoadEncoder(encodertest.BERTDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return enc
}
