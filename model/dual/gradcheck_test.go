package dual

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

// inBatchSoftmax is Eq. 1 over sim [B, B] at any float type, the mean
// over rows of −log softmax(row)_i: model.InBatchSoftmax's loss in the
// generic form the float64 checks need (model.SharedAnswerLoss with every
// answer distinct).
func inBatchSoftmax[T nn.Float](tp *nn.Tape[T], sim *nn.Var[T]) *nn.Var[T] {
	return model.SharedAnswerLoss(tp, sim, nil)
}

// TestGradOps checks the differentiable pieces of the package against
// finite differences: Eq. 1's in-batch softmax, Eq. 11's neighbour KL, GAM
// (Eq. 12) with and without the stop-gradient, the multi-hop attention
// with Lin's penalty, and the cross-attention refinement (Eq. 2-4).
func TestGradOps(t *testing.T) {
	w := gamWeights{AQ: 0.5, QA: 0.7, QQ: 1.3, AA: 0.9}
	pooled := func(penalty bool) func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
		return func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
			h := RecipeHyper()
			h.Layer, h.Hidden, h.Hops, h.AttnHidden = "lstm", 4, 3, 5
			p := newPooler[float64](h, ps, "pool", nil, rng)
			return func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
				v, pen := p.forward(tp, in[0], penalty)
				if pen != nil {
					return tp.Concat(v, pen)
				}
				return v
			}
		}
	}
	nntest.Run(t, []nntest.Case{
		{Name: "InBatchSoftmax", Inputs: [][]int{{4, 4}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			return inBatchSoftmax(tp, in[0])
		})},
		{Name: "SharedAnswerSoftmax", Inputs: [][]int{{4, 4}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			return model.SharedAnswerLoss(tp, in[0], []string{"x", "y", "x", "x"})
		})},
		{Name: "NeighbourKL", Inputs: [][]int{{3, 3}, {3, 3}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			return neighbourKL(tp, in[0], in[1])
		})},
		{Name: "GAM", Inputs: [][]int{{3, 4}, {3, 4}, {3, 5}, {3, 5}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			return gam(tp, in[0], in[1], in[2], in[3], w, false)
		})},
		{Name: "GAMTemperature", Inputs: [][]int{{3, 4}, {3, 4}, {3, 5}, {3, 5}}, Build: nntest.Op(func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
			wt := w
			wt.Temp, wt.DualTemp = 3, 0.5
			return gam(tp, in[0], in[1], in[2], in[3], wt, false)
		})},
		// With the stop, the cross embeddings are constants: the gradient
		// is the dual side's alone.
		{Name: "GAMStopGrad", Inputs: [][]int{{3, 4}, {3, 4}}, Build: func(_ *nn.Params[float64], rng *rand.Rand) nntest.Forward {
			qc, ac := nn.NewTensor[float64](3, 5), nn.NewTensor[float64](3, 5)
			for i := range qc.Data {
				qc.Data[i], ac.Data[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			return func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
				return gam(tp, in[0], in[1], tp.Leaf(qc), tp.Leaf(ac), w, true)
			}
		}},
		{Name: "MultiHopAttention", Inputs: [][]int{{5, 4}}, Build: pooled(false)},
		{Name: "MultiHopAttentionPenalty", Inputs: [][]int{{5, 4}}, Build: pooled(true)},
		{Name: "CrossRefine", Inputs: [][]int{{3, 4}, {5, 4}}, Build: func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
			attn := nn.NewMultiHeadAttention(ps, "attn", 4, 2, rng)
			ffn := nn.NewFeedForward(ps, "ffn", 4, 6, nn.ActGELU, rng)
			norm := nn.NewLayerNorm(ps, "norm", 4)
			norm.Eps = 1e-6
			return func(tp *nn.Tape[float64], in []*nn.Var[float64]) *nn.Var[float64] {
				return refine(tp, attn, ffn, norm, in[0], in[1])
			}
		}},
	})
}

