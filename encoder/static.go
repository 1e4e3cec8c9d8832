package encoder

import (
	"fmt"

	"github.com/as2/as2/embed"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text"
)

// StaticKind is the kind of Static encoders in model files.
const StaticKind = "static"

// tableName is the tensor that holds a static encoder's vectors, row by
// row in the order of Spec.Vocabulary.
const tableName = "embeddings"

func init() { Register(StaticKind, decodeStatic) }

// Static looks words up in frozen pre-trained word vectors (GloVe), after
// as2's word tokenizer (package text); a word without a vector gets zeros.
type Static[T nn.Float] struct {
	vecs  *embed.Vectors
	table *nn.Tensor[T]
}

// NewStatic wraps vecs. At float32 the table shares vecs' memory.
func NewStatic[T nn.Float](vecs *embed.Vectors) (*Static[T], error) {
	if vecs == nil || vecs.Len() == 0 {
		return nil, fmt.Errorf("static encoder: no word vectors")
	}
	var table *nn.Tensor[T]
	if data, ok := any(vecs.Data).([]T); ok {
		table = nn.FromSlice(data, vecs.Len(), vecs.Dim)
	} else {
		table = nn.Convert[T](nn.FromSlice(vecs.Data, vecs.Len(), vecs.Dim))
	}
	return &Static[T]{vecs: vecs, table: table}, nil
}

// Vectors returns the word vectors.
func (s *Static[T]) Vectors() *embed.Vectors { return s.vecs }

// Table returns the vectors as a [V, D] tensor, row i for word i.
func (s *Static[T]) Table() *nn.Tensor[T] { return s.table }

// Spec implements Encoder.
func (s *Static[T]) Spec() Spec {
	return Spec{Kind: StaticKind, Tokenizer: text.TokenizerID, Identity: s.vecs.Identity(), Dim: s.vecs.Dim, Vocabulary: s.vecs.Words}
}

// Tokenize implements Encoder.
func (s *Static[T]) Tokenize(str string) Tokens {
	words := text.Tokenize(str)
	ids := make([]int, len(words))
	for i, w := range words {
		ids[i] = -1
		if id, ok := s.vecs.Index(w); ok {
			ids[i] = id
		}
	}
	return Tokens{Text: words, IDs: ids}
}

// Dim implements Encoder.
func (s *Static[T]) Dim() int { return s.vecs.Dim }

// Encode implements Encoder: the rows of the tokens' vectors.
func (s *Static[T]) Encode(tp *nn.Tape[T], t Tokens) *nn.Var[T] {
	return tp.Embedding(tp.Const(s.table), t.IDs)
}

// Params implements Encoder: static vectors are frozen.
func (s *Static[T]) Params() *nn.Params[T] { return nn.NewParams[T]() }

// Tensors implements Encoder: the vectors, so that a model ranks without
// the vectors file it was trained with.
func (s *Static[T]) Tensors() []safetensors.Tensor {
	return []safetensors.Tensor{{Name: tableName, Shape: []int{s.vecs.Len(), s.vecs.Dim}, Data: s.vecs.Data}}
}

// decodeStatic rebuilds the vectors that Tensors stored and checks them
// against the spec's identity and tokenizer.
func decodeStatic(spec Spec, tensors []safetensors.Tensor) (Encoder[float32], error) {
	if spec.Tokenizer != text.TokenizerID {
		return nil, fmt.Errorf("trained with tokenizer %q; this as2 has %q", spec.Tokenizer, text.TokenizerID)
	}
	if len(spec.Vocabulary) == 0 {
		return nil, fmt.Errorf("the file has no vocabulary")
	}
	var data []float32
	for _, t := range tensors {
		if t.Name != tableName {
			continue
		}
		if len(t.Shape) != 2 || t.Shape[0] != len(spec.Vocabulary) || t.Shape[1] < 1 || (spec.Dim != 0 && t.Shape[1] != spec.Dim) {
			return nil, fmt.Errorf("tensor %q has shape %v, want [%d %d]", tableName, t.Shape, len(spec.Vocabulary), spec.Dim)
		}
		data = t.Data
	}
	if data == nil {
		return nil, fmt.Errorf("the file has no %s tensor", tableName)
	}
	dim := len(data) / len(spec.Vocabulary)
	vecs := embed.New(dim)
	for i, w := range spec.Vocabulary {
		if err := vecs.Add(w, data[i*dim:(i+1)*dim]); err != nil {
			return nil, fmt.Errorf("embeddings: %w", err)
		}
	}
	if id := vecs.Identity(); id != spec.Identity {
		return nil, fmt.Errorf("embeddings are %s, the configuration says %s: the file is corrupt", id, spec.Identity)
	}
	return NewStatic[float32](vecs)
}
