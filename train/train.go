// Package train fits the neural rankers: epochs over a training set's
// questions with Adam and the slanted triangular learning rate of Howard &
// Ruder (2018), as the Cosinet paper trains (section 5.2), under an
// objective given as a value (model.Listwise, model.Pointwise, ...), with
// the questions of a batch spread over all cores, a dev-set evaluation
// after every epoch, and a stop with a clear message when the loss stops
// being finite. Each training question is prepared (tokenised) once, not
// once per epoch; with a cap on its negatives (Training.Negatives), once an
// epoch, since each epoch draws them afresh.
//
// A whole run as as2 train makes one is three values: a Source (a recipe
// file, a model to train further or a registered recipe, with fields set
// over it) gives the model.Recipe; Resolve turns it into a Plan; a Run of
// the plan, with its data and any teacher, fits the model (NewModel builds
// an untrained one) and records the training in it.
package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/rank"
)

// Model is what Train fits: a ranker with parameters and a loss over
// prepared questions (model.Trainable has these methods).
type Model interface {
	rank.Ranker
	// Params returns the trainable parameters.
	Params() *nn.Params[float32]
	// Prepare tokenises a question for Loss.
	Prepare(q *dataset.Question) model.Input
	// Loss records on tp the loss of one prepared question under obj.
	Loss(tp *nn.Tape[float32], in model.Input, obj model.Objective) (*nn.Var[float32], error)
	// ParamsChanged tells the model its parameters were updated, so that
	// inference caches are dropped.
	ParamsChanged()
}

// Options control Train: the training settings (an architecture's
// recommendation, or the user's), and how this run goes. With KeepBest,
// training ends with the parameters of the epoch with the best dev MAP
// (the first of equals), as the Comp-Clip paper trains (section 4.3).
type Options struct {
	model.Training        // the objective (default: pointwise), epochs, learning rate, batch, clipping
	Seed           uint64 // shuffling of the training questions
	Workers        int    // goroutines computing gradients; 0: GOMAXPROCS
	Dev            []dataset.Question
	Progress       func(Progress)
	// EpochEnd, if set, is called after each epoch's dev evaluation.
	EpochEnd func(EpochResult)
}

// Progress reports training after each optimiser step.
type Progress struct {
	Epoch, Step, Steps int     // Step counts from 1 up to Steps (all epochs)
	Loss               float64 // mean loss of the last step's questions
	Pairs              int     // candidate pairs seen so far
	Elapsed            time.Duration
}

// EpochResult summarises one epoch.
type EpochResult struct {
	Epoch  int     `json:"epoch"`
	Loss   float64 `json:"loss"` // mean training loss per question
	Dev    bool    `json:"-"`    // whether the dev set was evaluated
	DevMAP float64 `json:"dev_map,omitempty"`
	DevMRR float64 `json:"dev_mrr,omitempty"`
	// DevRetrievalMRR is InBatch's retrieval MRR on a dev pool.
	DevRetrievalMRR float64       `json:"dev_retrieval_mrr,omitempty"`
	Duration        time.Duration `json:"duration_ns"`
}

// Summary is Train's result.
type Summary struct {
	Params    int
	Questions int // training questions used
	Skipped   int // left out: useless under the objective (listwise: all candidates positive, or all negative)
	Pairs     int // candidate pairs seen, over all epochs
	Epochs    []EpochResult
	Kept      int           // with KeepBest, the epoch whose parameters were kept
	Wall      time.Duration // training time, dev evaluations excluded
}

// ErrNotFinite is wrapped by the error Train returns when the loss or the
// gradients stop being finite.
var ErrNotFinite = errors.New("training diverged")

