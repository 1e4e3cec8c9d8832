package index_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/as2/as2/index"
	"github.com/as2/as2/rank"
)

// An exact index of float vectors, saved and read back.
func ExampleFlat() {
	ctx := context.Background()
	idx, err := index.NewFlat(3)
	if err != nil {
		panic(err)
	}
	if err := idx.Add([]string{"north", "east", "up"}, [][]float32{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}); err != nil {
		panic(err)
	}
	var file bytes.Buffer
	if _, err := idx.WriteTo(&file); err != nil {
		panic(err)
	}
	back, err := index.ReadFlat(&file)
	if err != nil {
		panic(err)
	}
	hits, err := back.Search(ctx, []float32{0.9, 0.4, 0}, 2)
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Printf("%s %.1f\n", h.ID, h.Score)
	}
	// Output:
	// east 0.9
	// north 0.4
}

// Binary codes find the candidates by Hamming distance; their float
// vectors order them.
func ExampleBinary() {
	idx, err := index.NewBinary(4)
	if err != nil {
		panic(err)
	}
	idx.Rescore = 2
	if err := idx.Add([]string{"a", "b", "c"}, [][]float32{{1, 1, -1, -1}, {2, 1, -1, 0.5}, {-1, -1, 1, 1}}); err != nil {
		panic(err)
	}
	hits, err := idx.Search(context.Background(), []float32{1, 1, -1, -0.5}, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(hits[0].ID, index.Hamming(index.Code(nil, []float32{1, 1, -1, -0.5}), index.Code(nil, []float32{-1, -1, 1, 1})))
	// Output: b 4
}

// BM25 retrieves from a pool of sentences with rank's BM25 scoring.
func ExampleNewBM25Retriever() {
	ctx := context.Background()
	r, _, err := index.NewBM25Retriever(ctx, rank.DefaultOptions(),
		[]string{"s1", "s2", "s3"},
		[]string{"Hamlet is a tragedy by Shakespeare.", "Paris is the capital of France.", "The Seine flows through Paris."})
	if err != nil {
		panic(err)
	}
	hits, err := r.Retrieve(ctx, "What is the capital of France?", 2)
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Println(h.ID)
	}
	// Output:
	// s2
	// s3
}

// bestRow scores a binary matrix by its row closest to the question's
// code (the most bits in common): a stand-in for HAS's attention, which
// model/has's EncodeQuestion provides.
type bestRow struct{ code []uint64 }

func (q bestRow) Scorer() func(index.BitMatrix) float64 {
	return func(m index.BitMatrix) float64 {
		w, best := index.Words(m.Dim), m.Dim
		for r := range m.Rows() {
			best = min(best, index.Hamming(m.Bits[r*w:(r+1)*w], q.code))
		}
		return float64(m.Dim - best)
	}
}

// Matrices stores a binary matrix per answer (HAS's answers: a row of
// sign bits per word) and scores every answer with the question's
// scorer.
func ExampleMatrices() {
	idx, err := index.NewMatrices(4)
	if err != nil {
		panic(err)
	}
	row := func(signs ...float32) []uint64 { return index.Code(nil, signs) }
	answers := []index.BitMatrix{
		{Dim: 4, Bits: append(row(1, 1, -1, -1), row(-1, 1, 1, -1)...)}, // two words
		{Dim: 4, Bits: row(1, -1, -1, 1)},                               // one word
	}
	if err := idx.Add([]string{"a", "b"}, answers); err != nil {
		panic(err)
	}
	hits, err := idx.Search(context.Background(), bestRow{row(1, -1, -1, 1)}, 2)
	if err != nil {
		panic(err)
	}
	fmt.Println(hits, idx.CodeBytes(), "bytes")
	// Output: [{b 4} {a 2}] 24 bytes
}
