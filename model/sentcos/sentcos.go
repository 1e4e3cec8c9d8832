// Package sentcos is the zero-shot sentence-vector ranker: the cosine of
// the question's and the candidate's sentence vectors from a pre-trained
// sentence encoder (USE-Lite), with nothing trained. It is the analogue of
// the ENDX paper's USE-QA baseline (a universal sentence encoder scoring
// question–answer pairs by similarity), with USE-Lite's general-purpose
// vectors in place of USE-QA's question-answer ones.
//
// `as2 import use-lite --out use.as2` writes it as a model file (the
// encoder's weights and vocabulary inside), which as2 eval, rank, cascades
// and serve read as any other.
package sentcos

import (
	"context"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// Name is the architecture's name.
const Name = "sentence-cosine"

// Hyper records the encoder kind.
type Hyper struct {
	Encoder string `json:"encoder" recipe:"-"`
}

// Model scores candidates by cosine similarity of USE-Lite sentence
// vectors.
type Model struct {
	hyper Hyper
	enc   *uselite.Encoder
	ps    *nn.Params[float32]
	model.TrainingRecord
}

// New wraps a USE-Lite encoder.
func New(h Hyper, enc encoder.Encoder[float32]) (*Model, error) {
	u, ok := enc.(*uselite.Encoder)
	if !ok || u == nil {
		return nil, fmt.Errorf("%s needs the use-lite encoder", Name)
	}
	return &Model{hyper: Hyper{Encoder: uselite.Kind}, enc: u, ps: nn.NewParams[float32]()}, nil
}

func init() {
	model.Register(model.Arch[Hyper]{
		Name:    Name,
		Summary: "zero-shot: cosine of USE-Lite sentence vectors (the ENDX paper's USE-QA baseline analogue); nothing to train",
		Help: `sentence-cosine scores a candidate by the cosine of its USE-Lite sentence
vector with the question's, untrained (the ENDX paper's USE-QA baseline, with
USE-Lite). Write it with as2 import use-lite --out use.as2 rather than train it.`,
		Hyper:      func() Hyper { return Hyper{} },
		PaperHyper: func() Hyper { return Hyper{} },
		Training: func(_ bool, obj model.Objective) model.Training {
			return model.Training{Objective: obj, Epochs: 1, LR: 1e-3, Batch: 8}
		},
		New: func(h Hyper, enc encoder.Encoder[float32], _ uint64) (model.Neural, error) {
			return New(h, enc)
		},
		Encoder: uselite.Kind,
	})
}

// Score implements rank.Ranker: the candidates' sentence vectors, spread
// over the cores, against the question's.
func (m *Model) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qv := m.enc.Embed([]string{q.Text})[0]
	out := make([]float64, len(q.Candidates))
	nn.Parallel(len(out), func(lo, hi int) {
		texts := make([]string, 0, hi-lo)
		for i := lo; i < hi; i++ {
			texts = append(texts, q.Candidates[i].Text)
		}
		for j, v := range m.enc.Embed(texts) {
			var dot float64
			for k, x := range v {
				dot += float64(x) * float64(qv[k])
			}
			out[lo+j] = dot // unit vectors: the dot product is the cosine
		}
	})
	return out, nil
}

// Params implements model.Trainable: none.
func (m *Model) Params() *nn.Params[float32] { return m.ps }

// Prepare implements model.Trainable.
func (m *Model) Prepare(q *dataset.Question) model.Input { return input{q} }

// Loss implements model.Trainable: the model has nothing to train.
func (m *Model) Loss(*nn.Tape[float32], model.Input, model.Objective) (*nn.Var[float32], error) {
	return nil, fmt.Errorf("%s has nothing to train: write it with as2 import use-lite", Name)
}

// ParamsChanged implements model.Trainable.
func (m *Model) ParamsChanged() {}

// Config implements model.Model.
func (m *Model) Config() model.Config {
	return model.NeuralConfig(Name, m.hyper, m.enc, m.ps, m.TrainingRecord)
}

// Tensors implements model.Model: the encoder's weights.
func (m *Model) Tensors() []safetensors.Tensor { return model.NeuralTensors(m.ps, m.enc) }

type input struct{ q *dataset.Question }

func (in input) Question() *dataset.Question { return in.q }
