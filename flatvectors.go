package as2

import (
	"fmt"

	"github.com/as2/as2/index"
)

// FlatVectors returns x's index, which must be a flat one of answer
// vectors, and the encoder of its questions: the real vectors that a
// benchmark of the index kinds pads out (as2 bench index, bench.Indexes).
// Its errors follow the index file's name: "holds a bm25 index: ...".
func (x *Index) FlatVectors() (*index.Flat, index.Encoder[[]float32, []float32], error) {
	flat, ok := x.Stored().(*index.Flat)
	if !ok {
		return nil, nil, fmt.Errorf("holds a %s index: want a flat one (as2 index build --kind flat)", x.Stored().Kind())
	}
	if x.QuestionVectors() == nil {
		return nil, nil, fmt.Errorf("holds %s, which does not encode questions as vectors", x.Description())
	}
	return flat, x.QuestionVectors(), nil
}
