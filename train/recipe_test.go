package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	_ "github.com/as2/as2/model/all"
	"github.com/as2/as2/model/cosinet"
)

func recipe(t *testing.T, arch, objective string, edit func(r *model.Recipe)) model.Recipe {
	t.Helper()
	r, err := model.DefaultRecipe(arch, false, objective)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&r)
	}
	return r
}

// TestResolve: a recipe's training settings become the values Train and
// InBatch take.
func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name    string
		r       model.Recipe
		hasDev  bool
		want    Options
		inBatch string
		objName string
	}{
		{"cosinet listwise", recipe(t, "cosinet", "listwise", nil), true,
			Options{Training: model.Training{Objective: model.Listwise, Epochs: 3, LR: 2e-4, Batch: 8}, Seed: 1}, "", "listwise"},
		{"compclip keeps the best with a dev set", recipe(t, "compclip", "", func(r *model.Recipe) { r.Training.Seed = 7 }), true,
			Options{Training: model.Training{Objective: model.Pointwise, Epochs: 5, LR: 3e-3, Batch: 8, ClipNorm: 5, KeepBest: true}, Seed: 7}, "", "pointwise"},
		{"compclip keeps the last without one", recipe(t, "compclip", "", nil), false,
			Options{Training: model.Training{Objective: model.Pointwise, Epochs: 5, LR: 3e-3, Batch: 8, ClipNorm: 5}, Seed: 1}, "", "pointwise"},
		{"scaled", recipe(t, "has", "triplet", func(r *model.Recipe) { r.Training.ScoreScale = 20; r.Training.Negatives = 4 }), true,
			Options{Training: model.Training{Objective: model.Scaled{Base: model.TripletHinge{Margin: 0.1}, Scale: 20}, Epochs: 10, LR: 1e-3, Batch: 8, ClipNorm: 5, Negatives: 4, KeepBest: true}, Seed: 1}, "", "triplet, scores ×20"},
		{"in-batch", recipe(t, "dual", "in-batch-softmax", nil), false,
			Options{Training: model.Training{Epochs: 10, LR: 1e-3, Batch: 100, ClipNorm: 5}, Seed: 1}, "in-batch-softmax", "in-batch-softmax"},
	} {
		p, err := Resolve(tc.r, tc.hasDev)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(p.Options, tc.want) {
			t.Errorf("%s: options %+v, want %+v", tc.name, p.Options, tc.want)
		}
		if got := ""; p.InBatch != nil && p.InBatch.Name() != tc.inBatch || p.InBatch == nil && tc.inBatch != got {
			t.Errorf("%s: in-batch objective %v, want %q", tc.name, p.InBatch, tc.inBatch)
		}
		if p.ObjectiveName() != tc.objName {
			t.Errorf("%s: objective %q, want %q", tc.name, p.ObjectiveName(), tc.objName)
		}
	}
}

// TestResolveRefuses: bad settings and combinations name the field.
func TestResolveRefuses(t *testing.T) {
	teacher := func(r *model.Recipe) { r.Training.Distill = model.DefaultDistillation("wo") }
	for _, tc := range []struct {
		r           model.Recipe
		field, want string
	}{
		{recipe(t, "cosinet", "", func(r *model.Recipe) { r.Training.Epochs = 0 }), "training.epochs", "at least 1"},
		{recipe(t, "cosinet", "", func(r *model.Recipe) { r.Training.Batch = -1 }), "training.batch", "at least 1"},
		{recipe(t, "cosinet", "", func(r *model.Recipe) { r.Training.Clip = -2 }), "training.clip", "0 (none) or positive"},
		{recipe(t, "cosinet", "", func(r *model.Recipe) { r.Training.Objective = "ranknet" }), "training.objective", "want one of"},
		{recipe(t, "cosinet", "", func(r *model.Recipe) { teacher(r); r.Training.Distill.Temperature = 0 }), "training.distill.temperature", "more than 0"},
		{recipe(t, "dual", "in-batch-softmax", func(r *model.Recipe) { r.Training.ScoreScale = 20 }), "training.score_scale", "not with the in-batch objective"},
		{recipe(t, "dual", "in-batch-softmax", func(r *model.Recipe) { r.Training.Negatives = 3 }), "training.negatives", "batch's other answers"},
		{recipe(t, "dual", "shared-answer-softmax", teacher), "training.objective", "use in-batch-softmax"},
		{recipe(t, "cosinet", "", func(r *model.Recipe) { r.Encoder = "glove" }), "encoder", "static, use-lite"},
		{model.Recipe{Architecture: "nope"}, "architecture", "unknown"},
		{recipe(t, "cosinet", "", func(r *model.Recipe) { r.Hyper.(*cosinet.Hyper).Filters = 0 }), "", "hyperparameters: filters 0"},
	} {
		_, err := Resolve(tc.r, true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.r.Training, err, tc.want)
			continue
		}
		var fe *model.FieldError
		if tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field) {
			t.Errorf("%v: not a FieldError for %s", err, tc.field)
		}
	}
}