// Train fits m on the questions of train.
func Train(ctx context.Context, m Model, train []dataset.Question, opts Options) (*Summary, error) {
	if opts.Epochs < 1 {
		return nil, fmt.Errorf("epochs %d: must be at least 1", opts.Epochs)
	}
	if opts.Batch < 1 {
		opts.Batch = 1
	}
	if opts.LR <= 0 || math.IsNaN(opts.LR) {
		return nil, fmt.Errorf("learning rate %v: must be positive", opts.LR)
	}
	if opts.Workers < 1 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.KeepBest && len(opts.Dev) == 0 {
		return nil, errors.New("keeping the best epoch needs dev questions")
	}
	obj := opts.Objective
	if obj == nil {
		obj = model.Pointwise
	}
	sum := &Summary{Params: m.Params().Count()}
	start := time.Now() // training time includes preparing the questions
	var usable []*dataset.Question
	for i := range train {
		if obj.Usable(&train[i]) {
			usable = append(usable, &train[i])
		} else {
			sum.Skipped++
		}
	}
	if opts.Negatives < 0 {
		return nil, fmt.Errorf("negatives %d: must be 0 (all) or positive", opts.Negatives)
	}
	// Without a cap on negatives each question is prepared once; with one,
	// each epoch prepares the draw it trains on.
	qs := make([]model.Input, len(usable))
	prepare := func(epoch int) {
		if opts.Negatives == 0 && epoch > 1 {
			return
		}
		draw := rand.New(rand.NewPCG(opts.Seed, uint64(epoch)))
		for i, q := range usable {
			if opts.Negatives > 0 {
				q = SampleNegatives(q, opts.Negatives, draw)
			}
			qs[i] = m.Prepare(q)
		}
	}
	sum.Questions = len(qs)
	if len(qs) == 0 {
		return nil, fmt.Errorf("no usable training questions (%d skipped: all-positive or all-negative, or unlabelled)", sum.Skipped)
	}
	stepsPerEpoch := (len(qs) + opts.Batch - 1) / opts.Batch
	total := stepsPerEpoch * opts.Epochs
	sched := nn.NewSlantedTriangular(opts.LR, total)
	opt := newAdam(m)
	workers := nn.NewWorkers(m.Params(), opts.Workers, opts.Seed)
	rng := rand.New(rand.NewPCG(opts.Seed, 0x7a1))
	var evalTime time.Duration
	step := 0
	best := newBestEpoch()
	// The order is shuffled in place each epoch, as the questions once
	// were: the same seed gives the same order as before the cap existed.
	order := make([]int, len(qs))
	for i := range order {
		order[i] = i
	}
	for epoch := 1; epoch <= opts.Epochs; epoch++ {
		epochStart := time.Now()
		prepare(epoch)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var epochLoss float64
		for b := 0; b < len(order); b += opts.Batch {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			batch := make([]model.Input, 0, opts.Batch)
			for _, k := range order[b:min(b+opts.Batch, len(order))] {
				batch = append(batch, qs[k])
			}
			errs := make([]error, len(batch)) // one slot per item: workers never share one
			loss, grads := workers.Run(len(batch), func(tp *nn.Tape[float32], i int) float64 {
				l, err := m.Loss(tp, batch[i], obj)
				if err != nil {
					errs[i] = fmt.Errorf("question %q: %w", batch[i].Question().ID, err)
					return 0
				}
				tp.Backward(l)
				return l.Scalar()
			})
			if err := errors.Join(errs...); err != nil {
				return nil, err
			}
			step++
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, fmt.Errorf("%w: loss is %v at epoch %d, step %d of %d (try a lower --lr)", ErrNotFinite, loss, epoch, step, total)
			}
			// The gradients are summed over the batch. Adam is invariant to
			// their scale (but for its epsilon), so they are averaged only
			// when clipping needs the true norm. A non-finite gradient shows
			// up as a non-finite loss at the next step.
			if opts.ClipNorm > 0 {
				grads.Scale(1 / float64(len(batch)))
				grads.ClipNorm(opts.ClipNorm)
			}
			opt.Step(grads, sched.At(step-1))
			m.ParamsChanged()
			epochLoss += loss
			for _, in := range batch {
				sum.Pairs += len(in.Question().Candidates)
			}
			if opts.Progress != nil {
				opts.Progress(Progress{Epoch: epoch, Step: step, Steps: total, Loss: loss / float64(len(batch)), Pairs: sum.Pairs, Elapsed: time.Since(start) - evalTime})
			}
		}
		res := EpochResult{Epoch: epoch, Loss: epochLoss / float64(len(qs)), Duration: time.Since(epochStart)}
		if len(opts.Dev) > 0 {
			t := time.Now()
			rep, err := evaluation.Evaluate(ctx, m, opts.Dev, evaluation.Options{Measures: []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("mrr")}})
			if err != nil {
				return nil, fmt.Errorf("dev evaluation after epoch %d: %w", epoch, err)
			}
			res.Dev, res.DevMAP, res.DevMRR = true, rep.Result.Mean["map"], rep.Result.Mean["mrr"]
			evalTime += time.Since(t)
		}
		sum.Epochs = append(sum.Epochs, res)
		if opts.KeepBest {
			best.offer(m, epoch, res.DevMAP, sum)
		}
		if opts.EpochEnd != nil {
			opts.EpochEnd(res)
		}
	}
	best.restore(m)
	sum.Wall = time.Since(start) - evalTime
	return sum, nil
}

