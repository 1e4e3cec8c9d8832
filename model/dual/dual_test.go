package dual

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/index"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/modeltest"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

// tiny builds a model over the tiny vectors, failing t on an error.
func tiny(t testing.TB, h Hyper, seed uint64) *Model {
	t.Helper()
	return encodertest.Model(t, New, h, seed)
}

// TestSettings checks that as2's recipe and the paper's settings build.
func TestSettings(t *testing.T) {
	for name, h := range map[string]Hyper{"recipe": RecipeHyper(), "paper": PaperHyper()} {
		m := tiny(t, h, 1)
		if m.Dim() != h.Hops*2*h.Hidden {
			t.Errorf("%s: vectors of %d", name, m.Dim())
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Hyper)
		want string
	}{
		{"layer", func(h *Hyper) { h.Layer = "cnn" }, "layer"},
		{"hidden", func(h *Hyper) { h.Hidden = 0 }, "hidden size"},
		{"pool", func(h *Hyper) { h.Pool = "max" }, "pool"},
		{"hops", func(h *Hyper) { h.Hops = 0 }, "hops"},
		{"attention", func(h *Hyper) { h.AttnHidden = -1 }, "attention hidden"},
		{"penalty NaN", func(h *Hyper) { h.Penalty = math.NaN() }, "penalty"},
		{"dropout", func(h *Hyper) { h.WordDropout = 1 }, "dropout"},
		{"transformer heads", func(h *Hyper) { h.Layer, h.Hidden, h.Heads = "transformer", 6, 4 }, "heads"},
		{"transformer layers", func(h *Hyper) { h.Layer, h.TLayers = "transformer", 0 }, "layers"},
		{"cross heads", func(h *Hyper) { h.ENDX, h.Hidden, h.CrossHeads = true, 5, 3 }, "cross-attention heads"},
		{"alpha", func(h *Hyper) { h.AlphaQQ = -1 }, "loss weight"},
		{"ramp", func(h *Hyper) { h.Ramp = math.Inf(1) }, "ramp"},
		{"gam start", func(h *Hyper) { h.GAMStart = -1 }, "GAM start -1"},
		{"encoder", func(h *Hyper) { h.Encoder = "use-lite" }, "encoder"},
		{"pool encoder over a layer", func(h *Hyper) { h.Pool = PoolEncoder }, "needs layer none"},
		{"no sentence head", func(h *Hyper) { h.Layer, h.Pool = LayerNone, PoolEncoder }, "static encoder has no sentence head"},
		{"nothing to fine-tune", func(h *Hyper) { h.FineTune = true }, "no weights to train"},
		{"scale", func(h *Hyper) { h.Scale = -1 }, "scale"},
		{"cross scale", func(h *Hyper) { h.CrossScale = math.Inf(1) }, "cross scale"},
		{"cross learning-rate scale", func(h *Hyper) { h.CrossLRScale = -1 }, "cross learning-rate scale"},
		{"GAM temperature", func(h *Hyper) { h.GAMTemp = math.NaN() }, "GAM temperature"},
		{"GAM dual temperature", func(h *Hyper) { h.GAMDualTemp = -1 }, "GAM dual temperature"},
		{"residual without ENDX", func(h *Hyper) { h.CrossResidual = true }, "only ENDX has a cross side"},
		{"detach without ENDX", func(h *Hyper) { h.CrossDetach = true }, "only ENDX has a cross side"},
		{"nothing to train", func(h *Hyper) { h.Layer, h.Pool = LayerNone, PoolMean }, "no weights to train"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := RecipeHyper()
			c.edit(&h)
			_, err := New(h, encodertest.Static[float32](t), 1)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one about %q", err, c.want)
			}
		})
	}
}

// TestScoreIsInnerProduct checks that ranking scores a candidate by the
// inner product of the vectors the index would hold, for every
// configuration, and that the vectors have Dim values.
func TestScoreIsInnerProduct(t *testing.T) {
	ctx := context.Background()
	for name, h := range tinyHypers() {
		m := tiny(t, h, 5)
		q := encodertest.Question()
		scores, err := m.Score(ctx, q)
		if err != nil {
			t.Fatal(name, err)
		}
		enc := Encoder{M: m}
		qv, err := enc.EncodeQuestion(ctx, q.Text)
		if err != nil {
			t.Fatal(name, err)
		}
		var texts []string
		for _, c := range q.Candidates {
			texts = append(texts, c.Text)
		}
		avs, err := enc.EncodeAnswers(ctx, texts)
		if err != nil {
			t.Fatal(name, err)
		}
		if len(qv) != m.Dim() || len(avs) != len(texts) {
			t.Fatalf("%s: question vector of %d, want %d; %d answer vectors", name, len(qv), m.Dim(), len(avs))
		}
		want := make([]float64, len(avs))
		for i, a := range avs {
			if len(a) != m.Dim() {
				t.Fatalf("%s: answer vector of %d, want %d", name, len(a), m.Dim())
			}
			for j := range a {
				want[i] += float64(a[j]) * float64(qv[j])
			}
		}
		nntest.Close(t, name, scores, want, 1e-4)
	}
}

