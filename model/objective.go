package model

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/nn"
)

// Objective is a training objective over one question's candidate scores:
// a value that training is given, not a flag inside it, so that new
// objectives need no change to the training loop.
type Objective interface {
	// Name is the objective's name in flags and training records.
	Name() string
	// Usable reports whether q can teach anything under the objective.
	Usable(q *dataset.Question) bool
	// Loss records on tp the loss of q's candidate scores [n].
	Loss(tp *nn.Tape[float32], scores *nn.Var[float32], q *dataset.Question) *nn.Var[float32]
}

// The objectives over a question's candidates.
var (
	// Pointwise is the mean binary cross-entropy of the scores as logits
	// (Comp-Clip paper, equation 8).
	Pointwise Objective = pointwise{}
	// Listwise is the KL divergence between the softmax of the scores and
	// the normalised gold labels (Cosinet paper, section 4.2; Comp-Clip
	// paper, equation 7).
	Listwise Objective = listwise{}
)

// TripletHinge is the pairwise hinge max(0, margin − s⁺ + s⁻) averaged over
// a question's (positive, negative) pairs: the triplet loss of the HAS
// paper, with the question's other candidates as the negatives (all of
// them, or a draw: Training.Negatives).
type TripletHinge struct{ Margin float64 }

// Objectives lists the objectives ParseObjective knows.
var Objectives = []string{"pointwise", "listwise", "triplet"}

// ParseObjective returns the objective called name ("triplet" takes the
// HAS paper's margin, 0.1).
func ParseObjective(name string) (Objective, error) {
	switch name {
	case "pointwise":
		return Pointwise, nil
	case "listwise":
		return Listwise, nil
	case "triplet":
		return TripletHinge{Margin: 0.1}, nil
	}
	return nil, fmt.Errorf("objective %q: want one of %s", name, strings.Join(Objectives, ", "))
}

type pointwise struct{}

func (pointwise) Name() string { return "pointwise" }

func (pointwise) Usable(q *dataset.Question) bool { return len(q.Candidates) > 0 && q.Labelled() }

func (pointwise) Loss(tp *nn.Tape[float32], scores *nn.Var[float32], q *dataset.Question) *nn.Var[float32] {
	return tp.BCEWithLogits(scores, labels(q))
}

type listwise struct{}

func (listwise) Name() string { return "listwise" }

// Usable needs a positive and a negative candidate: otherwise the
// normalised gold distribution is undefined or uniform.
func (listwise) Usable(q *dataset.Question) bool { return mixed(q) }

func (listwise) Loss(tp *nn.Tape[float32], scores *nn.Var[float32], q *dataset.Question) *nn.Var[float32] {
	return tp.KLDiv(scores, labels(q))
}

// Name implements Objective.
func (TripletHinge) Name() string { return "triplet" }

// Usable implements Objective: a triplet needs a positive and a negative.
func (TripletHinge) Usable(q *dataset.Question) bool { return mixed(q) }

// Loss implements Objective.
func (o TripletHinge) Loss(tp *nn.Tape[float32], scores *nn.Var[float32], q *dataset.Question) *nn.Var[float32] {
	return tp.Hinge(scores, labels(q), o.Margin)
}

// Scaled is Base over the scores times Scale. A model that scores by
// cosine, in [−1, 1], gives a softmax objective (Listwise) too flat a
// distribution to learn from; a scale of 10 to 20 sharpens it, as the
// dual encoders' in-batch softmax is scaled (dual's Hyper.Scale). The
// margin of TripletHinge is then in scaled units.
type Scaled struct {
	Base  Objective
	Scale float64
}

// Name implements Objective.
func (s Scaled) Name() string { return fmt.Sprintf("%s, scores ×%g", s.Base.Name(), s.Scale) }

// Usable implements Objective: what Base can use.
func (s Scaled) Usable(q *dataset.Question) bool { return s.Base.Usable(q) }

// Loss implements Objective.
func (s Scaled) Loss(tp *nn.Tape[float32], scores *nn.Var[float32], q *dataset.Question) *nn.Var[float32] {
	return s.Base.Loss(tp, tp.Scale(scores, s.Scale), q)
}

// Distilled is Base plus knowledge distillation (Hinton, Vinyals and Dean
// 2015): Weight · T² · KL(softmax(t/T) ‖ softmax(s/T)) over a question's
// candidates, t the teacher's scores and s the model's, at temperature T.
// The model learns the teacher's whole ordering of the candidates, not
// only which are gold: how close each wrong one comes. T² keeps the
// gradient's size as T changes. A question the teacher has no scores for
// (Teacher returns nil) trains on Base alone.
type Distilled struct {
	Base        Objective
	Teacher     func(q *dataset.Question) []float32
	Weight      float64
	Temperature float64
}