// tinyHypers covers the layers, both aggregators, shared and separate
// towers, and ENDX with and without the stop-gradient, at tiny sizes.
func tinyHypers() map[string]Hyper {
	base := RecipeHyper()
	base.Hidden, base.Hops, base.AttnHidden, base.CrossHeads, base.Heads = 2, 2, 3, 2, 2
	base.Penalty = 0.3
	hs := map[string]Hyper{}
	add := func(name string, edit func(h *Hyper)) {
		h := base
		edit(&h)
		hs[name] = h
	}
	add("bilstm-attention", func(h *Hyper) {})
	add("gru-mean-shared", func(h *Hyper) { h.Layer, h.Pool, h.Shared, h.Hidden = "gru", PoolMean, true, 3 })
	add("rnn-attention-shared", func(h *Hyper) { h.Layer, h.Shared, h.Hidden = "rnn", true, 3 })
	add("transformer", func(h *Hyper) { h.Layer, h.Hidden, h.TLayers = "transformer", 4, 2 })
	add("endx-bilstm", func(h *Hyper) { h.ENDX = true })
	add("endx-shared-mean", func(h *Hyper) { h.ENDX, h.Shared, h.Pool = true, true, PoolMean })
	add("endx-transformer", func(h *Hyper) { h.ENDX, h.Layer, h.Hidden, h.TLayers, h.Ramp = true, "transformer", 4, 1, 0 })
	return hs
}

// tinyPairs are (question, answer) pairs over the tiny vocabulary, the
// empty sentence among them.
func tinyPairs() [][2]string {
	return [][2]string{
		{"Who wrote Hamlet?", "Shakespeare wrote it."},
		{"Is Hamlet a tragedy?", "Hamlet is a tragedy."},
		{"Where is Hamlet?", "Denmark"},
		{"who", ""},
	}
}

// TestGradients checks the real forward pass and in-batch loss at float64
// against finite differences, for every configuration of tinyHypers: the
// towers, the aggregators with Lin's penalty, and with ENDX the cross side
// and GAM mid-ramp (epoch 2 of 5). Word dropout stays on: both passes draw
// the same masks. The stop-gradient is not a gradient of the loss, so
// TestStopGrad checks it instead.
func TestGradients(t *testing.T) {
	for name, h := range tinyHypers() {
		h.WordDropout = 0.1
		n, err := newNet(h, encodertest.Static[float64](t), 3)
		if err != nil {
			t.Fatal(name, err)
		}
		var batch []*pair[float64]
		for _, p := range tinyPairs() {
			batch = append(batch, &pair[float64]{q: n.sentence(p[0]), a: n.sentence(p[1])})
		}
		nntest.CheckParams(t, name, n.ps, func(tp *nn.Tape[float64]) *nn.Var[float64] {
			tp.SetTrain(true)
			return n.batchLoss(tp, batch, func(s *nn.Var[float64]) *nn.Var[float64] { return inBatchSoftmax(tp, s) }, 2)
		})
	}
}

// TestGradientsSharedAnswer checks ENDX's loss at float64 against finite
// differences on a batch in which two questions share an answer, under
// the shared-answer softmax (model.SharedAnswerLoss) on both sides.
func TestGradientsSharedAnswer(t *testing.T) {
	h := tinyHypers()["endx-bilstm"]
	n, err := newNet(h, encodertest.Static[float64](t), 3)
	if err != nil {
		t.Fatal(err)
	}
	ps := append(tinyPairs(), [2]string{"What did Shakespeare write?", "Shakespeare wrote it."})
	var batch []*pair[float64]
	answers := make([]string, len(ps))
	for i, p := range ps {
		batch = append(batch, &pair[float64]{q: n.sentence(p[0]), a: n.sentence(p[1])})
		answers[i] = p[1]
	}
	nntest.CheckParams(t, "endx-shared-answer", n.ps, func(tp *nn.Tape[float64]) *nn.Var[float64] {
		return n.batchLoss(tp, batch, func(s *nn.Var[float64]) *nn.Var[float64] { return model.SharedAnswerLoss(tp, s, answers) }, 2)
	})
}