// TestRetrieve builds a Flat index with the model's Encoder and checks
// that a retriever's scores are the ranker's.
func TestRetrieve(t *testing.T) {
	ctx := context.Background()
	m := tiny(t, tinyHypers()["bilstm-attention"], 2)
	q := encodertest.Question()
	x, err := index.NewFlat(m.Dim())
	if err != nil {
		t.Fatal(err)
	}
	var ids, texts []string
	for _, c := range q.Candidates {
		ids, texts = append(ids, c.ID), append(texts, c.Text)
	}
	done := 0
	enc := Encoder{M: m, Progress: func(n int) { done = n }}
	if err := index.Build(ctx, enc, x, ids, texts); err != nil {
		t.Fatal(err)
	}
	if done != len(texts) {
		t.Errorf("progress reported %d, want %d", done, len(texts))
	}
	hits, err := index.NewRetriever[[]float32, []float32](enc, x).Retrieve(ctx, q.Text, len(ids))
	if err != nil {
		t.Fatal(err)
	}
	scores, err := m.Score(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		var i int
		for i = range ids {
			if ids[i] == h.ID {
				break
			}
		}
		if math.Abs(h.Score-scores[i]) > 1e-4 {
			t.Errorf("answer %s: retrieved with %v, ranked with %v", h.ID, h.Score, scores[i])
		}
	}
}

// TestInBatchLossMatchesObjective checks that the float32 training loss
// of a plain dual encoder is model.InBatchSoftmax, which the package's own
// float64 form (the gradient checks') equals.
func TestInBatchLossMatchesObjective(t *testing.T) {
	m := tiny(t, tinyHypers()["bilstm-attention"], 4)
	m.hyper.Penalty = 0
	var batch []model.PairInput
	for _, p := range tinyPairs() {
		batch = append(batch, m.PreparePair(model.Pair{Question: p[0], Answer: p[1]}))
	}
	tp := nn.NewTape[float32](nil, 1)
	got, err := m.InBatchLoss(tp, batch, model.InBatchSoftmax, 0)
	if err != nil {
		t.Fatal(err)
	}
	ps := make([]*pair[float32], len(batch))
	for i, b := range batch {
		ps[i] = b.(*pair[float32])
	}
	want := m.batchLoss(tp, ps, func(s *nn.Var[float32]) *nn.Var[float32] { return inBatchSoftmax(tp, s) }, 0)
	nntest.Close(t, "loss", []float64{got.Scalar()}, []float64{want.Scalar()}, 1e-5)
	if _, err := m.InBatchLoss(tp, nil, model.InBatchSoftmax, 0); err == nil {
		t.Error("an empty batch gave no error")
	}
	if _, err := m.InBatchLoss(tp, []model.PairInput{"x"}, model.InBatchSoftmax, 0); err == nil {
		t.Error("a foreign input gave no error")
	}
}

// TestRamp checks the α schedule of section 4.4: linear from 0 over the
// first Ramp epochs, then constant.
func TestRamp(t *testing.T) {
	h := PaperHyper()
	for _, c := range []struct{ epoch, aq, qq float64 }{
		{0, 0, 0}, {1, 0.1, 2e3}, {2.5, 0.25, 5e3}, {5, 0.5, 1e4}, {7, 0.5, 1e4},
	} {
		w := h.gamWeights(c.epoch)
		if math.Abs(w.AQ-c.aq) > 1e-12 || math.Abs(w.QA-c.aq) > 1e-12 || math.Abs(w.QQ-c.qq) > 1e-9 || math.Abs(w.AA-c.qq) > 1e-9 {
			t.Errorf("epoch %v: weights %+v, want a|q %v, q|q %v", c.epoch, w, c.aq, c.qq)
		}
	}
	h.Ramp = 0
	if w := h.gamWeights(0); w.AQ != h.AlphaAQ {
		t.Errorf("no ramp: α_a|q %v at epoch 0, want %v", w.AQ, h.AlphaAQ)
	}
	// Started after an epoch, over half an epoch.
	h.GAMStart, h.Ramp = 1, 0.5
	for _, c := range []struct{ epoch, aq float64 }{{0, 0}, {0.99, 0}, {1, 0}, {1.25, 0.25}, {1.5, 0.5}, {3, 0.5}} {
		if w := h.gamWeights(c.epoch); math.Abs(w.AQ-c.aq) > 1e-12 {
			t.Errorf("start 1, ramp 0.5, epoch %v: α_a|q %v, want %v", c.epoch, w.AQ, c.aq)
		}
	}
}

