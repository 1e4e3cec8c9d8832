package train

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/rank"
)

// Run is a training run of a resolved Plan: the training data, the
// teacher of a plan that distils, and what the model's training record
// names.
type Run struct {
	Plan
	Questions []dataset.Question // the training questions
	// Teacher is the plan's Distill teacher, opened; TeacherProgress, if
	// set, is told how many questions it has scored before training.
	Teacher         rank.Ranker
	TeacherProgress func(done int)
	// Pairs are in-batch training pairs besides the questions' own, and
	// DevRetrieval measures the model after each in-batch epoch.
	Pairs        []model.Pair
	DevRetrieval func(ctx context.Context) (float64, error)
	// Dataset, Split and Init name the data and the model trained further
	// ("" for none) in the training record.
	Dataset, Split, Init string
}

// Fit adds the teacher's scores to the objective, trains m under the
// plan's candidate or in-batch objective and sets m's training record.
// After it, r.Options holds the objective trained under.
func (r *Run) Fit(ctx context.Context, m model.Trainable) (*Summary, error) {
	if r.Distill != nil {
		if r.Teacher == nil {
			return nil, fmt.Errorf("teacher %s: not opened", r.Distill.Teacher)
		}
		if err := r.SetTeacher(ctx, r.Teacher, r.Questions, r.TeacherProgress); err != nil {
			return nil, err
		}
	}
	if r.InBatch == nil {
		sum, err := Train(ctx, m, r.Questions, r.Options)
		if err != nil {
			return nil, err
		}
		return sum, m.SetTraining(NewRecord(r.Dataset, r.Split, r.Init, r.Options, sum))
	}
	im, ok := m.(model.InBatchTrainable)
	if !ok {
		return nil, fmt.Errorf("objective %s: a %s model cannot be trained on pairs (try the dual architecture)", r.InBatch.Name(), m.Config().Architecture)
	}
	opts := InBatchOptions{Options: r.Options, InBatch: r.InBatch, DevRetrieval: r.DevRetrieval}
	sum, err := InBatch(ctx, im, append(Pairs(r.Questions), r.Pairs...), opts)
	if err != nil {
		return nil, err
	}
	return sum, m.SetTraining(NewInBatchRecord(r.Dataset, r.Split, r.Init, opts, sum))
}

// DevText is r's dev measures as a log line gives them ("" for none).
func (r EpochResult) DevText() string {
	var parts []string
	if r.DevMAP != 0 || r.DevMRR != 0 {
		parts = append(parts, fmt.Sprintf("dev MAP %.4f  MRR %.4f", r.DevMAP, r.DevMRR))
	}
	if r.DevRetrievalMRR != 0 {
		parts = append(parts, fmt.Sprintf("dev-pool MRR %.4f", r.DevRetrievalMRR))
	}
	return strings.Join(parts, "  ")
}

// Line is r as an epoch's log line.
func (r EpochResult) Line() string {
	dev := r.DevText()
	if dev != "" {
		dev = "  " + dev
	}
	return fmt.Sprintf("epoch %d: loss %.4f  %.1fs%s", r.Epoch, r.Loss, r.Duration.Seconds(), dev)
}

// Text is s as as2 train reports it: for the model named name, trained
// in-batch (Questions then counts training pairs) or not, with this
// process's cores and BLAS backend.
func (s *Summary) Text(name string, inBatch bool) string {
	unit := "questions"
	if inBatch {
		unit = "training pairs"
	}
	dev := s.DevText()
	if dev != "" {
		dev = ", " + dev
	}
	return fmt.Sprintf("trained %s: %d parameters, %d %s (%d skipped), %d pairs in %.1fs (%.0f pairs/s, %d cores, %s)%s",
		name, s.Params, s.Questions, unit, s.Skipped, s.Pairs, s.Wall.Seconds(), float64(s.Pairs)/s.Wall.Seconds(),
		runtime.GOMAXPROCS(0), nn.BLASName(), dev)
}

// DevText says which epoch the run kept and its dev measures, or the last
// epoch's measures ("" when it had no dev set).
func (s *Summary) DevText() string {
	if s.Kept > 0 {
		r := s.Epochs[s.Kept-1]
		return fmt.Sprintf("kept epoch %d (%s)", r.Epoch, r.DevText())
	}
	if n := len(s.Epochs); n > 0 && s.Epochs[n-1].Dev {
		return s.Epochs[n-1].DevText()
	}
	return ""
}

// Describe names a model trained under p: its architecture, what sets it
// apart (e.g. its RNN) and the objective.
func Describe(m model.Model, p Plan) string {
	arch := m.Config().Architecture
	a, err := model.Lookup(arch)
	if err != nil {
		return arch
	}
	return fmt.Sprintf("%s (%s, %s)", arch, a.Describe(m), p.ObjectiveName())
}