// batchGrads returns the float64 gradients of the tiny batch's loss under
// h, by parameter name.
func batchGrads(t *testing.T, h Hyper) map[string][]float64 {
	t.Helper()
	n, err := newNet(h, encodertest.Static[float64](t), 3)
	if err != nil {
		t.Fatal(err)
	}
	var batch []*pair[float64]
	for _, p := range tinyPairs() {
		batch = append(batch, &pair[float64]{q: n.sentence(p[0]), a: n.sentence(p[1])})
	}
	g := n.ps.NewGrads()
	tp := nn.NewTape(g, 1)
	tp.Backward(n.batchLoss(tp, batch, func(s *nn.Var[float64]) *nn.Var[float64] { return inBatchSoftmax(tp, s) }, 2))
	out := map[string][]float64{}
	for _, p := range n.ps.All() {
		out[p.Name] = append([]float64(nil), g.Of(p).Data...)
	}
	return out
}

// TestStopGrad checks --gam-stop-grad exactly: the dual side's gradients
// are those without it (GAM's gradient into the dual side is the same),
// and the cross side's are those of the loss without GAM.
func TestStopGrad(t *testing.T) {
	h := tinyHypers()["endx-bilstm"]
	h.StopGrad = true
	stopped := batchGrads(t, h)
	h.StopGrad = false
	full := batchGrads(t, h)
	h.AlphaGA = 0
	noGAM := batchGrads(t, h)
	crossMoved := false
	for name, g := range stopped {
		want := full[name]
		if strings.HasPrefix(name, "cross.") {
			want = noGAM[name]
			for i := range g {
				crossMoved = crossMoved || math.Abs(full[name][i]-g[i]) > 1e-9
			}
		}
		nntest.Close(t, name, g, want, 1e-12)
	}
	if !crossMoved {
		t.Error("GAM gives the cross side no gradient even without the stop")
	}
}

// headEncoder is a float64 encoder with weights and a sentence head, for
// the gradient checks of fine-tuning: encodertest's projected vectors, and
// USE-Lite's kind of head (the mean, a tanh layer, l2 normalisation),
// whose weights are the encoder's too.
type headEncoder struct {
	*encodertest.Projected[float64]
	head *nn.Linear[float64]
}

func newHeadEncoder(t *testing.T) *headEncoder {
	e := &headEncoder{Projected: encodertest.NewProjected[float64](t)}
	e.head = nn.NewLinear(e.Params(), "head", e.Dim(), e.Dim(), true, nn.NewRNG(6))
	return e
}

func (e *headEncoder) Sentence(tp *nn.Tape[float64], x *nn.Var[float64]) *nn.Var[float64] {
	return tp.RowNormalize(tp.Tanh(e.head.Forward(tp, tp.MeanPool(x))))
}

// TestGradientsFineTune checks the fine-tuned encoder's gradients: the
// encoder's own weights (adopted as encoder.*) and its sentence head,
// under the in-batch scale, alone and with ENDX (its cross side unscaled
// and scaled).
func TestGradientsFineTune(t *testing.T) {
	for name, edit := range map[string]func(h *Hyper){
		"dual": func(h *Hyper) {},
		"endx": func(h *Hyper) { h.ENDX, h.CrossHeads, h.Ramp = true, 2, 0 },
		"endx, cross side scaled": func(h *Hyper) {
			h.ENDX, h.CrossHeads, h.Ramp, h.CrossScale, h.GAMTemp = true, 2, 0, 5, 1
		},
	} {
		h := RecipeHyper()
		h.Layer, h.Pool, h.FineTune, h.Scale = LayerNone, PoolEncoder, true, 3
		edit(&h)
		n, err := newNet[float64](h, newHeadEncoder(t), 3)
		if err != nil {
			t.Fatal(name, err)
		}
		if n.ps.Get(encoder.TensorPrefix+"proj.weight") == nil {
			t.Fatalf("%s: the encoder's weights were not adopted: %v", name, n.ps.All())
		}
		var batch []*pair[float64]
		for _, p := range tinyPairs() {
			batch = append(batch, &pair[float64]{q: n.sentence(p[0]), a: n.sentence(p[1])})
		}
		if batch[0].q.States != nil {
			t.Fatalf("%s: a fine-tuned encoder's states were frozen", name)
		}
		nntest.CheckParams(t, name, n.ps, func(tp *nn.Tape[float64]) *nn.Var[float64] {
			tp.SetTrain(true)
			return n.batchLoss(tp, batch, func(s *nn.Var[float64]) *nn.Var[float64] { return inBatchSoftmax(tp, s) }, 2)
		})
	}
}

