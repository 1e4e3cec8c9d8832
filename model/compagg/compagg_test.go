package compagg

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/modeltest"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/train"
)

// tinyHypers covers every option: both variants, both comparisons, every
// clipping, latent clustering, exact match and an RNN over the candidates.
func tinyHypers() map[string]Hyper {
	base := func(variant string) Hyper {
		return Hyper{Variant: variant, Hidden: 5, Filters: 3, Widths: []int{1, 2, 3}, Compare: Mult, Clip: ClipNone}
	}
	hs := map[string]Hyper{}
	h := base(CA)
	h.Compare = SubMultNN
	hs["ca"] = h
	h = base(CA)
	h.RNN, h.Dropout = "birnn", 0.3
	hs["ca+birnn"] = h
	h = base(CompClip)
	h.Clip, h.ClipK = ClipKMax, 2
	hs["compclip kmax"] = h
	h = base(CompClip)
	h.Clip, h.ClipThreshold, h.ExactMatch = ClipThresh, 0.2, true
	hs["compclip threshold+em"] = h
	h = base(CompClip)
	h.Clip, h.ClipK, h.Clusters, h.ClusterK = ClipKMax, 2, 4, 2
	hs["compclip+lc"] = h
	h = base(CA)
	h.Clusters, h.ClusterK, h.RNN = 3, 3, "lstm"
	hs["ca+lc+lstm"] = h
	return hs
}

// tiny builds a model over the tiny vectors, failing t on an error.
func tiny(t testing.TB, h Hyper, seed uint64) *Model {
	t.Helper()
	return encodertest.Model(t, New, h, seed)
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
			if cfg := back.Config(); cfg.Architecture != h.Variant || cfg.Params != m.Params().Count() {
				t.Fatalf("config %+v", cfg)
			}
		})
	}
}

// TestTrainTiny checks that every variant learns to put the answer first,
// pointwise and listwise.
func TestTrainTiny(t *testing.T) {
	for name, h := range tinyHypers() {
		for _, obj := range []model.Objective{model.Pointwise, model.Listwise} {
			m := tiny(t, h, 3)
			qs := []dataset.Question{*encodertest.Question()}
			if _, err := train.Train(context.Background(), m, qs, train.Options{Training: model.Training{Objective: obj, Epochs: 40, LR: 0.02}}); err != nil {
				t.Fatal(err)
			}
			s, err := m.Score(context.Background(), &qs[0])
			if err != nil {
				t.Fatal(err)
			}
			if s[1] <= s[0] || s[1] <= s[2] || s[1] <= s[3] {
				t.Errorf("%s (%s): the answer is not ranked first after training: %v", name, obj.Name(), s)
			}
		}
	}
}

