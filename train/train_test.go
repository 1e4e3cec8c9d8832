package train

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
)

// linear scores a candidate by w·x, x being a fixed feature vector per
// candidate text; it can learn which feature marks the answer.
type linear struct {
	ps       *nn.Params[float32]
	w        *nn.Param[float32]
	nanFrom  int // Loss returns NaN from this call on (0: never)
	calls    int
	changed  int
	prepared int
	trained  []*dataset.Question // the questions Loss saw, in order
}

func newLinear() *linear {
	ps := nn.NewParams[float32]()
	return &linear{ps: ps, w: ps.New("w", 2)}
}

func feats(c dataset.Candidate) []float32 {
	if strings.Contains(c.Text, "answer") {
		return []float32{1, 0}
	}
	return []float32{0, 1}
}

func (l *linear) Params() *nn.Params[float32] { return l.ps }
func (l *linear) ParamsChanged()              { l.changed++ }

func (l *linear) scores(tp *nn.Tape[float32], q *dataset.Question) *nn.Var[float32] {
	x := nn.NewTensor[float32](len(q.Candidates), 2)
	for i, c := range q.Candidates {
		copy(x.Row(i), feats(c))
	}
	return tp.Reshape(tp.MatMul(tp.Const(x), tp.Reshape(tp.Param(l.w), 2, 1)), len(q.Candidates))
}

func (l *linear) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	out := make([]float64, len(q.Candidates))
	for i, v := range l.scores(tp, q).Value.Data {
		out[i] = float64(v)
	}
	return out, nil
}

type input struct{ q *dataset.Question }

func (in input) Question() *dataset.Question { return in.q }

func (l *linear) Prepare(q *dataset.Question) model.Input { l.prepared++; return input{q} }

func (l *linear) Loss(tp *nn.Tape[float32], in model.Input, obj model.Objective) (*nn.Var[float32], error) {
	l.calls++ // one worker in these tests
	q := in.Question()
	l.trained = append(l.trained, q)
	s := l.scores(tp, q)
	if l.nanFrom > 0 && l.calls >= l.nanFrom {
		s = tp.Scale(s, math.NaN())
	}
	return obj.Loss(tp, s, q), nil
}

func questions(n int) []dataset.Question {
	var qs []dataset.Question
	for i := 0; i < n; i++ {
		q := dataset.Question{ID: string(rune('a' + i%26)), Text: "q"}
		for j := 0; j < 4; j++ {
			text, label := "noise", 0
			if j == (i % 4) {
				text, label = "the answer", 1
			}
			q.Candidates = append(q.Candidates, dataset.Candidate{ID: string(rune('0' + j)), Text: text, Position: j, Label: label})
		}
		qs = append(qs, q)
	}
	return qs
}

func TestTrainLearns(t *testing.T) {
	for _, obj := range []model.Objective{model.Listwise, model.Pointwise, model.TripletHinge{Margin: 0.1}} {
		m := newLinear()
		qs := questions(40)
		var epochs []EpochResult
		sum, err := Train(context.Background(), m, qs, Options{Training: model.Training{Objective: obj, Epochs: 3, LR: 0.1, Batch: 4}, Workers: 1, Dev: qs[:8],
			EpochEnd: func(r EpochResult) { epochs = append(epochs, r) }})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Questions != 40 || sum.Pairs != 3*160 || len(epochs) != 3 || m.changed != 30 || m.prepared != 40 {
			t.Fatalf("summary %+v, %d epochs reported, %d changes, %d questions prepared", sum, len(epochs), m.changed, m.prepared)
		}
		for _, e := range epochs {
			if e.Duration <= 0 {
				t.Fatalf("epoch %d took %v: the dev evaluation was subtracted from a time that did not include it", e.Epoch, e.Duration)
			}
		}
		if last := epochs[2]; !last.Dev || last.DevMAP != 1 || last.Loss >= epochs[0].Loss {
			t.Fatalf("%s: did not learn: %+v", obj.Name(), epochs)
		}
	}
}

func TestTrainSkipsUselessListwiseQuestions(t *testing.T) {
	qs := questions(4)
	for i := range qs[0].Candidates {
		qs[0].Candidates[i].Label = 0 // all negative
	}
	for i := range qs[1].Candidates {
		qs[1].Candidates[i].Label = 1 // all positive
	}
	sum, err := Train(context.Background(), newLinear(), qs, Options{Training: model.Training{Objective: model.Listwise, Epochs: 1, LR: 0.1}, Workers: 1})
	if err != nil || sum.Skipped != 2 || sum.Questions != 2 {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	if _, err := Train(context.Background(), newLinear(), qs[:2], Options{Training: model.Training{Objective: model.Listwise, Epochs: 1, LR: 0.1}}); err == nil || !strings.Contains(err.Error(), "no usable training questions (2 skipped") {
		t.Fatalf("all skipped: %v", err)
	}
}

func TestTrainStopsOnNaN(t *testing.T) {
	m := newLinear()
	m.nanFrom = 3
	_, err := Train(context.Background(), m, questions(8), Options{Training: model.Training{Objective: model.Listwise, Epochs: 2, LR: 0.1}, Workers: 1})
	if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), "epoch 1, step 3 of 16") {
		t.Fatalf("error %v", err)
	}
}