// TestGAMTemperature checks that the temperatures divide each side's inner
// products and nothing else: GAM at temperatures T (cross) and D (dual)
// equals GAM at 1 with the cross-embeddings scaled by 1/√T and the dual ones
// by 1/√D.
func TestGAMTemperature(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mat := func(r, c int, s float64) *nn.Tensor[float64] {
		m := nn.NewTensor[float64](r, c)
		for i := range m.Data {
			m.Data[i] = s * rng.NormFloat64()
		}
		return m
	}
	qd, ad, qc, ac := mat(4, 3, 1), mat(4, 3, 1), mat(4, 5, 3), mat(4, 5, 3)
	scaled := func(m *nn.Tensor[float64], temp float64) *nn.Tensor[float64] {
		out := nn.NewTensor[float64](m.Dims())
		for i, v := range m.Data {
			out.Data[i] = v / math.Sqrt(temp)
		}
		return out
	}
	w := gamWeights{AQ: 0.5, QA: 0.7, QQ: 1.3, AA: 0.9}
	tp := nn.NewTape[float64](nil, 1)
	plain := gam(tp, tp.Const(qd), tp.Const(ad), tp.Const(qc), tp.Const(ac), w, false).Scalar()
	for _, c := range []struct{ cross, dual float64 }{{0.5, 1}, {4, 1}, {20, 1}, {1, 3}, {50, 50}} {
		wt := w
		wt.Temp, wt.DualTemp = c.cross, c.dual
		got := gam(tp, tp.Const(qd), tp.Const(ad), tp.Const(qc), tp.Const(ac), wt, false).Scalar()
		want := gam(tp, tp.Const(scaled(qd, c.dual)), tp.Const(scaled(ad, c.dual)),
			tp.Const(scaled(qc, c.cross)), tp.Const(scaled(ac, c.cross)), w, false).Scalar()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("temperatures %v: GAM %v, want %v (embeddings scaled by 1/√T)", c, got, want)
		}
		if math.Abs(plain-got) < 1e-9 {
			t.Errorf("temperatures %v change nothing: %v", c, got)
		}
	}
}

