package train

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/crossencoder"
	"github.com/as2/as2/rank"
)

// Plan is a recipe resolved for one run: the values Train, or InBatch,
// takes.
type Plan struct {
	// Options holds the training settings and the seed; its Objective is
	// the candidate objective (nil under an in-batch one), scaled by the
	// recipe's score scale.
	Options
	// InBatch is the in-batch objective, or nil.
	InBatch model.InBatchObjective
	// Distill is the recipe's teacher, or nil: SetTeacher adds its scores
	// to the objective.
	Distill *model.Distillation
}

// Resolve checks r and turns its training settings into a Plan, for a run
// with dev questions (or a dev pool) when hasDev. Without them KeepBest is
// off, and the last epoch is kept: a recipe's keep_best says what to do
// when there is a dev set, so that one recipe serves a pre-training run
// without one. Errors are *model.FieldError where a field is at fault.
func Resolve(r model.Recipe, hasDev bool) (Plan, error) {
	if err := r.Validate(); err != nil {
		return Plan{}, err
	}
	t := r.Training
	p := Plan{
		Options: Options{Training: model.Training{Epochs: t.Epochs, LR: t.LR, Batch: t.Batch, ClipNorm: t.Clip,
			Negatives: t.Negatives, KeepBest: t.KeepBest && hasDev}, Seed: t.Seed},
		Distill: t.Distill,
	}
	if slices.Contains(model.InBatchObjectives, t.Objective) {
		ib, err := model.ParseInBatchObjective(t.Objective)
		if err != nil {
			return Plan{}, err
		}
		p.InBatch = ib
		switch {
		case t.ScoreScale != 1:
			return Plan{}, &model.FieldError{Field: "training.score_scale", Value: t.ScoreScale,
				Want: "not with the in-batch objective " + t.Objective + " (dual encoders scale with their hyperparameter scale)"}
		case t.Negatives > 0:
			return Plan{}, &model.FieldError{Field: "training.negatives", Value: t.Negatives,
				Want: "not with the in-batch objective " + t.Objective + " (its negatives are the batch's other answers)"}
		case t.Distill != nil && model.SharesAnswers(ib):
			return Plan{}, &model.FieldError{Field: "training.objective", Value: strconv.Quote(t.Objective),
				Want: "not with a teacher (distill): the teacher's in-batch term assumes one copy of each answer a batch, which " + t.Objective + " does not keep; use in-batch-softmax"}
		}
		return p, nil
	}
	obj, err := model.ParseObjective(t.Objective)
	if err != nil {
		return Plan{}, err
	}
	p.Objective = obj
	if t.ScoreScale != 1 {
		p.Objective = model.Scaled{Base: obj, Scale: t.ScoreScale}
	}
	return p, nil
}

// ObjectiveName is the name of the plan's objective, before any teacher.
func (p *Plan) ObjectiveName() string {
	switch {
	case p.InBatch != nil:
		return p.InBatch.Name()
	case p.Objective != nil:
		return p.Objective.Name()
	}
	return model.Pointwise.Name()
}

