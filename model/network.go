package model

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text"
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
	// independent is set by architectures whose candidates are scored
	// independently of each other (no RNN over them, no features over the
	// pool): Score then scores a large question in chunks.
	independent bool
}

// Memory bounds of Score. A question's memory grows with its candidates'
// tokens (a compare-aggregate model holds every candidate word's states at
// once), so:
//   - a model whose candidates are independent scores at most
//     ChunkCandidates candidates or ChunkBytes bytes of candidate text at a
//     time, which bounds its memory whatever the question's size, with the
//     scores it would give in one pass;
//   - a model with an RNN over the candidates (or features over all of
//     them) must see the question whole, and refuses a question of more
//     than MaxDependentTokens candidate tokens (package text's tokenizer)
//     with a *TooLargeError.
const (
	ChunkCandidates    = 64
	ChunkBytes         = 128 << 10
	MaxDependentTokens = 200_000
)

// TooLargeError is a question too large for a model that must score its
// candidates together.
type TooLargeError struct {
	Tokens, Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the candidates have more than %d tokens (counted %d so far); a model with an RNN over the candidates scores at most %d at once: send fewer or shorter candidates", e.Limit, e.Tokens, e.Limit)
}

// SetIndependent tells Score that the architecture scores each candidate
// independently of the others (no RNN over them, no features over all of
// them), so that large questions may be scored in chunks.
func (n *Network[In]) SetIndependent(ok bool) { n.independent = ok }

// Independent reports whether the candidates are scored independently.
func (n *Network[In]) Independent() bool { return n.independent }

// NewNetwork returns the Network of a preparation and a forward pass.
func NewNetwork[In Input](prepare func(q *dataset.Question) In, forward func(tp *nn.Tape[float32], in In, infer bool) *nn.Var[float32]) *Network[In] {
	return &Network[In]{prepare: prepare, forward: forward}
}

// Tapes is the pool of inference tapes that Score uses.
func (n *Network[In]) Tapes() *nn.TapePool[float32] { return &n.tapes }

// Score implements rank.Ranker.
// It honours ctx: the candidates are checked against it between chunks
// (nn.TapePool.RowsContext), and a done ctx ends Score with its error.
func (n *Network[In]) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(q.Candidates) == 0 {
		return nil, nil
	}
	if !n.independent {
		if err := checkTokens(q.Candidates, MaxDependentTokens); err != nil {
			return nil, err
		}
		return n.score(ctx, q)
	}
	scores := make([]float64, 0, len(q.Candidates))
	for lo := 0; lo < len(q.Candidates); {
		hi, size := lo, 0
		for hi < len(q.Candidates) && hi-lo < ChunkCandidates && (hi == lo || size+len(q.Candidates[hi].Text) <= ChunkBytes) {
			size += len(q.Candidates[hi].Text)
			hi++
		}
		sub := q
		if lo > 0 || hi < len(q.Candidates) {
			part := *q
			part.Candidates = q.Candidates[lo:hi]
			sub = &part
		}
		s, err := n.score(ctx, sub)
		if err != nil {
			return nil, err
		}
		scores = append(scores, s...)
		lo = hi
	}
	return scores, nil
}

// score scores q's candidates in one pass.
func (n *Network[In]) score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	in := n.prepare(q)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return n.tapes.ScoresContext(ctx, func(tp *nn.Tape[float32]) *nn.Var[float32] { return n.forward(tp, in, true) })
}

// checkTokens returns a *TooLargeError when the candidates have more than
// limit tokens (text.TokensOver).
func checkTokens(cands []dataset.Candidate, limit int) error {
	texts := make([]string, len(cands))
	for i, c := range cands {
		texts[i] = c.Text
	}
	if over, n := text.TokensOver(limit, texts...); over {
		return &TooLargeError{Tokens: n, Limit: limit}
	}
	return nil
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
	return append(encoder.ParamTensors("", ps), enc.Tensors()...)
}

// loadParams sets m's parameters from a file's tensors; they must be
// finite.
func loadParams(m Neural, cfg Config, tensors []safetensors.Tensor) error {
	if err := encoder.LoadParams(m.Params(), "", tensors); err != nil {
		return err
	}
	*m.record() = TrainingRecord(cfg.Training)
	return nil
}