// TestCrossScale checks that --cross-scale multiplies the cross side's
// inner products in L_cross (Eq. 5) and in GAM's targets: with only L_cross
// weighted, the batch loss is the in-batch softmax of s·R_q^cross·R_a^crossᵀ,
// and the GAM term at cross scale s and temperature s is GAM unscaled.
func TestCrossScale(t *testing.T) {
	const s = 7
	h := RecipeHyper()
	h.Layer, h.Pool, h.FineTune, h.Scale = LayerNone, PoolEncoder, true, 3
	h.ENDX, h.CrossHeads, h.Ramp, h.GAMTemp = true, 2, 0, 1
	lossAt := func(h Hyper) (loss, want float64) {
		n, batch := perturbedNet(t, h)
		tp := nn.NewTape[float64](nil, 1)
		loss = n.batchLoss(tp, batch, func(v *nn.Var[float64]) *nn.Var[float64] { return inBatchSoftmax(tp, v) }, 1).Scalar()
		qx, ax := make([]*nn.Var[float64], len(batch)), make([]*nn.Var[float64], len(batch))
		for i, p := range batch {
			qx[i], ax[i] = n.tokens(tp, p.q), n.tokens(tp, p.a)
		}
		qc, ac, _ := n.x.embed(tp, false, qx, ax)
		return loss, inBatchSoftmax(tp, tp.Scale(tp.MatMulT(qc, ac), max(h.CrossScale, 1))).Scalar()
	}
	crossOnly := h
	crossOnly.AlphaDual, crossOnly.AlphaCross, crossOnly.AlphaGA = 0, 1, 0
	for _, cs := range []float64{0, s} {
		c := crossOnly
		c.CrossScale = cs
		if got, want := lossAt(c); math.Abs(got-want) > 1e-12 {
			t.Errorf("cross scale %v: L_cross %v, want %v", cs, got, want)
		}
	}
	gaOnly := h
	gaOnly.AlphaDual, gaOnly.AlphaCross, gaOnly.AlphaGA = 0, 0, 1
	plain, _ := lossAt(gaOnly)
	gaOnly.CrossScale, gaOnly.GAMTemp = s, s
	if got, _ := lossAt(gaOnly); math.Abs(got-plain) > 1e-12 {
		t.Errorf("GAM at cross scale %v and temperature %v: %v, want %v (unscaled)", s, s, got, plain)
	}
	gaOnly.GAMTemp = 1
	if got, _ := lossAt(gaOnly); math.Abs(got-plain) < 1e-9 {
		t.Errorf("cross scale %v changes nothing in GAM: %v", s, got)
	}
}

