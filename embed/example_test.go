package embed_test

import (
	"bytes"
	"fmt"

	"github.com/as2/as2/embed"
)

func Example() {
	v := embed.New(3)
	v.Add("paris", []float32{0.9, 0.1, 0})
	v.Add("france", []float32{0.8, 0.3, 0.1})
	v.Add("capital", []float32{0.2, 0.9, 0.1})
	v.Add("banana", []float32{0, 0.1, 0.9})

	// Save and load through any io.Writer / io.Reader (Save and Load for
	// files).
	var buf bytes.Buffer
	if _, err := v.WriteTo(&buf); err != nil {
		panic(err)
	}
	v, err := embed.Read(&buf)
	if err != nil {
		panic(err)
	}

	// Unit rows once, then relatedness is a dot product per token pair.
	unit := v.Normalized()
	vectors := func(tokens ...string) [][]float32 {
		out := make([][]float32, len(tokens))
		for i, t := range tokens {
			out[i], _ = unit.Lookup(t) // nil when missing: cosine 0
		}
		return out
	}
	rq, rc := embed.RelatednessUnit(vectors("capital", "of", "france"), vectors("paris", "banana"))
	fmt.Printf("question %.2f\ncandidate %.2f\n", rq, rc)
	// Output:
	// question [0.32 0.00 0.96]
	// candidate [0.96 0.21]
}