// SetTeacher adds teacher's scores (the plan's Distill) to the objective.
// Under a candidate objective the teacher scores every question of qs, the
// training questions, once, before training (progress, if set, is told
// how many are done); under an in-batch objective it scores each batch's
// questions against their hardest answers as training goes.
func (p *Plan) SetTeacher(ctx context.Context, teacher rank.Ranker, qs []dataset.Question, progress func(done int)) error {
	d := p.Distill
	if d == nil {
		return fmt.Errorf("the recipe has no teacher (distill)")
	}
	if p.InBatch != nil {
		p.InBatch = model.InBatchDistilled{
			Base: p.InBatch,
			Teacher: func(ctx context.Context, question string, answers []string) ([]float64, error) {
				q := &dataset.Question{ID: "distill", Text: question, Candidates: make([]dataset.Candidate, len(answers))}
				for i, a := range answers {
					q.Candidates[i] = dataset.Candidate{ID: strconv.Itoa(i), Text: a, Position: i, Label: dataset.Unlabeled}
				}
				return teacher.Score(ctx, q)
			},
			Weight:      d.Weight,
			Temperature: d.Temperature,
			Candidates:  d.Candidates,
		}
		return nil
	}
	// Scores are kept by candidate, so that a question trained on a draw
	// of its negatives (Negatives) finds its candidates' scores.
	key := func(q *dataset.Question) string { return q.ID + "\x00" + q.Text }
	scores := make(map[string]map[string]float32, len(qs))
	for i := range qs {
		q := &qs[i]
		s, err := teacher.Score(ctx, q)
		if err != nil {
			return fmt.Errorf("teacher %s: question %s: %w", d.Teacher, q.ID, err)
		}
		if len(s) != len(q.Candidates) {
			return fmt.Errorf("teacher %s: question %s: %d scores for %d candidates", d.Teacher, q.ID, len(s), len(q.Candidates))
		}
		byID := make(map[string]float32, len(s))
		for j, v := range s {
			byID[q.Candidates[j].ID] = float32(v)
		}
		scores[key(q)] = byID
		if progress != nil {
			progress(i + 1)
		}
	}
	base := p.Objective
	if base == nil {
		base = model.Pointwise
	}
	p.Objective = model.Distilled{
		Base: base,
		Teacher: func(q *dataset.Question) []float32 {
			byID := scores[key(q)]
			t := make([]float32, len(q.Candidates))
			for j, c := range q.Candidates {
				v, ok := byID[c.ID]
				if !ok {
					return nil
				}
				t[j] = v
			}
			return t
		},
		Weight:      d.Weight,
		Temperature: d.Temperature,
	}
	return nil
}

// OpenEncoder opens the token encoder a recipe names: "static" (or "")
// over the word vectors in embeddings (of format, e.g. "auto"; "" for the
// data folder's default), "use-lite" (its default folder), "use-lite:PATH"
// or "hf:DIR" (a Hugging Face checkpoint of a registered family:
// crossencoder.OpenHF).
func OpenEncoder(name, embeddings, format string) (encoder.Encoder[float32], error) {
	switch {
	case name == "" || name == encoder.StaticKind:
		if embeddings == "" {
			embeddings = catalog.DefaultEmbeddings()
		}
		vecs, err := embed.Load(embeddings, format)
		if err != nil {
			return nil, err
		}
		return encoder.NewStatic[float32](vecs)
	case embeddings != "":
		return nil, fmt.Errorf("word vectors (%s) are for the static encoder, not %s", embeddings, name)
	case strings.HasPrefix(name, "hf:"):
		enc, _, _, err := crossencoder.OpenHF(strings.TrimPrefix(name, "hf:"))
		return enc, err
	}
	if path, ok := uselite.SpecPath(name); ok {
		return uselite.LoadEncoder(path)
	}
	return nil, fmt.Errorf("encoder %q: want static, use-lite[:PATH] or hf:DIR", name)
}

// NewModel builds the untrained model that r describes over the encoder r
// names (see OpenEncoder: embeddings and format are a static encoder's
// word vectors), the encoder's weights taken from initEncoder's fine-tuned
// encoder when it is not nil (transfer between architectures, e.g. a
// cross-encoder from a dual encoder over the same pretrained encoder).
func NewModel(r model.Recipe, embeddings, format string, initEncoder model.Model) (model.Trainable, error) {
	a, err := model.Lookup(r.Architecture)
	if err != nil {
		return nil, err
	}
	enc, err := OpenEncoder(r.Encoder, embeddings, format)
	if err != nil {
		return nil, fmt.Errorf("encoder %s: %w", r.Encoder, err)
	}
	if initEncoder != nil {
		if err := model.InitEncoder(enc, initEncoder); err != nil {
			return nil, fmt.Errorf("encoder weights from a %s model: %w", initEncoder.Config().Architecture, err)
		}
	}
	return a.New(r, enc)
}