// TestCrossResidual checks --cross-residual: at the start, with the cross
// side's scale the dual side's, the cross-embeddings are the dual ones, so
// L_cross equals L_dual and GAM's KL is 0; once the gates move off 0 they
// are not, and L_cross trains the gates and the cross side. The residual's
// dual part is a constant, which finite differences cannot see when the
// encoder trains, so the gradient check of the cross side's path runs over
// a frozen encoder, where the dual embeddings are constants anyway.
func TestCrossResidual(t *testing.T) {
	h := RecipeHyper()
	h.Layer, h.Pool, h.FineTune, h.Scale = LayerNone, PoolEncoder, true, 3
	h.ENDX, h.CrossHeads, h.Ramp, h.GAMTemp, h.CrossScale, h.CrossResidual = true, 2, 0, 1, 3, true
	weighted := func(n *net[float64], batch []*pair[float64], dual, cross, ga float64) float64 {
		n.hyper.AlphaDual, n.hyper.AlphaCross, n.hyper.AlphaGA = dual, cross, ga
		tp := nn.NewTape[float64](nil, 1)
		return n.batchLoss(tp, batch, func(v *nn.Var[float64]) *nn.Var[float64] { return inBatchSoftmax(tp, v) }, 1).Scalar()
	}
	n, err := newNet[float64](h, newHeadEncoder(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	var batch []*pair[float64]
	for _, p := range tinyPairs() {
		batch = append(batch, &pair[float64]{q: n.sentence(p[0]), a: n.sentence(p[1])})
	}
	if lc, ld := weighted(n, batch, 0, 1, 0), weighted(n, batch, 1, 0, 0); math.Abs(lc-ld) > 1e-12 {
		t.Errorf("at the start L_cross is %v, want L_dual %v", lc, ld)
	}
	if ga := weighted(n, batch, 0, 0, 1); math.Abs(ga) > 1e-12 {
		t.Errorf("at the start GAM's KL is %v, want 0", ga)
	}

	n, batch = perturbedNet(t, h) // gates off 0
	if ga := weighted(n, batch, 0, 0, 1); ga < 1e-9 {
		t.Errorf("with the gates open GAM's KL is %v, want > 0", ga)
	}
	if lc, ld := weighted(n, batch, 0, 1, 0), weighted(n, batch, 1, 0, 0); math.Abs(lc-ld) < 1e-9 {
		t.Errorf("with the gates open L_cross equals L_dual (%v)", lc)
	}
	n.hyper.AlphaDual, n.hyper.AlphaCross, n.hyper.AlphaGA = 0, 1, 0
	norm := squaredGrads(n, batch, func(name string) string {
		switch {
		case strings.HasSuffix(name, ".gate"):
			return "gate"
		case strings.HasPrefix(name, crossPrefix):
			return "cross"
		}
		return "dual"
	})
	if norm["gate"] == 0 || norm["cross"] == 0 {
		t.Errorf("L_cross trains neither the gates nor the cross side: %v", norm)
	}

	frozen := h
	frozen.FineTune, frozen.Ramp = false, 0
	n, err = newNet[float64](frozen, newHeadEncoder(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	batch = batch[:0]
	for _, p := range tinyPairs() {
		batch = append(batch, &pair[float64]{q: n.sentence(p[0]), a: n.sentence(p[1])})
	}
	nntest.CheckParams(t, "residual cross side", n.ps, func(tp *nn.Tape[float64]) *nn.Var[float64] {
		return n.batchLoss(tp, batch, func(s *nn.Var[float64]) *nn.Var[float64] { return inBatchSoftmax(tp, s) }, 2)
	})
}

// TestCrossDetach checks that --cross-detach keeps L_cross's gradient out of
// the layers of a fine-tuned encoder, and that without it L_cross trains them
// too. The encoder's sentence head is the cross side's pooler as well
// (--pool encoder), so it learns from L_cross either way.
func TestCrossDetach(t *testing.T) {
	for _, detach := range []bool{false, true} {
		h := RecipeHyper()
		h.Layer, h.Pool, h.FineTune, h.Scale = LayerNone, PoolEncoder, true, 3
		h.ENDX, h.CrossHeads, h.Ramp, h.CrossDetach = true, 2, 0, detach
		h.AlphaDual, h.AlphaCross, h.AlphaGA = 0, 1, 0
		n, batch := perturbedNet(t, h)
		norm := squaredGrads(n, batch, func(name string) string {
			switch {
			case strings.HasPrefix(name, encoder.TensorPrefix+"head."):
				return "head"
			case strings.HasPrefix(name, encoder.TensorPrefix):
				return "encoder"
			case strings.HasPrefix(name, crossPrefix):
				return "cross"
			}
			return "other"
		})
		if norm["cross"] == 0 || norm["head"] == 0 {
			t.Errorf("detach %v: L_cross trains neither the cross side's layers nor its pooler: %v", detach, norm)
		}
		if got := norm["encoder"] != 0; got == detach {
			t.Errorf("detach %v: the encoder layers' squared gradient norm from L_cross is %v", detach, norm["encoder"])
		}
	}
}

// squaredGrads returns the squared norm of the batch loss's gradient (a
// training pass, after one epoch) over the parameters of each part, as
// part names them.
func squaredGrads(n *net[float64], batch []*pair[float64], part func(name string) string) map[string]float64 {
	grads := n.ps.NewGrads()
	tp := nn.NewTape(grads, 7)
	tp.SetTrain(true)
	tp.Backward(n.batchLoss(tp, batch, func(v *nn.Var[float64]) *nn.Var[float64] { return inBatchSoftmax(tp, v) }, 1))
	norm := map[string]float64{}
	for _, p := range n.ps.All() {
		for _, g := range grads.Of(p).Data {
			norm[part(p.Name)] += g * g
		}
	}
	return norm
}

// perturbedNet is the network of h over the tiny encoder with a sentence
// head, every parameter moved a little off its start (where a
// cross-embedding can be the zero vector that the head normalises), and
// the tiny pairs as a batch.
func perturbedNet(t *testing.T, h Hyper) (*net[float64], []*pair[float64]) {
	t.Helper()
	n, err := newNet[float64](h, newHeadEncoder(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range n.ps.All() {
		for i := range p.Value.Data {
			p.Value.Data[i] += 0.1 * rng.NormFloat64()
		}
	}
	var batch []*pair[float64]
	for _, p := range tinyPairs() {
		batch = append(batch, &pair[float64]{q: n.sentence(p[0]), a: n.sentence(p[1])})
	}
	return n, batch
}
