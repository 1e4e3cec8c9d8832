package model_test

import (
	"context"
	"math"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
)

// TestDistilled checks the distillation term against its formula,
// w·T²·KL(softmax(t/T) ‖ softmax(s/T)), added to the base objective, its
// gradient's sign, and that a question without teacher scores trains on
// the base alone.
func TestDistilled(t *testing.T) {
	q := encodertest.Question()
	s := []float32{0.2, 0.9, -0.4, 0.1}
	teacher := []float32{0.5, 0.3, -0.2, 0.0}
	softmax := func(x []float32, temp float64) []float64 {
		var z float64
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = math.Exp(float64(v) / temp)
			z += out[i]
		}
		for i := range out {
			out[i] /= z
		}
		return out
	}
	for _, c := range []struct{ w, temp float64 }{{1, 1}, {0.5, 0.1}, {2, 3}} {
		d := model.Distilled{Base: model.Listwise, Weight: c.w, Temperature: c.temp,
			Teacher: func(*dataset.Question) []float32 { return teacher }}
		grads := nn.NewParams[float32]()
		p := grads.New("s", 4)
		copy(p.Value.Data, s)
		g := grads.NewGrads()
		tp := nn.NewTape(g, 0)
		sv := tp.Param(p)
		got := d.Loss(tp, sv, q)
		tp.Backward(got)
		base := model.Listwise.Loss(nn.NewTape[float32](nil, 0), nn.NewTape[float32](nil, 0).Const(nn.FromSlice(s, 4)), q).Scalar()
		pt, ps := softmax(teacher, c.temp), softmax(s, c.temp)
		var kl float64
		for i := range pt {
			kl += pt[i] * math.Log(pt[i]/ps[i])
		}
		want := float64(base) + c.w*c.temp*c.temp*kl
		if math.Abs(float64(got.Scalar())-want) > 1e-5 {
			t.Errorf("w %v, T %v: loss %v, want %v", c.w, c.temp, got.Scalar(), want)
		}
		if d.Name() != "listwise+distilled" || !d.Usable(q) {
			t.Errorf("name %q, usable %v", d.Name(), d.Usable(q))
		}
		// Candidate 0, which the teacher ranks first and the gold labels
		// do not, is pulled up by the KL term alone: its gradient is
		// lower than under the base objective.
		gb := grads.NewGrads()
		tb := nn.NewTape(gb, 0)
		tb.Backward(model.Listwise.Loss(tb, tb.Param(p), q))
		if g.Of(p).Data[0] >= gb.Of(p).Data[0] {
			t.Errorf("w %v, T %v: gradient of candidate 0 %v with the teacher, %v without", c.w, c.temp, g.Of(p).Data[0], gb.Of(p).Data[0])
		}
	}
	none := model.Distilled{Base: model.Listwise, Weight: 1, Temperature: 1, Teacher: func(*dataset.Question) []float32 { return nil }}
	tp := nn.NewTape[float32](nil, 0)
	sv := tp.Const(nn.FromSlice(s, 4))
	if a, b := none.Loss(tp, sv, q).Scalar(), model.Listwise.Loss(tp, sv, q).Scalar(); a != b {
		t.Errorf("no teacher scores: loss %v, the base's %v", a, b)
	}
}

// TestScaled checks that Scaled is its base objective over the scores times
// the scale, for each candidate objective.
func TestScaled(t *testing.T) {
	q := encodertest.Question()
	s := []float32{0.2, 0.9, -0.4, 0.1}
	scaled := make([]float32, len(s))
	for _, base := range []model.Objective{model.Pointwise, model.Listwise, model.TripletHinge{Margin: 0.1}} {
		for _, k := range []float64{0.5, 20} {
			for i, v := range s {
				scaled[i] = float32(k) * v
			}
			tp := nn.NewTape[float32](nil, 0)
			got := model.Scaled{Base: base, Scale: k}.Loss(tp, tp.Const(nn.FromSlice(s, 4)), q).Scalar()
			want := base.Loss(tp, tp.Const(nn.FromSlice(scaled, 4)), q).Scalar()
			if math.Abs(float64(got-want)) > 1e-5 {
				t.Errorf("%s ×%v: loss %v, want %v", base.Name(), k, got, want)
			}
		}
	}
	if sc := (model.Scaled{Base: model.Listwise, Scale: 20}); sc.Name() != "listwise, scores ×20" || !sc.Usable(q) {
		t.Errorf("name %q, usable %v", sc.Name(), sc.Usable(q))
	}
}

// TestSharedAnswerSoftmax checks the shared-answer softmax against its
// formula: with distinct answers it is the in-batch softmax; where copies
// of an answer score alike, a row's loss is −log of their summed
// probability plus log k; bound or not, SharesAnswers knows it; and
// ParseInBatchObjective names it.
func TestSharedAnswerSoftmax(t *testing.T) {
	sim := nn.FromSlice([]float32{
		2, 0.5, 2, -1,
		0.3, 1, 0.3, 0,
		1.5, -0.2, 1.5, 0.4,
		0, 0.1, 0, 0.9,
	}, 4, 4)
	tp := nn.NewTape[float32](nil, 1)
	loss := func(answers []string) float64 {
		return model.SharedAnswerSoftmax.ForBatch(context.Background(), pairsOf(answers)).Loss(tp, tp.Const(sim)).Scalar()
	}
	if got, want := loss([]string{"a", "b", "c", "d"}), model.InBatchSoftmax.Loss(tp, tp.Const(sim)).Scalar(); math.Abs(got-want) > 1e-6 {
		t.Errorf("distinct answers: %v, want the in-batch softmax's %v", got, want)
	}
	// Answers 0 and 2 are one, and every row scores their columns alike.
	row := func(i int) []float64 {
		out := make([]float64, 4)
		for j := range out {
			out[j] = float64(sim.Data[i*4+j])
		}
		return out
	}
	logp := func(r []float64, j int) float64 {
		z := 0.0
		for _, v := range r {
			z += math.Exp(v)
		}
		return r[j] - math.Log(z)
	}
	var want float64
	for i := range 4 {
		r := row(i)
		switch i {
		case 0, 2:
			want += -math.Log(math.Exp(logp(r, 0))+math.Exp(logp(r, 2))) + math.Log(2)
		default:
			want += -logp(r, i)
		}
	}
	want /= 4
	if got := loss([]string{"x", "b", "x", "d"}); math.Abs(got-want) > 1e-5 {
		t.Errorf("a shared answer: %v, want %v", got, want)
	}
	bound := model.SharedAnswerSoftmax.ForBatch(context.Background(), pairsOf([]string{"x", "x"}))
	if !model.SharesAnswers(model.SharedAnswerSoftmax) || !model.SharesAnswers(bound) || model.SharesAnswers(model.InBatchSoftmax) || bound.Err() != nil {
		t.Error("SharesAnswers: want true for the shared-answer softmax, bound or not, and false for the in-batch softmax")
	}
	if o, err := model.ParseInBatchObjective("shared-answer-softmax"); err != nil || o.Name() != "shared-answer-softmax" {
		t.Errorf("ParseInBatchObjective: %v, %v", o, err)
	}
}

// pairsOf returns one pair per answer, with distinct questions.
func pairsOf(answers []string) []model.Pair {
	ps := make([]model.Pair, len(answers))
	for i, a := range answers {
		ps[i] = model.Pair{Question: string(rune('p' + i)), Answer: a}
	}
	return ps
}