// SampleNegatives returns q with its positive candidates and at most n of
// its negatives, drawn with r, in their original order (position-aware
// models see the document's order); q itself if it has n or fewer. Other
// candidates (unlabelled) are kept.
func SampleNegatives(q *dataset.Question, n int, r *rand.Rand) *dataset.Question {
	var neg []int
	for i, c := range q.Candidates {
		if c.Label == dataset.Negative {
			neg = append(neg, i)
		}
	}
	if len(neg) <= n {
		return q
	}
	r.Shuffle(len(neg), func(i, j int) { neg[i], neg[j] = neg[j], neg[i] })
	drop := make(map[int]bool, len(neg)-n)
	for _, i := range neg[n:] {
		drop[i] = true
	}
	s := *q
	s.Candidates = make([]dataset.Candidate, 0, len(q.Candidates)-len(drop))
	for i, c := range q.Candidates {
		if !drop[i] {
			s.Candidates = append(s.Candidates, c)
		}
	}
	return &s
}

// tunable is what keeping the best epoch needs of a model.
type tunable interface {
	Params() *nn.Params[float32]
	ParamsChanged()
}

// bestEpoch keeps the parameters of the epoch with the best dev score
// (KeepBest: the papers' early stopping).
type bestEpoch struct {
	score float64
	vals  [][]float32 // the parameters' values then, nil before any
}

func newBestEpoch() *bestEpoch { return &bestEpoch{score: math.Inf(-1)} }

// offer records epoch's parameters when its dev score beats the best so far.
func (b *bestEpoch) offer(m tunable, epoch int, score float64, sum *Summary) {
	if score <= b.score {
		return
	}
	b.score, sum.Kept = score, epoch
	all := m.Params().All()
	if b.vals == nil {
		b.vals = make([][]float32, len(all))
	}
	for i, p := range all {
		b.vals[i] = append(b.vals[i][:0], p.Value.Data...)
	}
}

// restore puts the best epoch's parameters back into m, if any was kept.
func (b *bestEpoch) restore(m tunable) {
	if b.vals == nil {
		return
	}
	for i, p := range m.Params().All() {
		copy(p.Value.Data, b.vals[i])
	}
	m.ParamsChanged()
}

// Record is how a model was trained, as its file keeps it
// (model.TrainingRecord).
type Record struct {
	Dataset     string        `json:"dataset"`
	Split       string        `json:"split"`
	Init        string        `json:"init,omitempty"`
	Objective   string        `json:"objective"`
	Listwise    bool          `json:"listwise"` // objective is listwise (files before objectives had names)
	Epochs      int           `json:"epochs"`
	Batch       int           `json:"batch"`
	LR          float64       `json:"lr"`
	Clip        float64       `json:"clip_norm,omitempty"`
	Negatives   int           `json:"negatives,omitempty"` // per question and epoch; 0: all
	KeptEpoch   int           `json:"kept_epoch,omitempty"`
	Seed        uint64        `json:"seed"`
	Questions   int           `json:"questions"`
	Skipped     int           `json:"skipped"`
	Pairs       int           `json:"pairs"`
	WallSeconds float64       `json:"wall_seconds"`
	BLAS        string        `json:"blas"`
	Epoch       []EpochResult `json:"epochs_log"`
}

// NewRecord describes a run of Train with opts that gave sum, on the
// named data (init: the model file training started from, if any).
func NewRecord(dataset, split, init string, opts Options, sum *Summary) Record {
	obj := opts.Objective
	if obj == nil {
		obj = model.Pointwise
	}
	return Record{
		Dataset: dataset, Split: split, Init: init, Objective: obj.Name(), Listwise: obj == model.Listwise,
		Epochs: opts.Epochs, Batch: opts.Batch, LR: opts.LR, Clip: opts.ClipNorm, Negatives: opts.Negatives, KeptEpoch: sum.Kept, Seed: opts.Seed,
		Questions: sum.Questions, Skipped: sum.Skipped, Pairs: sum.Pairs, WallSeconds: sum.Wall.Seconds(), BLAS: nn.BLASName(), Epoch: sum.Epochs,
	}
}

// newAdam is the optimiser of m's parameters, with m's learning-rate
// scales where it has them (model.LRScaler).
func newAdam(m interface{ Params() *nn.Params[float32] }) *nn.Adam[float32] {
	opt := nn.NewAdam(m.Params())
	if s, ok := m.(model.LRScaler); ok {
		opt.LRScale = func(p *nn.Param[float32]) float64 { return s.LRScale(p.Name) }
	}
	return opt
}