// Inference (candidates spread over goroutines) scores as the training
// path does with dropout off.
func TestScoreMatchesTrainingPath(t *testing.T) {
	q := encodertest.LongQuestion(40)
	for name, h := range tinyHypers() {
		t.Run(name, func(t *testing.T) {
			h.Dropout = 0
			m := tiny(t, h, 3)
			got, err := m.Score(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			tp := nn.NewTape(m.Params().NewGrads(), 1)
			want := m.forward(tp, m.prepare(q), false).Value.Data
			for i := range want {
				if d := got[i] - float64(want[i]); d > 1e-5 || d < -1e-5 {
					t.Fatalf("candidate %d: Score %v, training path %v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestClippingChangesScores guards against a clip setting that is silently
// ignored: k-max with k = 1 must score differently from plain softmax.
func TestClippingChangesScores(t *testing.T) {
	h := tinyHypers()["compclip kmax"]
	a := tiny(t, h, 3)
	h.ClipK = 1
	b := tiny(t, h, 3)
	sa, errA := a.Score(context.Background(), encodertest.Question())
	sb, errB := b.Score(context.Background(), encodertest.Question())
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if reflect.DeepEqual(sa, sb) {
		t.Fatalf("k = 1 and k = 2 score the same: %v", sa)
	}
}

func TestBadHyper(t *testing.T) {
	ok := tinyHypers()["compclip kmax"]
	for name, edit := range map[string]func(h *Hyper){
		"variant":      func(h *Hyper) { h.Variant = "bert" },
		"hidden":       func(h *Hyper) { h.Hidden = 0 },
		"filters":      func(h *Hyper) { h.Filters = 0 },
		"no widths":    func(h *Hyper) { h.Widths = nil },
		"width":        func(h *Hyper) { h.Widths = []int{0} },
		"compare":      func(h *Hyper) { h.Compare = "cosine" },
		"clip":         func(h *Hyper) { h.Clip = "top" },
		"clip k":       func(h *Hyper) { h.ClipK = 0 },
		"threshold":    func(h *Hyper) { h.Clip, h.ClipThreshold = ClipThresh, 1 },
		"clusters":     func(h *Hyper) { h.Clusters = -1 },
		"cluster k":    func(h *Hyper) { h.Clusters, h.ClusterK = 4, 5 },
		"rnn":          func(h *Hyper) { h.RNN = "transformer" },
		"dropout":      func(h *Hyper) { h.Dropout = 1 },
		"encoder elmo": func(h *Hyper) { h.Encoder = "elmo" },
	} {
		h := ok
		h.Widths = append([]int(nil), ok.Widths...)
		edit(&h)
		if _, err := New(h, encodertest.Static[float32](t), 1); err == nil {
			t.Errorf("%s: hyperparameters %+v accepted", name, h)
		}
	}
	if _, err := New(ok, nil, 1); err == nil {
		t.Error("no encoder accepted")
	}
}

// TestArchitectureMismatch: a file whose hyperparameters name another
// variant than its architecture is refused.
func TestArchitectureMismatch(t *testing.T) {
	m := tiny(t, tinyHypers()["ca"], 3)
	var good bytes.Buffer
	if err := model.Write(&good, m); err != nil {
		t.Fatal(err)
	}
	tensors, meta, err := safetensors.Read(bytes.NewReader(good.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	json.Unmarshal([]byte(meta[model.MetadataKey]), &cfg)
	cfg["architecture"] = CompClip
	js, _ := json.Marshal(cfg)
	var b bytes.Buffer
	safetensors.Write(&b, tensors, map[string]string{model.MetadataKey: string(js)})
	if _, err := model.Read(&b); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("error %v", err)
	}
}

// A network encoder's states are computed once, when a question is
// prepared (the encoder is frozen); scoring from them must equal encoding
// in the forward pass, and the encoder's weights must not train.
func TestFrozenEncoderStatesComputedOnce(t *testing.T) {
	enc := encodertest.USELite(t, 1)
	h := tinyHypers()["compclip+lc"]
	m, err := New(h, enc, 3)
	if err != nil {
		t.Fatal(err)
	}
	q := encodertest.Question()
	in := m.prepare(q)
	if in.Text.States == nil {
		t.Fatal("USE-Lite's states were not computed when preparing")
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	cached := append([]float32(nil), m.forward(tp, in, false).Value.Data...)
	in.Text.States = nil
	for i := range in.Candidates {
		in.Candidates[i].States = nil
	}
	tp.Reset()
	recomputed := m.forward(tp, in, false).Value.Data
	for i := range cached {
		if d := cached[i] - recomputed[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("candidate %d: %v from the prepared states, %v encoding again", i, cached[i], recomputed[i])
		}
	}
	if n, e := m.Params().Count(), enc.Params().Count(); n == 0 || e == 0 {
		t.Fatalf("params: model %d, encoder %d", n, e)
	}
	for _, p := range m.Params().All() {
		if strings.HasPrefix(p.Name, "encoder.") {
			t.Fatalf("the encoder's %s is among the trained parameters", p.Name)
		}
	}
}
