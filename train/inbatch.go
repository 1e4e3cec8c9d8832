package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/rank"
)

// InBatchModel is what InBatch fits: a ranker (for the dev evaluation)
// trained on batches of (question, answer) pairs (model.InBatchTrainable
// has these methods).
type InBatchModel interface {
	rank.Ranker
	Params() *nn.Params[float32]
	PreparePair(p model.Pair) model.PairInput
	InBatchLoss(tp *nn.Tape[float32], batch []model.PairInput, obj model.InBatchObjective, epoch float64) (*nn.Var[float32], error)
	ParamsChanged()
}

// InBatchOptions control InBatch: Options (its Objective is unused; Batch
// is the number of pairs per step, which are also each other's negatives;
// Workers is unused: a batch is one computation), the in-batch objective,
// and an optional retrieval dev measure. An InBatch objective that is a
// model.BatchObjective is bound to each batch's pairs before its loss.
type InBatchOptions struct {
	Options
	// InBatch is the objective over a batch's [B, B] scores (default:
	// model.InBatchSoftmax).
	InBatch model.InBatchObjective
	// DevRetrieval, if set, measures the model after each epoch by
	// retrieval MRR (e.g. on a ReQA dev pool); KeepBest then selects on it
	// rather than on the dev MAP of Dev.
	DevRetrieval func(ctx context.Context) (float64, error)
}

// Pairs returns the (question, correct answer) pairs of qs: one per
// positive candidate with text, questions without one giving none.
func Pairs(qs []dataset.Question) []model.Pair {
	var out []model.Pair
	for _, q := range qs {
		for _, c := range q.Candidates {
			if c.Label == dataset.Positive && c.Text != "" {
				out = append(out, model.Pair{Question: q.Text, Answer: c.Text})
			}
		}
	}
	return out
}

// batches splits the pairs' order into batches of at most size in which no
// question and no answer occurs twice: the batch's other answers are
// negatives, so a repeated answer (SQuAD questions share gold sentences) or
// a question's second correct answer would be a false negative. A pair that
// would repeat one waits for a later batch; pairs that fit in no batch
// (their question or answer repeats in every one) go alone at the end.
//
// With shared set (an objective that counts a shared answer correct for
// each of its questions, model.SharesAnswers), an answer may repeat, and
// each pair brings the pending pairs of its answer into its batch, room
// and questions allowing, so that the questions of one answer meet.
func batches(pairs []model.Pair, order []int, size int, shared bool) [][]int {
	var mates map[string][]int // shared: each answer's pairs, in order
	if shared {
		mates = map[string][]int{}
		for _, i := range order {
			mates[pairs[i].Answer] = append(mates[pairs[i].Answer], i)
		}
	}
	placed := make([]bool, len(pairs))
	var out [][]int
	pending := order
	for len(pending) > 0 {
		var batch []int
		qs, as := map[string]bool{}, map[string]bool{}
		fits := func(i int) bool {
			p := pairs[i]
			return !placed[i] && len(batch) < size && !qs[p.Question] && (shared || !as[p.Answer])
		}
		add := func(i int) {
			batch = append(batch, i)
			placed[i], qs[pairs[i].Question], as[pairs[i].Answer] = true, true, true
		}
		for _, i := range pending {
			if !fits(i) {
				continue
			}
			add(i)
			for _, j := range mates[pairs[i].Answer] {
				if fits(j) {
					add(j)
				}
			}
		}
		out = append(out, batch)
		var later []int
		for _, i := range pending {
			if !placed[i] {
				later = append(later, i)
			}
		}
		pending = later
	}
	return out
}

