package model

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/as2/as2/nn"
)

// BatchObjective is an InBatchObjective whose loss needs the batch's
// texts, as distillation from a teacher that reads them does. The
// training loop binds it to each batch with ForBatch and gives the model
// the bound objective; the objective itself, unbound, is its base.
type BatchObjective interface {
	InBatchObjective
	// ForBatch returns the objective for one batch, whose row and column
	// i are pairs[i].
	ForBatch(ctx context.Context, pairs []Pair) BoundObjective
}

// BoundObjective is a BatchObjective bound to one batch. Loss cannot
// return an error, so Err reports the first of its losses that failed
// (a teacher's error), after which it is the base objective alone.
type BoundObjective interface {
	InBatchObjective
	Err() error
}

// InBatchTeacher scores answers as answers to question: a cross-encoder,
// or any ranker, whose raw scores the student learns to match.
type InBatchTeacher func(ctx context.Context, question string, answers []string) ([]float64, error)

// InBatchDistilled is Base plus knowledge distillation from a teacher
// over the batch (as2's variant of the ENDX paper's a|q alignment, Eq.
// 7-11, with a trained ranker for its cross side): for each question i,
// Weight · T² · KL(softmax(t/T) ‖ softmax(s/T)) over its own answer and
// the Candidates−1 other answers of the batch the model scores highest
// (given to the teacher in the model's order, positions 0 on), t the
// teacher's scores of those answers and s the model's, averaged over the
// batch. Scoring only the model's hardest answers keeps
// the teacher's cost at B·Candidates pairs a batch instead of B², and
// those answers are where the model's softmax has its mass, so where
// the teacher's view of them teaches most. Candidates 0 scores all B.
type InBatchDistilled struct {
	Base        InBatchObjective
	Teacher     InBatchTeacher
	Weight      float64
	Temperature float64
	Candidates  int
}

// Name implements InBatchObjective.
func (d InBatchDistilled) Name() string { return d.Base.Name() + "+distilled" }

// Loss implements InBatchObjective: unbound, Base alone.
func (d InBatchDistilled) Loss(tp *nn.Tape[float32], sim *nn.Var[float32]) *nn.Var[float32] {
	return d.Base.Loss(tp, sim)
}

// ForBatch implements BatchObjective.
func (d InBatchDistilled) ForBatch(ctx context.Context, pairs []Pair) BoundObjective {
	return &boundDistilled{InBatchDistilled: d, ctx: ctx, pairs: pairs}
}

type boundDistilled struct {
	InBatchDistilled
	ctx   context.Context
	pairs []Pair
	err   error
}

func (b *boundDistilled) Err() error { return b.err }

// Loss implements InBatchObjective.
func (b *boundDistilled) Loss(tp *nn.Tape[float32], sim *nn.Var[float32]) *nn.Var[float32] {
	loss := b.Base.Loss(tp, sim)
	n, m := sim.Value.Dims()
	if b.err != nil || b.Weight == 0 {
		return loss
	}
	if n != len(b.pairs) || m != n {
		b.err = fmt.Errorf("in-batch distillation: a %dx%d score matrix for %d pairs", n, m, len(b.pairs))
		return loss
	}
	temp := distillTemperature(b.Temperature)
	cols := make([][]int, n)
	for i := range n {
		cols[i] = hardest(sim.Value.Data[i*n:(i+1)*n], i, b.Candidates)
	}
	// The teacher scores every row's answers at once: the rows are
	// independent, and a cross-encoder is most of the step's work.
	teach := make([][]float64, n)
	var mu sync.Mutex
	nn.Parallel(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			answers := make([]string, len(cols[i]))
			for k, j := range cols[i] {
				answers[k] = b.pairs[j].Answer
			}
			t, err := b.Teacher(b.ctx, b.pairs[i].Question, answers)
			if err == nil && len(t) != len(answers) {
				err = fmt.Errorf("%d scores for %d answers", len(t), len(answers))
			}
			if err != nil {
				mu.Lock()
				if b.err == nil {
					b.err = fmt.Errorf("in-batch distillation: teacher, question %q: %w", b.pairs[i].Question, err)
				}
				mu.Unlock()
				return
			}
			teach[i] = t
		}
	})
	if b.err != nil {
		return loss
	}
	// Answers outside a row's set take no part in its KL: the teacher's
	// softmax gives them 0, and the model's is masked to the set.
	const masked = -1e4
	kls := make([]*nn.Var[float32], n)
	for i := range n {
		t, mask := make([]float32, n), make([]float32, n)
		for j := range n {
			t[j], mask[j] = float32(math.Inf(-1)), masked
		}
		for k, j := range cols[i] {
			t[j], mask[j] = float32(teach[i][k]/temp), 0
		}
		row := tp.Add(tp.Reshape(tp.Rows(sim, i, i+1), n), tp.Const(nn.FromSlice(mask)))
		kls[i] = distillKL(tp, row, t, temp)
	}
	kl := tp.Scale(tp.Sum(tp.Concat(kls...)), b.Weight*temp*temp/float64(n))
	return tp.Add(loss, kl)
}

// hardest returns row i's own column i and the k−1 other columns of the
// highest scores (k < 1 or k ≥ len(scores): every column), in the order
// of their scores, best first. The teacher sees them in that order, as a
// reranker sees a retriever's list, so that a teacher that reads
// positions (wo+rr, rr) learns nothing from where the gold answer is.
func hardest(scores []float32, i, k int) []int {
	byScore := func(a, b int) int { return cmp.Compare(scores[b], scores[a]) }
	others := make([]int, 0, len(scores)-1)
	for j := range scores {
		if j != i {
			others = append(others, j)
		}
	}
	slices.SortStableFunc(others, byScore)
	if k >= 1 && k-1 < len(others) {
		others = others[:k-1]
	}
	cols := append([]int{i}, others...)
	slices.SortStableFunc(cols, byScore)
	return cols
}
