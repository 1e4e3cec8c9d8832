package encoder

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// Tokens is a tokenised sentence: the token texts, and their ids in the
// encoder's vocabulary (-1: none).
type Tokens struct {
	Text []string
	IDs  []int
}

// Len is the number of tokens.
func (t Tokens) Len() int { return len(t.Text) }

// Encoder turns tokenised sentences into token states. It is generic over
// the float type so that architectures can run their float64 gradient
// checks over the real encoder; files hold float32 encoders.
type Encoder[T nn.Float] interface {
	// Spec describes the encoder for model files.
	Spec() Spec
	// Tokenize splits a sentence into the encoder's tokens.
	Tokenize(s string) Tokens
	// Dim is the size of a token state.
	Dim() int
	// Encode returns the states [t.Len(), Dim()] of one sentence.
	Encode(tp *nn.Tape[T], t Tokens) *nn.Var[T]
	// Params are the encoder's trainable parameters (empty for frozen
	// vectors); a model that fine-tunes its encoder trains them too.
	Params() *nn.Params[T]
	// Tensors are the frozen data a model file must keep besides Params
	// (static vectors' table).
	Tensors() []safetensors.Tensor
}

// SentenceHead is an encoder with its own sentence vector over its token
// states (USE-Lite's: the mean, a tanh layer and l2 normalisation). A model
// that pools with it starts from the pretrained sentence vectors, as the
// zero-shot retriever uses them, instead of from a fresh aggregator.
type SentenceHead[T nn.Float] interface {
	Encoder[T]
	// Sentence maps the token states [L, Dim] of one sentence (L ≥ 1),
	// as Encode returns them, to its vector [Dim]. Its weights are among
	// Params, so fine-tuning trains them too.
	Sentence(tp *nn.Tape[T], states *nn.Var[T]) *nn.Var[T]
}

// Spec identifies an encoder in a model file.
type Spec struct {
	Kind      string `json:"kind"`      // e.g. "static"
	Tokenizer string `json:"tokenizer"` // the tokenizer's identity, e.g. text.TokenizerID
	Identity  string `json:"identity"`  // the weights' identity, e.g. embed.Vectors.Identity
	Dim       int    `json:"dim"`       // size of a token state
	// Vocabulary lists the rows of a static encoder's table.
	Vocabulary []string `json:"vocabulary,omitempty"`
	// Config holds what else the kind needs to rebuild the encoder.
	Config json.RawMessage `json:"config,omitempty"`
}

// Decoder rebuilds an encoder of one kind from a model file's spec and
// tensors.
type Decoder func(spec Spec, tensors []safetensors.Tensor) (Encoder[float32], error)

var (
	mu       sync.RWMutex
	decoders = map[string]Decoder{}
)

// Register makes an encoder kind readable from model files. It panics on
// a duplicate kind, a programming error.
func Register(kind string, d Decoder) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := decoders[kind]; dup {
		panic("encoder: kind " + kind + " registered twice")
	}
	decoders[kind] = d
}

// Kinds lists the registered encoder kinds.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Sorted(maps.Keys(decoders))
}

// Decode rebuilds the encoder spec describes from a model file's tensors.
func Decode(spec Spec, tensors []safetensors.Tensor) (Encoder[float32], error) {
	mu.RLock()
	d, ok := decoders[spec.Kind]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("encoder kind %q is unknown to this as2 (it knows %s)", spec.Kind, strings.Join(Kinds(), ", "))
	}
	enc, err := d(spec, tensors)
	if err != nil {
		return nil, fmt.Errorf("%s encoder: %w", spec.Kind, err)
	}
	return enc, nil
}

// Sequence is one model input made of one or two sentences joined the
// encoder's way (separators, truncation): ids and, for a pair, token types
// (0 for the first sentence, 1 for the second; nil: not given), which
// BERT embeds and USE-Lite's weights do not read.
type Sequence struct {
	IDs, Types []int
	// Marks are per-position marks a MarkingEncoder embeds (nil, or a
	// negative mark: none), such as exact-match flags.
	Marks []int
}

// Len is the number of positions.
func (s Sequence) Len() int { return len(s.IDs) }

// PairEncoder is a transformer encoder that reads two sentences as one
// sequence, as cross-encoders need (Nogueira & Cho 2019). Float32 only:
// the pre-trained transformers are float32 models.
type PairEncoder interface {
	Encoder[float32]
	// MaxLen is the longest sequence the encoder reads.
	MaxLen() int
	// Pair joins a and b into one sequence of at most MaxLen positions.
	Pair(a, b Tokens) Sequence
	// EncodeBatch returns the states [B·T, Dim] of sequences padded to the
	// longest, T, sequence b's in rows [b·T, b·T+len_b), and T. Padded
	// keys get no attention, so the real rows do not depend on the batch.
	EncodeBatch(tp *nn.Tape[float32], seqs []Sequence) (*nn.Var[float32], int)
}

// MarkingEncoder is a PairEncoder that adds a caller's embedding of each
// position's mark (Sequence.Marks) to its input embeddings, so that a
// model can tell every layer something the pretrained weights do not know,
// such as which tokens the pair's two sentences share (the exact-match
// feature of Chen et al. 2017, DrQA).
type MarkingEncoder interface {
	PairEncoder
	// InputDim is the width of an input embedding, the table's width.
	InputDim() int
	// EncodeBatchMarked is EncodeBatch with row Marks[i] of table [k,
	// InputDim] added to position i's input embedding.
	EncodeBatchMarked(tp *nn.Tape[float32], seqs []Sequence, table *nn.Var[float32]) (*nn.Var[float32], int)
}
