package index_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/as2/as2/index"
)

// letters encodes a text as its counts of the letters a to z: a toy dual
// encoder whose answers and questions are both vectors.
type letters struct{}

func vector(s string) []float64 {
	v := make([]float64, 26)
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			v[r-'a']++
		}
	}
	return v
}

func (letters) EncodeAnswers(_ context.Context, texts []string) ([][]float64, error) {
	var out [][]float64
	for _, t := range texts {
		out = append(out, vector(t))
	}
	return out, nil
}

func (letters) EncodeQuestion(_ context.Context, text string) ([]float64, error) {
	return vector(text), nil
}

// scan is an exact index: the inner product with every stored vector.
type scan struct {
	ids  []string
	vecs [][]float64
}

func (s *scan) Add(ids []string, answers [][]float64) error {
	s.ids, s.vecs = append(s.ids, ids...), append(s.vecs, answers...)
	return nil
}

func (s *scan) Search(_ context.Context, q []float64, k int) ([]index.Hit, error) {
	var hits []index.Hit
	for i, v := range s.vecs {
		dot := 0.0
		for j := range v {
			dot += v[j] * q[j]
		}
		hits = append(hits, index.Hit{ID: s.ids[i], Score: dot})
	}
	slices.SortStableFunc(hits, func(a, b index.Hit) int { return int(b.Score - a.Score) })
	return hits[:min(k, len(hits))], nil
}

func (s *scan) Len() int                         { return len(s.ids) }
func (s *scan) WriteTo(io.Writer) (int64, error) { return 0, nil }

var _ index.Index[[]float64, []float64] = (*scan)(nil)

// A pool of answers is encoded once into an index; questions then retrieve
// from it.
func Example() {
	ctx := context.Background()
	idx := &scan{}
	if err := index.Build(ctx, letters{}, idx, []string{"a1", "a2"}, []string{"zzz", "Shakespeare wrote Hamlet"}); err != nil {
		panic(err)
	}
	hits, err := index.NewRetriever(letters{}, idx).Retrieve(ctx, "who wrote hamlet?", 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(idx.Len(), hits[0].ID)
	// Output: 2 a2
}