// InBatch fits m on (question, answer) pairs under an in-batch objective
// (ENDX paper, section 3.2: the batch's other answers are each question's
// negatives), with the conventions of Train: Adam with the slanted
// triangular schedule, Progress after each step, a dev evaluation and
// EpochEnd after each epoch, KeepBest, and a clear stop when the loss is
// not finite. The epoch passed to the model's loss is fractional (epochs
// done so far), for schedules such as ENDX's α ramp. In the Summary,
// Questions counts the training pairs, Skipped the pairs no batch could
// take (a last lone pair, with no negatives), and Pairs the pairs seen.
func InBatch(ctx context.Context, m InBatchModel, pairs []model.Pair, opts InBatchOptions) (*Summary, error) {
	if opts.Epochs < 1 {
		return nil, fmt.Errorf("epochs %d: must be at least 1", opts.Epochs)
	}
	if opts.Batch < 2 {
		return nil, fmt.Errorf("batch %d: in-batch training needs at least 2 pairs per batch (the others are the negatives)", opts.Batch)
	}
	if opts.LR <= 0 || math.IsNaN(opts.LR) {
		return nil, fmt.Errorf("learning rate %v: must be positive", opts.LR)
	}
	if opts.KeepBest && len(opts.Dev) == 0 && opts.DevRetrieval == nil {
		return nil, errors.New("keeping the best epoch needs dev questions or a dev pool")
	}
	if len(pairs) < 2 {
		return nil, fmt.Errorf("%d training pairs: in-batch training needs at least 2", len(pairs))
	}
	obj := opts.InBatch
	if obj == nil {
		obj = model.InBatchSoftmax
	}
	sum := &Summary{Params: m.Params().Count(), Questions: len(pairs)}
	start := time.Now()
	ins := make([]model.PairInput, len(pairs))
	nn.Parallel(len(pairs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ins[i] = m.PreparePair(pairs[i])
		}
	})
	rng := rand.New(rand.NewPCG(opts.Seed, 0x1b))
	order := rng.Perm(len(pairs))
	// The number of steps per epoch varies a little with the shuffle;
	// the schedule is laid out over the first epoch's count.
	shared := model.SharesAnswers(obj)
	stepsPerEpoch := len(batches(pairs, order, opts.Batch, shared))
	total := stepsPerEpoch * opts.Epochs
	sched := nn.NewSlantedTriangular(opts.LR, total)
	opt := newAdam(m)
	grads := m.Params().NewGrads()
	tp := nn.NewTape(grads, opts.Seed)
	tp.SetTrain(true)
	var evalTime time.Duration
	step := 0
	best := newBestEpoch()
	for epoch := 1; epoch <= opts.Epochs; epoch++ {
		epochStart := time.Now()
		if epoch > 1 {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		bs := batches(pairs, order, opts.Batch, shared)
		var epochLoss float64
		done := 0
		for _, b := range bs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if len(b) < 2 {
				if epoch == 1 {
					sum.Skipped += len(b)
				}
				continue // a lone pair has no negatives
			}
			batch := make([]model.PairInput, len(b))
			for i, j := range b {
				batch[i] = ins[j]
			}
			grads.Zero()
			tp.Reset()
			stepObj := obj
			var bound model.BoundObjective
			if bo, ok := obj.(model.BatchObjective); ok {
				bp := make([]model.Pair, len(b))
				for i, j := range b {
					bp[i] = pairs[j]
				}
				bound = bo.ForBatch(ctx, bp)
				stepObj = bound
			}
			l, err := m.InBatchLoss(tp, batch, stepObj, float64(epoch-1)+float64(done)/float64(len(pairs)))
			if err == nil && bound != nil {
				err = bound.Err()
			}
			if err != nil {
				return nil, fmt.Errorf("epoch %d: %w", epoch, err)
			}
			tp.Backward(l)
			loss := l.Scalar()
			step++
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, fmt.Errorf("%w: loss is %v at epoch %d, step %d of %d (try a lower --lr)", ErrNotFinite, loss, epoch, step, total)
			}
			if opts.ClipNorm > 0 {
				grads.ClipNorm(opts.ClipNorm)
			}
			opt.Step(grads, sched.At(min(step, total)-1))
			m.ParamsChanged()
			epochLoss += loss * float64(len(b))
			done += len(b)
			sum.Pairs += len(b)
			if opts.Progress != nil {
				opts.Progress(Progress{Epoch: epoch, Step: min(step, total), Steps: total, Loss: loss, Pairs: sum.Pairs, Elapsed: time.Since(start) - evalTime})
			}
		}
		tp.Reset()
		res := EpochResult{Epoch: epoch, Loss: epochLoss / float64(max(done, 1)), Duration: time.Since(epochStart)}
		t := time.Now()
		dev := math.Inf(-1)
		if len(opts.Dev) > 0 {
			rep, err := evaluation.Evaluate(ctx, m, opts.Dev, evaluation.Options{Measures: []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("mrr")}})
			if err != nil {
				return nil, fmt.Errorf("dev evaluation after epoch %d: %w", epoch, err)
			}
			res.Dev, res.DevMAP, res.DevMRR = true, rep.Result.Mean["map"], rep.Result.Mean["mrr"]
			dev = res.DevMAP
		}
		if opts.DevRetrieval != nil {
			mrr, err := opts.DevRetrieval(ctx)
			if err != nil {
				return nil, fmt.Errorf("dev retrieval after epoch %d: %w", epoch, err)
			}
			res.Dev, res.DevRetrievalMRR = true, mrr
			dev = mrr
		}
		evalTime += time.Since(t)
		sum.Epochs = append(sum.Epochs, res)
		if opts.KeepBest {
			best.offer(m, epoch, dev, sum)
		}
		if opts.EpochEnd != nil {
			opts.EpochEnd(res)
		}
	}
	best.restore(m)
	sum.Wall = time.Since(start) - evalTime
	return sum, nil
}

// NewInBatchRecord describes a run of InBatch with opts that gave sum.
func NewInBatchRecord(dataset, split, init string, opts InBatchOptions, sum *Summary) Record {
	r := NewRecord(dataset, split, init, opts.Options, sum)
	obj := opts.InBatch
	if obj == nil {
		obj = model.InBatchSoftmax
	}
	r.Objective, r.Listwise = obj.Name(), false
	return r
}
