package model_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/modeltest"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// bag is the smallest architecture: the mean of a candidate's word vectors
// times learned weights. Registering it is all a new architecture needs to
// be built from flags, trained and read back from its file.
type bag struct {
	*model.Network[*bagInput]
	model.TrainingRecord
	h   bagHyper
	enc encoder.Encoder[float32]
	ps  *nn.Params[float32]
	w   *nn.Param[float32]
}

type bagHyper struct {
	Scale float64 `json:"scale"`
	Tags  []int   `json:"tags"`
	// Shift is 1 in the recipe and left out of files when 0, as some
	// architectures' fields are.
	Shift float64 `json:"shift,omitempty"`
	// Kind is recorded in files, not set by recipes, as the encoder kinds
	// of some architectures are.
	Kind string `json:"kind" recipe:"-"`
}

type bagInput struct {
	q     *dataset.Question
	cands []encoder.Tokens
}

func (in *bagInput) Question() *dataset.Question { return in.q }

func newBag(h bagHyper, enc encoder.Encoder[float32], seed uint64) (model.Neural, error) {
	b := &bag{h: h, enc: enc, ps: nn.NewParams[float32]()}
	b.w = b.ps.New("w", enc.Dim(), 1)
	nn.GlorotUniform(b.w.Value, enc.Dim(), 1, nn.NewRNG(seed))
	prepare := func(q *dataset.Question) *bagInput {
		in := &bagInput{q: q}
		for _, c := range q.Candidates {
			in.cands = append(in.cands, enc.Tokenize(c.Text+" ."))
		}
		return in
	}
	forward := func(tp *nn.Tape[float32], in *bagInput, _ bool) *nn.Var[float32] {
		rows := make([]*nn.Var[float32], len(in.cands))
		for i, t := range in.cands {
			rows[i] = tp.MeanPool(enc.Encode(tp, t))
		}
		s := tp.MatMul(tp.Stack(rows...), tp.Param(b.w))
		return tp.Scale(tp.Reshape(s, len(rows)), h.Scale)
	}
	b.Network = model.NewNetwork(prepare, forward)
	return b, nil
}

func (b *bag) Params() *nn.Params[float32] { return b.ps }
func (b *bag) ParamsChanged()              {}
func (b *bag) Config() model.Config {
	return model.NeuralConfig("bag-test", b.h, b.enc, b.ps, b.TrainingRecord)
}
func (b *bag) Tensors() []safetensors.Tensor { return model.NeuralTensors(b.ps, b.enc) }

func init() {
	model.Register(model.Arch[bagHyper]{
		Name:       "bag-test",
		Hyper:      func() bagHyper { return bagHyper{Scale: 1, Shift: 1} },
		PaperHyper: func() bagHyper { return bagHyper{Scale: 2} },
		Validate: func(h bagHyper) error {
			if !(h.Scale > 0) {
				return fmt.Errorf("scale %v: want more than 0", h.Scale)
			}
			return nil
		},
		Training: func(paper bool, obj model.Objective) model.Training {
			t := model.Training{Objective: obj, Epochs: 1, LR: 0.1, Batch: 1}
			if obj == model.Listwise {
				t.LR = 0.01
			}
			return t
		},
		New:      newBag,
		Describe: func(h bagHyper) string { return "bag" },
	})
}