// teacher scores a candidate by its position, and fails on question "bad".
type teacher struct{ calls int }

func (tt *teacher) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	tt.calls++
	if q.ID == "bad" {
		return nil, errors.New("boom")
	}
	out := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		out[i] = float64(c.Position)
	}
	return out, nil
}

// TestSetTeacher: under a candidate objective the teacher scores each
// training question once, before training, and its scores follow the
// candidates; under an in-batch one it scores as training goes.
func TestSetTeacher(t *testing.T) {
	r := recipe(t, "cosinet", "listwise", func(r *model.Recipe) {
		r.Training.Distill = &model.Distillation{Teacher: "pos", Weight: 2, Temperature: 3}
	})
	p, err := Resolve(r, false)
	if err != nil {
		t.Fatal(err)
	}
	qs := questions(6)
	tt := &teacher{}
	var done []int
	if err := p.SetTeacher(context.Background(), tt, qs, func(n int) { done = append(done, n) }); err != nil {
		t.Fatal(err)
	}
	d, ok := p.Objective.(model.Distilled)
	if !ok || d.Base != model.Listwise || d.Weight != 2 || d.Temperature != 3 || tt.calls != 6 || !reflect.DeepEqual(done, []int{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("objective %#v after %d teacher calls, progress %v", p.Objective, tt.calls, done)
	}
	// A draw of a question's candidates (Negatives) finds their scores.
	q := qs[2]
	q.Candidates = []dataset.Candidate{q.Candidates[3], q.Candidates[1]}
	if got := d.Teacher(&q); !reflect.DeepEqual(got, []float32{3, 1}) {
		t.Errorf("teacher scores of a draw: %v", got)
	}
	q.Candidates = append(q.Candidates, dataset.Candidate{ID: "new"})
	if got := d.Teacher(&q); got != nil {
		t.Errorf("teacher scores of an unseen candidate: %v", got)
	}
	if p.ObjectiveName() != "listwise+distilled" {
		t.Errorf("name %q", p.ObjectiveName())
	}
	// A teacher's failure names the question.
	p, _ = Resolve(r, false)
	bad := questions(2)
	bad[1].ID = "bad"
	if err := p.SetTeacher(context.Background(), &teacher{}, bad, nil); err == nil || !strings.Contains(err.Error(), "teacher pos: question bad: boom") {
		t.Errorf("failing teacher: %v", err)
	}
	// In-batch: the teacher is bound, not called yet.
	r = recipe(t, "dual", "in-batch-softmax", func(r *model.Recipe) { r.Training.Distill = model.DefaultDistillation("pos") })
	p, _ = Resolve(r, false)
	tt = &teacher{}
	if err := p.SetTeacher(context.Background(), tt, qs, nil); err != nil {
		t.Fatal(err)
	}
	ib, ok := p.InBatch.(model.InBatchDistilled)
	if !ok || ib.Candidates != 8 || tt.calls != 0 {
		t.Fatalf("in-batch objective %#v, %d calls", p.InBatch, tt.calls)
	}
	scores, err := ib.Teacher(context.Background(), "q", []string{"a", "b", "c"})
	if err != nil || !reflect.DeepEqual(scores, []float64{0, 1, 2}) {
		t.Fatalf("in-batch teacher: %v %v", scores, err)
	}
	// Without a teacher in the recipe there is nothing to set.
	p, _ = Resolve(recipe(t, "cosinet", "", nil), false)
	if err := p.SetTeacher(context.Background(), tt, qs, nil); err == nil {
		t.Fatal("a teacher set on a recipe without one")
	}
}

// TestRecipeTrains: a registered recipe builds a model that trains.
func TestRecipeTrains(t *testing.T) {
	r := recipe(t, "cosinet", "listwise", func(r *model.Recipe) {
		h := r.Hyper.(*cosinet.Hyper)
		h.Filters, h.Kernel, h.RNN, h.PairFeatures = 4, 2, "none", false
		r.Training.Epochs = 1
	})
	p, err := Resolve(r, false)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := model.Lookup(r.Architecture)
	m, err := a.New(r, encodertest.Static[float32](t))
	if err != nil {
		t.Fatal(err)
	}
	p.Workers = 1
	if sum, err := Train(context.Background(), m, []dataset.Question{*encodertest.Question()}, p.Options); err != nil || sum.Questions != 1 {
		t.Fatalf("%+v, %v", sum, err)
	}
}

// TestOpenEncoder: the names a recipe's encoder may take.
func TestOpenEncoder(t *testing.T) {
	for name, want := range map[string]string{
		"glove":           `encoder "glove": want static`,
		"use-lite:/nope":  "/nope",
		"hf:/nope":        "/nope",
		"static-and-more": `encoder "static-and-more"`,
	} {
		if _, err := OpenEncoder(name, "", "auto"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
	}
	if _, err := OpenEncoder("use-lite", "vectors.txt", "auto"); err == nil || !strings.Contains(err.Error(), "static encoder") {
		t.Errorf("word vectors with use-lite: %v", err)
	}
	if _, err := OpenEncoder("static", "/nope/vectors.txt", "auto"); err == nil {
		t.Error("missing word vectors opened")
	}
	// hf:DIR opens the family config.json declares.
	for dir, kind := range map[string]string{encodertest.BERTDir(t): "bert", "../encoder/roberta/testdata/tiny-xlm-roberta": "roberta"} {
		enc, err := OpenEncoder("hf:"+dir, "", "auto")
		if err != nil {
			t.Fatalf("hf:%s: %v", dir, err)
		}
		if got := enc.Spec().Kind; got != kind {
			t.Errorf("hf:%s: a %s encoder, want %s", dir, got, kind)
		}
	}
}

// TestNewModel: a recipe's model over the word vectors given, and the
// errors of a bad architecture or vectors file.
func TestNewModel(t *testing.T) {
	vectors := filepath.Join(t.TempDir(), "v.txt")
	if err := os.WriteFile(vectors, []byte("who 1 0 0 1\nwrote 0 1 0 1\nit 0 0 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := recipe(t, "cosinet", "", func(r *model.Recipe) {
		h := r.Hyper.(*cosinet.Hyper)
		h.Filters, h.Kernel = 3, 2
	})
	m, err := NewModel(r, vectors, "glove", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := m.Config(); cfg.Architecture != "cosinet" || cfg.Encoder.Dim != 4 || len(cfg.Encoder.Vocabulary) < 3 {
		t.Fatalf("config %+v", cfg)
	}
	bad := r
	bad.Architecture = "nope"
	for _, tc := range []struct {
		r          model.Recipe
		vecs, want string
	}{
		{bad, vectors, `architecture "nope"`},
		{r, vectors + ".missing", "encoder static: "},
		{recipe(t, "crossencoder", "", nil), vectors, "encoder use-lite: word vectors"},
	} {
		if _, err := NewModel(tc.r, tc.vecs, "glove", nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s over %s: %v, want %q", tc.r.Architecture, tc.vecs, err, tc.want)
		}
	}
}
