package has

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/modeltest"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/train"
)

// tinyHypers covers every mode at tiny sizes.
func tinyHypers() map[string]Hyper {
	hs := map[string]Hyper{}
	for _, mode := range Modes {
		h := PaperHyper()
		h.Mode, h.Hidden, h.AttnHidden = mode, 3, 4
		hs[mode] = h
	}
	return hs
}

// tiny builds a model over the tiny vectors, failing t on an error.
func tiny(t testing.TB, h Hyper, seed uint64) *Model {
	t.Helper()
	return encodertest.Model(t, New, h, seed)
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Hyper)
		want string
	}{
		{"mode", func(h *Hyper) { h.Mode = "max" }, "mode"},
		{"hidden", func(h *Hyper) { h.Hidden = 0 }, "hidden size"},
		{"attention", func(h *Hyper) { h.AttnHidden = -1 }, "attention hidden"},
		{"beta below 1", func(h *Hyper) { h.Beta = 0.5 }, "beta"},
		{"beta NaN", func(h *Hyper) { h.Beta = nan() }, "beta"},
		{"delta", func(h *Hyper) { h.Delta = -1 }, "delta"},
		{"dropout", func(h *Hyper) { h.WordDropout = 1 }, "dropout"},
		{"encoder", func(h *Hyper) { h.Encoder = "use-lite" }, "encoder"},
		{"layer", func(h *Hyper) { h.Layer = "gru" }, "layer"},
		{"fine-tuning static vectors", func(h *Hyper) { h.FineTune = true }, "no weights to train"},
		{"pooling with nothing to train", func(h *Hyper) { h.Mode, h.Layer = Pooling, LayerNone }, "no weights to train"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := PaperHyper()
			c.edit(&h)
			_, err := New(h, encodertest.Static[float32](t), 1)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one about %q", err, c.want)
			}
		})
	}
	if _, err := New(PaperHyper(), nil, 1); err == nil {
		t.Fatal("no error without an encoder")
	}
}

func nan() float64 { z := 0.0; return z / z }

// The registry builds the architecture from a recipe's typed values.
func TestRegistryRecipe(t *testing.T) {
	a, err := model.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	r := a.Recipe(false, model.TripletHinge{Margin: 0.1})
	h := r.Hyper.(*Hyper)
	h.Mode, h.Beta, h.Delta, h.Hidden, h.AttnHidden = Attention, 2, 1e-5, 3, 2
	m, err := a.New(r, encodertest.Static[float32](t))
	if err != nil {
		t.Fatal(err)
	}
	// The model records its encoder's kind, which the recipe leaves out.
	want := *h
	want.Encoder = "static"
	if got := m.(*Model).Hyper(); got != want {
		t.Fatalf("hyper %+v, want %+v", got, want)
	}
	h.Mode = "nope"
	if _, err := a.New(r, encodertest.Static[float32](t)); err == nil || !strings.Contains(err.Error(), `hyperparameters: mode "nope"`) {
		t.Fatalf("bad mode: %v", err)
	}
	if got := a.Describe(m); got != Attention {
		t.Fatalf("Describe %q", got)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	for name, h := range tinyHypers() {
		t.Run(name, func(t *testing.T) {
			m := tiny(t, h, 3)
			q := encodertest.Question()
			want, err := m.Score(context.Background(), q)
			if err != nil || len(want) != 4 {
				t.Fatal(want, err)
			}
			back := modeltest.RoundTrip(t, m)
			if got, err := back.Score(context.Background(), q); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("scores %v after loading, %v before", got, want)
			}
		})
	}
}

// At test time a hash-mode answer's states are ±1: its scores are those
// of the attention over sgn(V), which the float64 training path with a
// very large β reaches.
func TestHashInferenceIsBinary(t *testing.T) {
	h := tinyHypers()[Hash]
	h.WordDropout = 0
	n, err := newNet(h, encodertest.Static[float64](t), 3)
	if err != nil {
		t.Fatal(err)
	}
	// Moved off zero biases, so that no state is exactly 0 (an empty
	// sentence's would be, and tanh(0) = 0 is no sign).
	rng := nn.NewRNG(5)
	for _, p := range n.ps.All() {
		for i := range p.Value.Data {
			p.Value.Data[i] += 0.1 * rng.NormFloat64()
		}
	}
	in := n.prepare(encodertest.Question())
	tp := nn.NewTape[float64](nil, 1)
	want, _ := n.forward(tp, in, true)
	n.hyper.Beta = 1e9 // tanh(βx) is sgn(x) to float precision for these states
	got, jc := n.forward(tp, in, false)
	for i := range want.Value.Data {
		if d := want.Value.Data[i] - got.Value.Data[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("candidate %d: %v at test time, %v with β = 1e9", i, want.Value.Data[i], got.Value.Data[i])
		}
	}
	if jc == nil || len(jc.Value.Data) != 4 {
		t.Fatal("no constraints in training")
	}
}