func TestRegistry(t *testing.T) {
	a, err := model.Lookup("bag-test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Lookup("nope"); err == nil || !strings.Contains(err.Error(), "bag-test") {
		t.Fatalf("unknown architecture: %v", err)
	}
	enc := encodertest.Static[float32](t)
	r, err := model.DefaultRecipe("bag-test", true, "")
	if err != nil {
		t.Fatal(err)
	}
	// A recipe's hyperparameters are the architecture's own typed struct.
	r.Hyper.(*bagHyper).Tags = []int{3, 4}
	m, err := a.New(r, enc)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*bag).h; got.Scale != 2 || !reflect.DeepEqual(got.Tags, []int{3, 4}) {
		t.Fatalf("paper hyperparameters with tags set: %+v", got)
	}
	bad := func(edit func(r *model.Recipe)) model.Recipe {
		r, _ := model.DefaultRecipe("bag-test", false, "")
		edit(&r)
		return r
	}
	for want, r := range map[string]model.Recipe{
		"hyperparameters: scale 0: want more than 0": bad(func(r *model.Recipe) { r.Hyper.(*bagHyper).Scale = 0 }),
		"not the bag-test hyperparameters":           bad(func(r *model.Recipe) { r.Hyper = &struct{ Scale float64 }{1} }),
		`a recipe for "cosinet", not bag-test`:       bad(func(r *model.Recipe) { r.Architecture = "cosinet" }),
	} {
		if _, err := a.New(r, enc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New: error %v, want %q", err, want)
		}
	}
	// A hyperparameters value (not a pointer) builds the same model.
	byValue := bad(func(r *model.Recipe) { r.Hyper = bagHyper{Scale: 3} })
	if m, err := a.New(byValue, enc); err != nil || m.(*bag).h.Scale != 3 {
		t.Fatalf("hyperparameters by value: %v", err)
	}
	if a.Describe(m) != "bag" || a.Recipe(false, model.Listwise).Training.Objective != "listwise" || a.Recipe(false, model.Listwise).Training.LR != 0.01 {
		t.Fatal("Describe or Recipe")
	}
	// Written and read back through the registry, it scores the same.
	back := modeltest.RoundTrip(t, m)
	q := encodertest.Question()
	want, _ := m.Score(context.Background(), q)
	got, err := back.Score(context.Background(), q)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("scores %v (%v) after reading, %v before", got, err, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second registration of bag-test was accepted")
		}
	}()
	model.Register(model.Arch[bagHyper]{Name: "bag-test", Hyper: bagHyperZero, PaperHyper: bagHyperZero,
		Training: func(bool, model.Objective) model.Training { return model.Training{} }, New: newBag})
}

func bagHyperZero() bagHyper { return bagHyper{} }

func TestObjectives(t *testing.T) {
	for _, name := range model.Objectives {
		o, err := model.ParseObjective(name)
		if err != nil || o.Name() != name {
			t.Fatalf("%s: %v, %v", name, o, err)
		}
	}
	if _, err := model.ParseObjective("ranknet"); err == nil {
		t.Fatal("unknown objective accepted")
	}
	q := encodertest.Question() // one positive of four
	allNeg := encodertest.Question()
	allNeg.Candidates[1].Label = 0
	tp := nn.NewTape[float32](nil, 0)
	scores := tp.Const(nn.FromSlice([]float32{0, 3, 0, 0}, 4))
	for _, o := range []model.Objective{model.Pointwise, model.Listwise, model.TripletHinge{Margin: 0.1}} {
		if !o.Usable(q) || o.Loss(tp, scores, q).Scalar() < 0 {
			t.Errorf("%s on a usable question", o.Name())
		}
	}
	if model.Listwise.Usable(allNeg) || (model.TripletHinge{}).Usable(allNeg) || !model.Pointwise.Usable(allNeg) {
		t.Error("usability of an all-negative question")
	}
	if l := (model.TripletHinge{Margin: 0.1}).Loss(tp, scores, q).Scalar(); l != 0 {
		t.Errorf("triplet loss %v with the positive 3 above every negative", l)
	}
	// In-batch softmax: a confident diagonal gives a small loss, a swapped one a large one.
	good := tp.Const(nn.FromSlice([]float32{9, 0, 0, 9}, 2, 2))
	bad := tp.Const(nn.FromSlice([]float32{0, 9, 9, 0}, 2, 2))
	if g, b := model.InBatchSoftmax.Loss(tp, good).Scalar(), model.InBatchSoftmax.Loss(tp, bad).Scalar(); g > 1e-3 || b < 8 {
		t.Errorf("in-batch softmax: %v on the diagonal, %v off it", g, b)
	}
}