// TestSaveLoad round-trips every configuration through a model file.
func TestSaveLoad(t *testing.T) {
	ctx := context.Background()
	for name, h := range tinyHypers() {
		m := tiny(t, h, 7)
		back := modeltest.RoundTrip(t, m)
		got, ok := back.(*Model)
		if !ok {
			t.Fatalf("%s: read a %T", name, back)
		}
		q := encodertest.Question()
		want, _ := m.Score(ctx, q)
		have, err := got.Score(ctx, q)
		if err != nil {
			t.Fatal(name, err)
		}
		nntest.Close(t, name, have, want, 0)
		if got.Hyper() != m.Hyper() {
			t.Errorf("%s: hyperparameters %+v, want %+v", name, got.Hyper(), m.Hyper())
		}
	}
}

// TestUSELiteEncoder runs a dual encoder over USE-Lite's token states
// (frozen, computed once per sentence) through training and a model file.
func TestUSELiteEncoder(t *testing.T) {
	h := tinyHypers()["bilstm-attention"]
	h.Encoder = ""
	m, err := New(h, encodertest.USELite(t, 1), 2)
	if err != nil {
		t.Fatal(err)
	}
	var batch []model.PairInput
	for _, p := range tinyPairs() {
		batch = append(batch, m.PreparePair(model.Pair{Question: p[0], Answer: p[1]}))
	}
	tp := nn.NewTape(m.ps.NewGrads(), 1)
	l, err := m.InBatchLoss(tp, batch, model.InBatchSoftmax, 0)
	if err != nil {
		t.Fatal(err)
	}
	tp.Backward(l)
	back := modeltest.RoundTrip(t, m)
	q := encodertest.Question()
	want, _ := m.Score(context.Background(), q)
	got, err := back.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	nntest.Close(t, "scores", got, want, 1e-6)
}

// TestUSELiteFineTune checks the fine-tuned USE-Lite dual encoder: before
// training its vectors are USE-Lite's own sentence vectors (the zero-shot
// retriever's), a training step moves the encoder's weights, and a model
// file keeps the moved weights.
func TestUSELiteFineTune(t *testing.T) {
	ctx := context.Background()
	enc := encodertest.USELite(t, 1)
	texts := []string{"Who wrote Hamlet?", "Hamlet is a tragedy."}
	zeroShot := enc.Embed(texts)
	h := RecipeHyper()
	h.Layer, h.Pool, h.FineTune, h.Scale, h.Encoder = LayerNone, PoolEncoder, true, 20, ""
	m, err := New(h, enc, 2)
	if err != nil {
		t.Fatal(err)
	}
	if enc.Params().Count() != 0 || m.Params().Count() == 0 {
		t.Fatalf("the model did not adopt the encoder's weights: encoder %d, model %d", enc.Params().Count(), m.Params().Count())
	}
	for _, question := range []bool{true, false} {
		got, err := m.Encode(ctx, texts, question, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			nntest.Close(t, texts[i], got[i], zeroShot[i], 1e-6)
		}
	}
	var batch []model.PairInput
	for _, p := range tinyPairs() {
		batch = append(batch, m.PreparePair(model.Pair{Question: p[0], Answer: p[1]}))
	}
	g := m.ps.NewGrads()
	tp := nn.NewTape(g, 1)
	tp.SetTrain(true)
	l, err := m.InBatchLoss(tp, batch, model.InBatchSoftmax, 0)
	if err != nil {
		t.Fatal(err)
	}
	tp.Backward(l)
	moved := 0
	for _, p := range m.ps.All() {
		for i, d := range g.Of(p).Data {
			if d != 0 && strings.HasPrefix(p.Name, "encoder.") {
				moved++
			}
			p.Value.Data[i] -= 0.1 * d
		}
	}
	if moved == 0 {
		t.Fatal("no gradient reached the encoder's weights")
	}
	back := modeltest.RoundTrip(t, m)
	want, err := m.Encode(ctx, texts, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.(*Model).Encode(ctx, texts, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	nntest.Close(t, "reloaded", got[1], want[1], 1e-6)
	if slices.Equal(want[1], zeroShot[1]) {
		t.Error("the step left the answer vector where it was")
	}
}

// TestLRScale checks that only the cross side's own layers get
// Hyper.CrossLRScale, and that 0 means 1.
func TestLRScale(t *testing.T) {
	for _, s := range []float64{0, 40} {
		h := RecipeHyper()
		h.ENDX, h.CrossLRScale = true, s
		m, err := New(h, encodertest.Static[float32](t), 1)
		if err != nil {
			t.Fatal(err)
		}
		cross := 0
		for _, p := range m.Params().All() {
			want := 1.0
			if strings.HasPrefix(p.Name, crossPrefix) {
				cross++
				want = max(s, 1)
			}
			if got := m.LRScale(p.Name); got != want {
				t.Errorf("scale %v: LRScale(%q) = %v, want %v", s, p.Name, got, want)
			}
		}
		if cross == 0 {
			t.Fatalf("no cross-side parameters among %v", m.Params().All())
		}
	}
}
