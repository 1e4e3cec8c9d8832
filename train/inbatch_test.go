package train_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/dual"
	"github.com/as2/as2/train"
)

func tinyDual(t *testing.T, endx bool) *dual.Model {
	t.Helper()
	h := dual.RecipeHyper()
	h.Hidden, h.Hops, h.AttnHidden, h.CrossHeads, h.ENDX = 4, 2, 4, 2, endx
	m, err := dual.New(h, encodertest.Static[float32](t), 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var tinyPairs = []model.Pair{
	{Question: "who wrote hamlet", Answer: "shakespeare wrote hamlet ."},
	{Question: "is hamlet a tragedy", Answer: "hamlet is a tragedy ."},
	{Question: "where is hamlet", Answer: "denmark"},
	{Question: "who is shakespeare", Answer: "shakespeare is a play ."},
}

func TestPairs(t *testing.T) {
	qs := []dataset.Question{*encodertest.Question(), {Text: "none", Candidates: []dataset.Candidate{{Text: "x"}}}}
	got := train.Pairs(qs)
	want := []model.Pair{{Question: "Who wrote Hamlet?", Answer: "Shakespeare wrote it in 1600."}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
}

// TestInBatchLearns trains the tiny dual encoder, plain and ENDX, and
// checks that the in-batch loss falls and the hooks are called.
func TestInBatchLearns(t *testing.T) {
	for _, endx := range []bool{false, true} {
		m := tinyDual(t, endx)
		var steps, epochs int
		var losses []float64
		opts := train.InBatchOptions{Options: train.Options{Training: model.Training{Epochs: 40, LR: 0.05, Batch: 4, KeepBest: true}, Seed: 1,
			Dev:      []dataset.Question{*encodertest.Question()},
			Progress: func(train.Progress) { steps++ },
			EpochEnd: func(r train.EpochResult) { epochs++; losses = append(losses, r.Loss) },
		}}
		sum, err := train.InBatch(context.Background(), m, tinyPairs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if steps != 40 || epochs != 40 || sum.Pairs != 160 || sum.Kept < 1 || !sum.Epochs[0].Dev {
			t.Errorf("endx %v: %d steps, %d epochs, %d pairs, kept %d", endx, steps, epochs, sum.Pairs, sum.Kept)
		}
		if !(losses[len(losses)-1] < 0.5*losses[0]) {
			t.Errorf("endx %v: loss went from %v to %v", endx, losses[0], losses[len(losses)-1])
		}
	}
}

// TestInBatchSharedAnswers trains the tiny ENDX model under the
// shared-answer softmax on pairs of which two share an answer: both go in
// one batch (one step an epoch), and the loss falls.
func TestInBatchSharedAnswers(t *testing.T) {
	pairs := append(slices.Clone(tinyPairs), model.Pair{Question: "what did shakespeare write", Answer: tinyPairs[0].Answer})
	var steps int
	var losses []float64
	opts := train.InBatchOptions{Options: train.Options{Training: model.Training{Epochs: 30, LR: 0.05, Batch: 8}, Seed: 1,
		Progress: func(train.Progress) { steps++ },
		EpochEnd: func(r train.EpochResult) { losses = append(losses, r.Loss) },
	}, InBatch: model.SharedAnswerSoftmax}
	sum, err := train.InBatch(context.Background(), tinyDual(t, true), pairs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if steps != 30 || sum.Pairs != 150 {
		t.Errorf("%d steps, %d pairs: want 30 and 150 (one batch an epoch)", steps, sum.Pairs)
	}
	if !(losses[len(losses)-1] < 0.5*losses[0]) {
		t.Errorf("loss went from %v to %v", losses[0], losses[len(losses)-1])
	}
}

func TestInBatchErrors(t *testing.T) {
	ok := train.InBatchOptions{Options: train.Options{Training: model.Training{Epochs: 1, LR: 1e-3, Batch: 4}}}
	for _, c := range []struct {
		name  string
		edit  func(*train.InBatchOptions)
		pairs []model.Pair
		want  string
	}{
		{"epochs", func(o *train.InBatchOptions) { o.Epochs = 0 }, tinyPairs, "epochs"},
		{"batch", func(o *train.InBatchOptions) { o.Batch = 1 }, tinyPairs, "batch"},
		{"lr", func(o *train.InBatchOptions) { o.LR = 0 }, tinyPairs, "learning rate"},
		{"keep-best", func(o *train.InBatchOptions) { o.KeepBest = true }, tinyPairs, "dev"},
		{"pairs", func(*train.InBatchOptions) {}, tinyPairs[:1], "pairs"},
		{"dev retrieval", func(o *train.InBatchOptions) {
			o.DevRetrieval = func(context.Context) (float64, error) { return 0, errors.New("no pool") }
		}, tinyPairs, "no pool"},
		{"teacher", func(o *train.InBatchOptions) {
			o.InBatch = model.InBatchDistilled{Base: model.InBatchSoftmax, Weight: 1, Candidates: 2,
				Teacher: func(context.Context, string, []string) ([]float64, error) { return nil, errors.New("teacher down") }}
		}, tinyPairs, "teacher down"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := ok
			c.edit(&o)
			_, err := train.InBatch(context.Background(), tinyDual(t, false), c.pairs, o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one about %q", err, c.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := train.InBatch(ctx, tinyDual(t, false), tinyPairs, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

// TestInBatchDistilled trains the tiny dual encoder with a teacher: the
// teacher is asked for each trained pair's question, the loss falls, and
// ENDX, whose cross side is already a teacher, refuses a second.
func TestInBatchDistilled(t *testing.T) {
	var asked int
	var mu sync.Mutex
	teacher := func(_ context.Context, q string, as []string) ([]float64, error) {
		mu.Lock()
		asked++
		mu.Unlock()
		out := make([]float64, len(as))
		for i, a := range as {
			if strings.Contains(a, strings.Fields(q)[len(strings.Fields(q))-1]) {
				out[i] = 2
			}
		}
		return out, nil
	}
	obj := model.InBatchDistilled{Base: model.InBatchSoftmax, Teacher: teacher, Weight: 1, Temperature: 2, Candidates: 3}
	var losses []float64
	opts := train.InBatchOptions{Options: train.Options{Training: model.Training{Epochs: 40, LR: 0.05, Batch: 4}, Seed: 1,
		EpochEnd: func(r train.EpochResult) { losses = append(losses, r.Loss) }}, InBatch: obj}
	sum, err := train.InBatch(context.Background(), tinyDual(t, false), tinyPairs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if asked != sum.Pairs {
		t.Errorf("the teacher was asked %d times for %d trained pairs", asked, sum.Pairs)
	}
	if !(losses[len(losses)-1] < 0.5*losses[0]) {
		t.Errorf("loss went from %v to %v", losses[0], losses[len(losses)-1])
	}
	if _, err := train.InBatch(context.Background(), tinyDual(t, true), tinyPairs, opts); err == nil || !strings.Contains(err.Error(), "ENDX") {
		t.Errorf("ENDX with a teacher: error %v, want one about ENDX", err)
	}
}

// TestInBatchBatches checks that every pair goes to one batch of at most
// the size, that no batch repeats a question, that no batch repeats an
// answer unless shared, and that, shared, the questions of one answer
// meet in a batch when it has room.
func TestInBatchBatches(t *testing.T) {
	pairs := []model.Pair{
		{Question: "a", Answer: "x"}, {Question: "b", Answer: "x"}, {Question: "a", Answer: "y"},
		{Question: "c", Answer: "z"}, {Question: "d", Answer: "w"}, {Question: "e", Answer: "x"},
	}
	order := []int{0, 3, 4, 2, 1, 5}
	for _, shared := range []bool{false, true} {
		for _, size := range []int{2, 3, 6} {
			seen := map[int]int{}
			together := 0 // pairs of answer x in the first pair's batch
			for _, b := range train.Batches(pairs, order, size, shared) {
				qs, as := map[string]bool{}, map[string]bool{}
				if len(b) > size {
					t.Errorf("shared %v, size %d: batch of %d", shared, size, len(b))
				}
				for _, i := range b {
					seen[i]++
					if qs[pairs[i].Question] || (!shared && as[pairs[i].Answer]) {
						t.Errorf("shared %v, size %d: batch %v repeats pair %d's question or answer", shared, size, b, i)
					}
					qs[pairs[i].Question], as[pairs[i].Answer] = true, true
					if slices.Contains(b, 0) && pairs[i].Answer == "x" {
						together++
					}
				}
			}
			for i := range pairs {
				if seen[i] != 1 {
					t.Errorf("shared %v, size %d: pair %d in %d batches", shared, size, i, seen[i])
				}
			}
			// Pair 0's batch: shared, it takes answer x's other questions
			// (b and e) before the pairs that come before them in order.
			if want := map[bool]int{false: 1, true: min(size, 3)}[shared]; together != want {
				t.Errorf("shared %v, size %d: %d pairs of answer x with pair 0, want %d", shared, size, together, want)
			}
		}
	}
}

// TestInBatchLRScale checks that the training loop applies a model's
// learning-rate scales (model.LRScaler): with the cross side's rate scaled
// to almost nothing, ENDX training leaves the cross side where it started
// and still trains the dual side.
func TestInBatchLRScale(t *testing.T) {
	for _, scale := range []float64{0, 1e-9} {
		m := tinyDual(t, true)
		h := m.Hyper()
		h.CrossLRScale = scale
		m, err := dual.New(h, encodertest.Static[float32](t), 1)
		if err != nil {
			t.Fatal(err)
		}
		before := map[string][]float32{}
		for _, p := range m.Params().All() {
			before[p.Name] = slices.Clone(p.Value.Data)
		}
		opts := train.InBatchOptions{Options: train.Options{Training: model.Training{Epochs: 3, LR: 0.05, Batch: 4}, Seed: 1}}
		if _, err := train.InBatch(context.Background(), m, tinyPairs, opts); err != nil {
			t.Fatal(err)
		}
		moved := map[bool]float64{} // cross side or not: the largest change
		for _, p := range m.Params().All() {
			for i, v := range p.Value.Data {
				d := math.Abs(float64(v - before[p.Name][i]))
				cross := strings.HasPrefix(p.Name, "cross.")
				moved[cross] = max(moved[cross], d)
			}
		}
		if moved[false] < 1e-3 {
			t.Errorf("scale %v: the dual side did not train (largest change %v)", scale, moved[false])
		}
		if frozen := moved[true] < 1e-6; frozen != (scale == 1e-9) {
			t.Errorf("scale %v: the cross side's largest change is %v", scale, moved[true])
		}
	}
}

// TestInBatchIsReproducible trains the same model twice from one seed and
// checks that every weight comes out bit for bit the same: plain and ENDX
// over a static encoder, and a fine-tuned USE-Lite (a small random one),
// whose runs a study once found to differ.
func TestInBatchIsReproducible(t *testing.T) {
	models := map[string]func() *dual.Model{
		"dual": func() *dual.Model { return tinyDual(t, false) },
		"endx": func() *dual.Model { return tinyDual(t, true) },
		"use-lite fine-tuned": func() *dual.Model {
			h := dual.RecipeHyper()
			h.Layer, h.Pool, h.FineTune, h.Scale, h.Encoder = dual.LayerNone, dual.PoolEncoder, true, 20, ""
			m, err := dual.New(h, encodertest.USELite(t, 1), 2)
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
	}
	for name, newModel := range models {
		var runs [2][]float32
		var init []float32
		for _, p := range newModel().Params().All() {
			init = append(init, p.Value.Data...)
		}
		for r := range runs {
			m := newModel()
			opts := train.InBatchOptions{Options: train.Options{Training: model.Training{Epochs: 3, LR: 0.01, Batch: 3}, Seed: 7}}
			if _, err := train.InBatch(context.Background(), m, tinyPairs, opts); err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Params().All() {
				runs[r] = append(runs[r], p.Value.Data...)
			}
		}
		if len(runs[0]) == 0 || slices.Equal(runs[0], init) {
			t.Fatalf("%s: training left the weights where they started", name)
		}
		for i := range runs[0] {
			if math.Float32bits(runs[0][i]) != math.Float32bits(runs[1][i]) {
				t.Errorf("%s: weight %d of %d is %v in one run and %v in the other", name, i, len(runs[0]), runs[0][i], runs[1][i])
				break
			}
		}
	}
}
