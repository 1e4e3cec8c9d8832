package model_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
)

// TestInBatchDistilled checks the bound objective against its formula:
// the in-batch softmax plus w·T²·mean_i KL(softmax(t_i/T) ‖ softmax(s_i/T))
// over row i's own answer and its k−1 highest-scored others, the teacher
// asked for exactly those answers in the model's order, and the answers outside the
// set untouched by the KL term's gradient.
func TestInBatchDistilled(t *testing.T) {
	pairs := []model.Pair{{"q0", "a0"}, {"q1", "a1"}, {"q2", "a2"}, {"q3", "a3"}}
	sim := []float32{
		2.0, 0.5, 1.5, -1.0,
		0.3, 1.0, 0.2, 0.9,
		-0.5, 1.2, 0.4, 0.0,
		0.1, 0.2, 0.3, 0.4,
	}
	// The teacher's score of answer aJ for question qI: distinct, and
	// unlike the model's, so that the KL term is not zero.
	teacherScore := func(q, a string) float64 { return float64(int(q[1]-'0')*3+int(a[1]-'0')) * 0.37 }
	teacher := func(_ context.Context, q string, as []string) ([]float64, error) {
		out := make([]float64, len(as))
		for i, a := range as {
			out[i] = teacherScore(q, a)
		}
		return out, nil
	}
	// Each row's own answer and its k−1 highest-scored others, in the
	// order of the model's scores.
	wantCols := map[int][][]int{
		2: {{0, 2}, {1, 3}, {1, 2}, {3, 2}},
		3: {{0, 2, 1}, {1, 3, 0}, {1, 2, 3}, {3, 2, 1}},
		0: {{0, 2, 1, 3}, {1, 3, 0, 2}, {1, 2, 3, 0}, {3, 2, 1, 0}},
	}
	for _, c := range []struct {
		k       int
		w, temp float64
	}{{2, 1, 1}, {3, 0.5, 2}, {0, 2, 0.5}} {
		var asked [][]string
		record := func(ctx context.Context, q string, as []string) ([]float64, error) {
			asked = append(asked, append([]string{q}, as...))
			return teacher(ctx, q, as)
		}
		d := model.InBatchDistilled{Base: model.InBatchSoftmax, Teacher: record, Weight: c.w, Temperature: c.temp, Candidates: c.k}
		ps := nn.NewParams[float32]()
		p := ps.New("sim", 4, 4)
		copy(p.Value.Data, sim)
		g := ps.NewGrads()
		tp := nn.NewTape(g, 0)
		b := d.ForBatch(context.Background(), pairs)
		got := b.Loss(tp, tp.Param(p))
		if err := b.Err(); err != nil {
			t.Fatalf("k %d: %v", c.k, err)
		}
		tp.Backward(got)

		base := model.InBatchSoftmax.Loss(tp, tp.Const(p.Value)).Scalar()
		var kl float64
		for i, cols := range wantCols[c.k] {
			var zt, zs float64
			for _, j := range cols {
				zt += math.Exp(teacherScore(pairs[i].Question, pairs[j].Answer) / c.temp)
				zs += math.Exp(float64(sim[i*4+j]) / c.temp)
			}
			for _, j := range cols {
				pt := math.Exp(teacherScore(pairs[i].Question, pairs[j].Answer)/c.temp) / zt
				ps := math.Exp(float64(sim[i*4+j])/c.temp) / zs
				kl += pt * math.Log(pt/ps)
			}
		}
		want := float64(base) + c.w*c.temp*c.temp*kl/4
		if math.Abs(float64(got.Scalar())-want) > 1e-5 {
			t.Errorf("k %d: loss %v, want %v", c.k, got.Scalar(), want)
		}
		// asked is in any order: the rows are scored in parallel.
		for i, cols := range wantCols[c.k] {
			want := []string{pairs[i].Question}
			for _, j := range cols {
				want = append(want, pairs[j].Answer)
			}
			found := false
			for _, a := range asked {
				found = found || fmt.Sprint(a) == fmt.Sprint(want)
			}
			if !found {
				t.Errorf("k %d: the teacher was not asked %v (asked %v)", c.k, want, asked)
			}
		}
		if len(asked) != 4 {
			t.Errorf("k %d: the teacher was asked %d times, want 4", c.k, len(asked))
		}
		// An answer outside row i's set has the base objective's gradient.
		gb := ps.NewGrads()
		tb := nn.NewTape(gb, 0)
		tb.Backward(model.InBatchSoftmax.Loss(tb, tb.Param(p)))
		for i, cols := range wantCols[c.k] {
			for j := range 4 {
				in := false
				for _, k := range cols {
					in = in || k == j
				}
				if d := g.Of(p).Data[i*4+j] - gb.Of(p).Data[i*4+j]; !in && d != 0 {
					t.Errorf("k %d: score (%d, %d), outside the set, gains %v of gradient from the teacher", c.k, i, j, d)
				}
			}
		}
	}
}

// TestInBatchDistilledFailures checks that the objective unbound is its
// base, and that a teacher's error or a wrong count of scores is reported
// by Err, the loss then being the base's.
func TestInBatchDistilledFailures(t *testing.T) {
	pairs := []model.Pair{{"q0", "a0"}, {"q1", "a1"}}
	tp := nn.NewTape[float32](nil, 0)
	s := tp.Const(nn.FromSlice([]float32{1, 0, 0.5, 2}, 2, 2))
	base := model.InBatchSoftmax.Loss(tp, s).Scalar()
	ok := func(_ context.Context, _ string, as []string) ([]float64, error) {
		return make([]float64, len(as)), nil
	}
	d := model.InBatchDistilled{Base: model.InBatchSoftmax, Teacher: ok, Weight: 1, Temperature: 1}
	if got := d.Loss(tp, s).Scalar(); got != base || d.Name() != "in-batch-softmax+distilled" {
		t.Errorf("unbound: loss %v, want %v; name %q", got, base, d.Name())
	}
	for _, c := range []struct {
		name    string
		teacher model.InBatchTeacher
		pairs   []model.Pair
		want    string
	}{
		{"error", func(context.Context, string, []string) ([]float64, error) { return nil, errors.New("teacher down") }, pairs, "teacher down"},
		{"count", func(context.Context, string, []string) ([]float64, error) { return []float64{1}, nil }, pairs, "1 scores for 2 answers"},
		{"pairs", ok, pairs[:1], "2x2 score matrix for 1 pairs"},
	} {
		d.Teacher = c.teacher
		b := d.ForBatch(context.Background(), c.pairs)
		got := b.Loss(tp, s).Scalar()
		if err := b.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %q", c.name, err, c.want)
		}
		if got != base {
			t.Errorf("%s: loss %v, want the base's %v", c.name, got, base)
		}
	}
}
