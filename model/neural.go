package model

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/model/safetensors"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/text"
	"github.com/as2/as2/train"
)

// The neural architectures (cosinet, compagg) store their files alike:
// hyperparameters as JSON, every parameter under its name, and the static
// word vectors as one "embeddings" tensor whose rows Config.Vocabulary
// names, so that a model ranks without the vectors file it was trained with.

// embeddingsName is the tensor holding the static word vectors.
const embeddingsName = "embeddings"

// Network gives a neural ranker its Score (rank.Ranker) and Loss
// (train.Model) from its forward pass, which computes the scores [n] of q's
// candidates on tp; infer is set when scoring: no gradients, and the
// candidates may be spread over the cores with Tapes().StackRows.
// Architectures embed the *Network that NewNetwork returns.
type Network struct {
	forward func(tp *nn.Tape[float32], q *dataset.Question, infer bool) *nn.Var[float32]
	tapes   nn.TapePool[float32]
}

// NewNetwork returns the Network of a forward pass.
func NewNetwork(forward func(tp *nn.Tape[float32], q *dataset.Question, infer bool) *nn.Var[float32]) *Network {
	return &Network{forward: forward}
}

// Tapes is the pool of inference tapes that Score uses.
func (n *Network) Tapes() *nn.TapePool[float32] { return &n.tapes }

// Score implements rank.Ranker.
func (n *Network) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(q.Candidates) == 0 {
		return nil, nil
	}
	return n.tapes.Scores(func(tp *nn.Tape[float32]) *nn.Var[float32] { return n.forward(tp, q, true) }), nil
}

// Loss implements train.Model: the pointwise or listwise objective on the
// training forward pass.
func (n *Network) Loss(tp *nn.Tape[float32], q *dataset.Question, listwise bool) (*nn.Var[float32], error) {
	return train.Objective(tp, n.forward(tp, q, false), q, listwise), nil
}

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
	Model
	Params() *nn.Params[float32]
	record() *TrainingRecord
}

// NeuralConfig is the configuration of a neural model of architecture
// arch with hyperparameters hyper over vecs.
func NeuralConfig(arch string, hyper any, vecs *embed.Vectors, ps *nn.Params[float32], rec TrainingRecord) Config {
	h, _ := json.Marshal(hyper)
	return Config{
		Architecture: arch,
		Tokenizer:    text.TokenizerID,
		Embeddings:   vecs.Identity(),
		Params:       ps.Count(),
		Hyper:        h,
		Training:     json.RawMessage(rec),
		Vocabulary:   vecs.Words,
	}
}

// NeuralTensors returns the parameters, then the word vectors.
func NeuralTensors(ps *nn.Params[float32], vecs *embed.Vectors) []safetensors.Tensor {
	var out []safetensors.Tensor
	for _, p := range ps.All() {
		out = append(out, safetensors.Tensor{Name: p.Name, Shape: p.Shape(), Data: p.Float32s()})
	}
	return append(out, safetensors.Tensor{Name: embeddingsName, Shape: []int{vecs.Len(), vecs.Dim}, Data: vecs.Data})
}

// DecodeNeural rebuilds a neural model: it checks the tokenizer, reads the
// hyperparameters H and the word vectors, lets build make the untrained
// model, and loads its parameters, which must be finite.
func DecodeNeural[H any, M Neural](cfg Config, tensors []safetensors.Tensor, build func(H, *embed.Vectors) (M, error)) (Model, error) {
	if err := cfg.CheckTokenizer(); err != nil {
		return nil, err
	}
	var h H
	if err := json.Unmarshal(cfg.Hyper, &h); err != nil {
		return nil, fmt.Errorf("hyperparameters: %w", err)
	}
	vecs, err := embeddings(cfg, tensors)
	if err != nil {
		return nil, err
	}
	m, err := build(h, vecs)
	if err != nil {
		return nil, err
	}
	for _, p := range m.Params().All() {
		d, err := Tensor(tensors, p.Name, p.Shape()...)
		if err != nil {
			return nil, err
		}
		if err := p.SetFloat32s(d); err != nil {
			return nil, err
		}
	}
	if err := m.Params().CheckFinite(); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	*m.record() = TrainingRecord(cfg.Training)
	return m, nil
}

// embeddings rebuilds the word vectors stored by NeuralTensors and checks
// them against the configuration's identity.
func embeddings(cfg Config, tensors []safetensors.Tensor) (*embed.Vectors, error) {
	if len(cfg.Vocabulary) == 0 {
		return nil, fmt.Errorf("the file has no vocabulary")
	}
	var dim int
	for _, t := range tensors {
		if t.Name == embeddingsName && len(t.Shape) == 2 {
			dim = t.Shape[1]
		}
	}
	if dim == 0 {
		return nil, fmt.Errorf("the file has no embeddings tensor")
	}
	data, err := Tensor(tensors, embeddingsName, len(cfg.Vocabulary), dim)
	if err != nil {
		return nil, err
	}
	vecs := embed.New(dim)
	for i, w := range cfg.Vocabulary {
		if err := vecs.Add(w, data[i*dim:(i+1)*dim]); err != nil {
			return nil, fmt.Errorf("embeddings: %w", err)
		}
	}
	if id := vecs.Identity(); id != cfg.Embeddings {
		return nil, fmt.Errorf("embeddings are %s, the configuration says %s: the file is corrupt", id, cfg.Embeddings)
	}
	return vecs, nil
}
