package model

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model/safetensors"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/rank"
)

// Input is a question prepared for one model, tokenised once: training
// prepares a dataset once and reuses it every epoch, and a request is
// prepared once per Score.
type Input interface {
	Question() *dataset.Question
}

// Prepared is a question whose sentences an architecture prepared
// (tokenised) once: the usual Input.
type Prepared[S any] struct {
	Q          *dataset.Question
	Text       S   // the question's sentence
	Candidates []S // the candidates', in order
}

// Question implements Input.
func (p *Prepared[S]) Question() *dataset.Question { return p.Q }

// Prepare prepares q's sentences with sentence, the candidates spread over
// the cores.
func Prepare[S any](q *dataset.Question, sentence func(string) S) *Prepared[S] {
	p := &Prepared[S]{Q: q, Text: sentence(q.Text), Candidates: make([]S, len(q.Candidates))}
	nn.Parallel(len(p.Candidates), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p.Candidates[i] = sentence(q.Candidates[i].Text)
		}
	})
	return p
}

// Trainable is a model that training can fit and save.
type Trainable interface {
	Model
	// Params returns the trainable parameters.
	Params() *nn.Params[float32]
	// Prepare tokenises q for Loss.
	Prepare(q *dataset.Question) Input
	// Loss records on tp the loss of one prepared question under obj.
	Loss(tp *nn.Tape[float32], in Input, obj Objective) (*nn.Var[float32], error)
	// ParamsChanged tells the model its parameters were updated, so that
	// inference caches are dropped.
	ParamsChanged()
	// SetTraining records how the model was trained, for its file.
	SetTraining(v any) error
}

// Network gives a neural ranker its Score (rank.Ranker), Prepare and Loss
// from its preparation of a question (tokenisation) and its forward pass,
// which computes the scores [n] of the question's candidates on tp; infer
// is set when scoring: no gradients, and the candidates may be spread over
// the cores with Tapes().StackRows. Architectures embed the *Network that
// NewNetwork returns.
type Network[In Input] struct {
	prepare func(q *dataset.Question) In
	forward func(tp *nn.Tape[float32], in In, infer bool) *nn.Var[float32]
	tapes   nn.TapePool[float32]
}

// NewNetwork returns the Network of a preparation and a forward pass.
func NewNetwork[In Input](prepare func(q *dataset.Question) In, forward func(tp *nn.Tape[float32], in In, infer bool) *nn.Var[float32]) *Network[In] {
	return &Network[In]{prepare: prepare, forward: forward}
}

// Tapes is the pool of inference tapes that Score uses.
func (n *Network[In]) Tapes() *nn.TapePool[float32] { return &n.tapes }

// Score implements rank.Ranker.
func (n *Network[In]) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(q.Candidates) == 0 {
		return nil, nil
	}
	in := n.prepare(q)
	return n.tapes.Scores(func(tp *nn.Tape[float32]) *nn.Var[float32] { return n.forward(tp, in, true) }), nil
}

// Prepare implements Trainable.
func (n *Network[In]) Prepare(q *dataset.Question) Input { return n.prepare(q) }

// Loss implements Trainable: obj on the training forward pass.
func (n *Network[In]) Loss(tp *nn.Tape[float32], in Input, obj Objective) (*nn.Var[float32], error) {
	x, ok := in.(In)
	if !ok {
		return nil, fmt.Errorf("input %T was prepared by another model", in)
	}
	return obj.Loss(tp, n.forward(tp, x, false), x.Question()), nil
}

var _ rank.Ranker = (*Network[Input])(nil)

// TrainingRecord is the description of how a model was trained that its
// file keeps in Config.Training. Neural architectures embed it.
type TrainingRecord json.RawMessage

// SetTraining records v, marshalled to JSON.
func (r *TrainingRecord) SetTraining(v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*r = js
	return nil
}

func (r *TrainingRecord) record() *TrainingRecord { return r }

// Neural is a model stored the neural architectures' way; embedding
// TrainingRecord provides its unexported method.
type Neural interface {
	Trainable
	record() *TrainingRecord
}

// NeuralConfig is the configuration of a neural model of architecture
// arch with hyperparameters hyper over enc.
func NeuralConfig(arch string, hyper any, enc encoder.Encoder[float32], ps *nn.Params[float32], rec TrainingRecord) Config {
	h, _ := json.Marshal(hyper)
	return Config{Architecture: arch, Encoder: enc.Spec(), Params: ps.Count(), Hyper: h, Training: json.RawMessage(rec)}
}

// NeuralTensors returns the parameters, then the encoder's tensors.
func NeuralTensors(ps *nn.Params[float32], enc encoder.Encoder[float32]) []safetensors.Tensor {
	var out []safetensors.Tensor
	for _, p := range ps.All() {
		out = append(out, safetensors.Tensor{Name: p.Name, Shape: p.Shape(), Data: p.Float32s()})
	}
	return append(out, enc.Tensors()...)
}

// loadParams sets m's parameters from a file's tensors; they must be
// finite.
func loadParams(m Neural, cfg Config, tensors []safetensors.Tensor) error {
	for _, p := range m.Params().All() {
		d, err := Tensor(tensors, p.Name, p.Shape()...)
		if err != nil {
			return err
		}
		if err := p.SetFloat32s(d); err != nil {
			return err
		}
	}
	if err := m.Params().CheckFinite(); err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	*m.record() = TrainingRecord(cfg.Training)
	return nil
}