func TestTrainRejectsBadOptions(t *testing.T) {
	for _, o := range []model.Training{{Epochs: 0, LR: 1}, {Epochs: 1, LR: 0}, {Epochs: 1, LR: math.NaN()}, {Epochs: 1, LR: 1, Negatives: -1}} {
		if _, err := Train(context.Background(), newLinear(), questions(2), Options{Training: o}); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := Train(context.Background(), newLinear(), nil, Options{Training: model.Training{Epochs: 1, LR: 1}}); err == nil {
		t.Error("empty training set accepted")
	}
}

func TestTrainHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, newLinear(), questions(4), Options{Training: model.Training{Epochs: 1, LR: 0.1}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
}

// TestTrainKeepBest trains against a dev set that disagrees with training,
// so that dev MAP is best after the first epoch (ties keep the first), and
// checks that the first epoch's parameters are the ones kept.
func TestTrainKeepBest(t *testing.T) {
	dev := questions(8)
	for i := range dev {
		for j := range dev[i].Candidates {
			c := &dev[i].Candidates[j]
			c.Label = 1 - c.Label // the dev "answer" is always wrong
		}
	}
	m := newLinear()
	var first []float32
	sum, err := Train(context.Background(), m, questions(40), Options{Training: model.Training{Epochs: 3, LR: 0.1, Batch: 4, KeepBest: true}, Workers: 1, Dev: dev,
		EpochEnd: func(r EpochResult) {
			if r.Epoch == 1 {
				first = append(first, m.w.Value.Data...)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept != 1 || !slices.Equal(m.w.Value.Data, first) {
		t.Fatalf("kept epoch %d with weights %v; epoch 1 had %v", sum.Kept, m.w.Value.Data, first)
	}
	if _, err := Train(context.Background(), newLinear(), questions(4), Options{Training: model.Training{Epochs: 1, LR: 0.1, KeepBest: true}}); err == nil {
		t.Fatal("KeepBest without dev questions accepted")
	}
}

func TestSampleNegatives(t *testing.T) {
	labels := []int{dataset.Negative, dataset.Positive, dataset.Negative, dataset.Unlabeled, dataset.Negative, dataset.Negative, dataset.Positive}
	q := &dataset.Question{ID: "q", Text: "q"}
	for i, l := range labels {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Position: i, Label: l})
	}
	for _, tc := range []struct{ n, want int }{{0, 3}, {1, 4}, {3, 6}, {4, 7}, {9, 7}} {
		s := SampleNegatives(q, tc.n, rand.New(rand.NewPCG(1, 2)))
		if len(s.Candidates) != tc.want {
			t.Fatalf("n %d: %d candidates, want %d", tc.n, len(s.Candidates), tc.want)
		}
		if tc.n >= 4 && s != q {
			t.Errorf("n %d: a question with no more negatives than n was copied", tc.n)
		}
		neg := 0
		for i, c := range s.Candidates {
			if i > 0 && c.Position <= s.Candidates[i-1].Position {
				t.Fatalf("n %d: candidates out of their order: %+v", tc.n, s.Candidates)
			}
			if c.Label == dataset.Negative {
				neg++
			}
		}
		if neg != min(tc.n, 4) || s.Positives() != 2 {
			t.Errorf("n %d: %d negatives and %d positives kept", tc.n, neg, s.Positives())
		}
	}
	if len(q.Candidates) != len(labels) {
		t.Errorf("the question was changed: %d candidates", len(q.Candidates))
	}
}

// TestTrainNegatives trains with one negative a question: each epoch
// prepares a fresh draw, the pairs count what was trained on, the draws
// differ between epochs, and the model still learns.
func TestTrainNegatives(t *testing.T) {
	m := newLinear()
	qs := questions(40)
	opts := Options{Training: model.Training{Objective: model.Listwise, Epochs: 3, LR: 0.1, Batch: 4, Negatives: 1}, Workers: 1, Dev: qs[:8], Seed: 3}
	sum, err := Train(context.Background(), m, qs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pairs != 3*40*2 || m.prepared != 3*40 || len(m.trained) != 3*40 {
		t.Fatalf("summary %+v, %d questions prepared, %d trained", sum, m.prepared, len(m.trained))
	}
	drawn := map[string]map[string]bool{} // question: the negatives it trained on
	for _, q := range m.trained {
		if len(q.Candidates) != 2 || q.Positives() != 1 {
			t.Fatalf("question %s trained on %+v", q.ID, q.Candidates)
		}
		// questions(40) repeats IDs; with the answer's place they are unique.
		var key, neg string
		for _, c := range q.Candidates {
			if c.Label == dataset.Negative {
				neg = c.ID
			} else {
				key = q.ID + c.ID
			}
		}
		if drawn[key] == nil {
			drawn[key] = map[string]bool{}
		}
		drawn[key][neg] = true
	}
	if len(drawn) != 40 {
		t.Fatalf("%d questions told apart, want 40", len(drawn))
	}
	varied := 0
	for _, ids := range drawn {
		if len(ids) > 1 {
			varied++
		}
	}
	if varied == 0 {
		t.Error("every question trained on the same negative in every epoch")
	}
	if last := sum.Epochs[2]; last.DevMAP != 1 {
		t.Errorf("did not learn: %+v", sum.Epochs)
	}
	if r := NewRecord("d", "train", "", opts, sum); r.Negatives != 1 || r.Pairs != sum.Pairs {
		t.Errorf("record %+v", r)
	}
}