// Name implements Objective.
func (d Distilled) Name() string { return d.Base.Name() + "+distilled" }

// Usable implements Objective: what Base can use.
func (d Distilled) Usable(q *dataset.Question) bool { return d.Base.Usable(q) }

// Loss implements Objective.
func (d Distilled) Loss(tp *nn.Tape[float32], scores *nn.Var[float32], q *dataset.Question) *nn.Var[float32] {
	loss := d.Base.Loss(tp, scores, q)
	t := d.Teacher(q)
	if t == nil || d.Weight == 0 {
		return loss
	}
	if len(t) != scores.Value.Len() {
		panic(fmt.Sprintf("model: Distilled: %d teacher scores for %d candidates", len(t), scores.Value.Len()))
	}
	temp := distillTemperature(d.Temperature)
	soft := make([]float32, len(t))
	scored := false
	for i, v := range t {
		soft[i] = v / float32(temp)
		scored = scored || !math.IsInf(float64(v), -1)
	}
	if !scored { // every candidate empty: the teacher prefers none
		return loss
	}
	return tp.Add(loss, tp.Scale(distillKL(tp, scores, soft, temp), d.Weight*temp*temp))
}

// distillTemperature is a distillation's temperature T: 0 or less means 1.
func distillTemperature(t float64) float64 {
	if t <= 0 {
		return 1
	}
	return t
}

// distillKL is KL(softmax(t) ‖ softmax(s/temp)), t the teacher's scores
// already divided by temp (−Inf: a candidate the teacher does not score).
func distillKL(tp *nn.Tape[float32], s *nn.Var[float32], t []float32, temp float64) *nn.Var[float32] {
	target := tp.Softmax(tp.Const(nn.FromSlice(t))).Value.Data // a constant: nothing to record
	return tp.KLDiv(tp.Scale(s, 1/temp), target)
}

// mixed reports whether every candidate of q is labelled and q has at least
// one positive and one negative candidate.
func mixed(q *dataset.Question) bool {
	if len(q.Candidates) == 0 || !q.Labelled() {
		return false
	}
	p := q.Positives()
	return p > 0 && p < len(q.Candidates)
}

// labels are q's gold labels as 0/1 targets.
func labels(q *dataset.Question) []float32 {
	out := make([]float32, len(q.Candidates))
	for i, c := range q.Candidates {
		if c.Label == dataset.Positive {
			out[i] = 1
		}
	}
	return out
}

// InBatchObjective is an objective over a batch of B questions and their B
// answers rather than over one question's candidates: the contrastive
// losses of dual encoders (ENDX paper, section 3), where the batch's other
// answers are each question's negatives.
type InBatchObjective interface {
	Name() string
	// Loss records the loss of sim [B, B], the scores of every question
	// (row) against every answer of the batch (column); answer i belongs
	// to question i.
	Loss(tp *nn.Tape[float32], sim *nn.Var[float32]) *nn.Var[float32]
}

// InBatchSoftmax is the in-batch softmax: for each question, the cross-
// entropy of its own answer among the batch's answers, averaged.
var InBatchSoftmax InBatchObjective = inBatchSoftmax{}

type inBatchSoftmax struct{}

func (inBatchSoftmax) Name() string { return "in-batch-softmax" }

func (inBatchSoftmax) Loss(tp *nn.Tape[float32], sim *nn.Var[float32]) *nn.Var[float32] {
	b, n := sim.Value.Dims()
	if b != n {
		panic(fmt.Sprintf("model: in-batch softmax of a %dx%d score matrix", b, n))
	}
	losses := make([]*nn.Var[float32], b)
	for i := range b {
		target := make([]float32, b)
		target[i] = 1
		losses[i] = tp.KLDiv(tp.Reshape(tp.Rows(sim, i, i+1), b), target)
	}
	return tp.Scale(tp.Sum(tp.Concat(losses...)), 1/float64(b))
}

// SharedAnswerSoftmax is the in-batch softmax for batches in which an
// answer may stand for more than one question: each question's target is
// spread evenly over the batch's copies of its answer, so that a shared
// answer counts correct for every question it answers instead of as a
// negative. With one copy of each answer it is InBatchSoftmax. The
// training loop (train.InBatch) puts the questions that share an answer in
// one batch (SharesAnswers), where ENDX's q|q alignment can pull them
// together: the paper finds its gain largest on answers with several
// questions (ENDX, section 4.5, Fig. 2 and Table 4). Unbound, it is
// InBatchSoftmax.
var SharedAnswerSoftmax BatchObjective = sharedAnswerSoftmax{}

type sharedAnswerSoftmax struct{ inBatchSoftmax }

func (sharedAnswerSoftmax) Name() string { return "shared-answer-softmax" }

