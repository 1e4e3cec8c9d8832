package compagg

import (
	"fmt"

	"github.com/as2/as2/embed"
	"github.com/as2/as2/nn"
)

// Encoder turns a sentence's tokens into word vectors. It is the seam for a
// contextual encoder (the Comp-Clip paper's ELMo, equation 1 with L^Q and
// L^A): one would compute the vectors of each sentence on its own, could keep
// trainable state in the model's parameters, and would be named in
// Hyper.Encoder so that model files say which encoder they need.
type Encoder interface {
	// Name is the encoder's name in Hyper.Encoder.
	Name() string
	// Dim is the size of the word vectors.
	Dim() int
	// Encode returns the vectors [len(tokens), Dim()] of one sentence.
	Encode(tp *nn.Tape[float32], tokens []string) *nn.Var[float32]
}

// StaticEncoder is the name of the Static encoder.
const StaticEncoder = "static"

// Static looks words up in frozen pre-trained embeddings; a word without a
// vector gets zeros.
type Static struct {
	Vectors *embed.Vectors
	table   *nn.Tensor[float32]
}

// NewStatic wraps vecs.
func NewStatic(vecs *embed.Vectors) *Static {
	return &Static{Vectors: vecs, table: nn.FromSlice(vecs.Data, vecs.Len(), vecs.Dim)}
}

// Name implements Encoder.
func (s *Static) Name() string { return StaticEncoder }

// Dim implements Encoder.
func (s *Static) Dim() int { return s.Vectors.Dim }

// Encode implements Encoder.
func (s *Static) Encode(tp *nn.Tape[float32], tokens []string) *nn.Var[float32] {
	ids := make([]int, len(tokens))
	for i, t := range tokens {
		ids[i] = -1
		if id, ok := s.Vectors.Index(t); ok {
			ids[i] = id
		}
	}
	return tp.Embedding(tp.Const(s.table), ids)
}

// newEncoder builds the encoder a model file names.
func newEncoder(name string, vecs *embed.Vectors) (Encoder, error) {
	switch name {
	case StaticEncoder, "":
		return NewStatic(vecs), nil
	}
	return nil, fmt.Errorf("encoder %q is unknown to this as2 (it has %s; contextual encoders such as ELMo are not available)", name, StaticEncoder)
}