// TestTrainTiny checks that every mode learns to put the answer first
// under the paper's triplet loss, and that hash-mode training keeps a
// code per training answer.
func TestTrainTiny(t *testing.T) {
	for name, h := range tinyHypers() {
		m := tiny(t, h, 3)
		qs := []dataset.Question{*encodertest.Question()}
		obj := model.TripletHinge{Margin: 0.1}
		if _, err := train.Train(context.Background(), m, qs, train.Options{Training: model.Training{Objective: obj, Epochs: 40, LR: 0.02}}); err != nil {
			t.Fatal(err)
		}
		s, err := m.Score(context.Background(), &qs[0])
		if err != nil {
			t.Fatal(err)
		}
		if s[1] <= s[0] || s[1] <= s[2] || s[1] <= s[3] {
			t.Errorf("%s: the answer is not ranked first after training: %v", name, s)
		}
		answers, flips := m.CodeStats()
		if h.Mode == Hash && (answers != 4 || flips < 0 || flips > 1) {
			t.Errorf("%s: %d codes (flip rate %v), want 4", name, answers, flips)
		}
		if h.Mode != Hash && answers != 0 {
			t.Errorf("%s: %d codes, want none", name, answers)
		}
	}
}

// Loss refuses an input another model prepared.
func TestLossForeignInput(t *testing.T) {
	m := tiny(t, tinyHypers()[Hash], 1)
	tp := nn.NewTape[float32](m.Params().NewGrads(), 1)
	if _, err := m.Loss(tp, &model.Prepared[int]{Q: encodertest.Question()}, model.TripletHinge{Margin: 0.1}); err == nil {
		t.Fatal("foreign input accepted")
	}
}

// TestUSELiteFineTune checks HAS over a fine-tuned encoder's own states
// (layer none, the paper's setting over BERT): D is the encoder's width,
// the model adopts the encoder's weights, a training step moves them, and
// a model file keeps the moved weights and scores as the model does.
func TestUSELiteFineTune(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{Hash, Attention} {
		enc := encodertest.USELite(t, 1)
		h := tinyHypers()[mode]
		h.Layer, h.FineTune = LayerNone, true
		m, err := New(h, enc, 2)
		if err != nil {
			t.Fatal(err)
		}
		adopted := 0
		for _, p := range m.Params().All() {
			if strings.HasPrefix(p.Name, encoder.TensorPrefix) {
				adopted++
			}
		}
		if m.Dim() != enc.Dim() || enc.Params().Count() != 0 || adopted == 0 {
			t.Fatalf("%s: D %d (encoder width %d); %d encoder weights left, %d tensors adopted", mode, m.Dim(), enc.Dim(), enc.Params().Count(), adopted)
		}
		q := encodertest.Question()
		before, err := m.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		g := m.Params().NewGrads()
		tp := nn.NewTape(g, 1)
		tp.SetTrain(true)
		l, err := m.Loss(tp, m.Prepare(q), model.TripletHinge{Margin: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		tp.Backward(l)
		moved := 0
		for _, p := range m.Params().All() {
			for i, d := range g.Of(p).Data {
				if d != 0 && strings.HasPrefix(p.Name, encoder.TensorPrefix) {
					moved++
				}
				p.Value.Data[i] -= 0.1 * d
			}
		}
		if moved == 0 {
			t.Fatalf("%s: no gradient reached the encoder's weights", mode)
		}
		after, err := m.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(after, before) {
			t.Errorf("%s: the step left the scores where they were", mode)
		}
		back := modeltest.RoundTrip(t, m)
		if got, err := back.Score(ctx, q); err != nil || !reflect.DeepEqual(got, after) {
			t.Fatalf("%s: scores %v after loading, %v before", mode, got, after)
		}
	}
}