func (sharedAnswerSoftmax) ForBatch(_ context.Context, pairs []Pair) BoundObjective {
	answers := make([]string, len(pairs))
	for i, p := range pairs {
		answers[i] = p.Answer
	}
	return boundShared{answers}
}

type boundShared struct{ answers []string }

func (boundShared) Name() string { return SharedAnswerSoftmax.Name() }
func (boundShared) Err() error   { return nil }

func (b boundShared) Loss(tp *nn.Tape[float32], sim *nn.Var[float32]) *nn.Var[float32] {
	return SharedAnswerLoss(tp, sim, b.answers)
}

// SharesAnswers reports whether obj is SharedAnswerSoftmax, bound or not:
// an objective under which a batch may hold an answer more than once.
func SharesAnswers(obj InBatchObjective) bool {
	switch obj.(type) {
	case sharedAnswerSoftmax, boundShared:
		return true
	}
	return false
}

// SharedAnswerLoss is SharedAnswerSoftmax's loss over sim [B, B], answer j
// of the batch being answers[j]: −(1/B) Σ_i Σ_j t_ij log softmax(sim_i)_j,
// with t_ij = 1/k_i for the k_i columns j whose answer is row i's. Over
// copies that score alike, as a dual encoder's do, that is −log of the
// copies' summed probability plus the constant log k_i. Nil answers are
// all distinct: the in-batch softmax, Eq. 1 of the ENDX paper. Generic,
// for the float64 gradient checks.
func SharedAnswerLoss[T nn.Float](tp *nn.Tape[T], sim *nn.Var[T], answers []string) *nn.Var[T] {
	b, n := sim.Value.Dims()
	if b != n || (answers != nil && b != len(answers)) {
		panic(fmt.Sprintf("model: shared-answer softmax of a %dx%d score matrix for %d answers", b, n, len(answers)))
	}
	target := nn.NewTensor[T](b, b)
	for i := range b {
		if answers == nil {
			target.Data[i*b+i] = 1
			continue
		}
		var same []int
		for j := range b {
			if answers[j] == answers[i] {
				same = append(same, j)
			}
		}
		for _, j := range same {
			target.Data[i*b+j] = 1 / T(len(same))
		}
	}
	return tp.Scale(tp.Sum(tp.Mul(tp.LogSoftmax(sim), tp.Const(target))), -1/float64(b))
}

// InBatchObjectives lists the in-batch objectives ParseInBatchObjective
// knows.
var InBatchObjectives = []string{"in-batch-softmax", "shared-answer-softmax"}

// ParseInBatchObjective returns the in-batch objective called name.
func ParseInBatchObjective(name string) (InBatchObjective, error) {
	switch name {
	case "in-batch-softmax":
		return InBatchSoftmax, nil
	case "shared-answer-softmax":
		return SharedAnswerSoftmax, nil
	}
	return nil, fmt.Errorf("in-batch objective %q: want one of %s", name, strings.Join(InBatchObjectives, ", "))
}

// Pair is a question and one of its correct answers: the training example
// of a dual encoder.
type Pair struct {
	Question, Answer string
}

// PairInput is a Pair an architecture prepared (tokenised) once.
type PairInput any

// InBatchTrainable is a model trained on batches of (question, answer)
// pairs under an InBatchObjective (train.InBatch), as dual encoders are.
type InBatchTrainable interface {
	Trainable
	// PreparePair tokenises p for InBatchLoss.
	PreparePair(p Pair) PairInput
	// InBatchLoss records on tp the loss of a batch of prepared pairs;
	// epoch is the number of epochs done so far, fractional, for losses
	// whose weights follow a schedule.
	InBatchLoss(tp *nn.Tape[float32], batch []PairInput, obj InBatchObjective, epoch float64) (*nn.Var[float32], error)
}

// LRScaler is a model whose parameters do not all train at the same
// learning rate: the training loop multiplies the rate of the parameter
// named name by LRScale(name), such as fresh layers over a fine-tuned
// pre-trained encoder.
type LRScaler interface {
	LRScale(name string) float64
}

// Training holds the training settings an architecture recommends: plain
// values, which the training loop takes as they are.
type Training struct {
	Objective Objective
	Epochs    int     // passes over the training questions
	LR        float64 // peak learning rate
	Batch     int     // questions per optimiser step
	ClipNorm  float64 // global gradient-norm clip; 0: none
	// Negatives caps a training question's negative candidates: each
	// epoch it trains on its positives and at most this many negatives,
	// drawn afresh (the HAS paper's sampled negatives). It bounds the
	// activations a long candidate list keeps for the backward pass.
	// 0: all of them.
	Negatives int
	// KeepBest ends training with the parameters of the epoch with the
	// best dev MAP: early stopping chosen on dev.
	KeepBest bool
}
