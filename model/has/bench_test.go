package has

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
)

// benchPool is a recipe-sized hash model over random 100-d word vectors
// (GloVe's size) and a question with 500 candidates of 30 words (the
// paper's Table 6 pool).
func benchPool(b *testing.B) (*Model, *dataset.Question) {
	b.Helper()
	rng := nn.NewRNG(1)
	vecs := embed.New(100)
	var words []string
	for i := range 200 {
		w := fmt.Sprintf("w%d", i)
		vec := make([]float32, 100)
		for j := range vec {
			vec[j] = float32(rng.NormFloat64())
		}
		if err := vecs.Add(w, vec); err != nil {
			b.Fatal(err)
		}
		words = append(words, w)
	}
	enc, err := encoder.NewStatic[float32](vecs)
	if err != nil {
		b.Fatal(err)
	}
	m, err := New(RecipeHyper(), enc, 1)
	if err != nil {
		b.Fatal(err)
	}
	sentence := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(s, " ")
	}
	q := &dataset.Question{ID: "q", Text: sentence(10)}
	for i := range 500 {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: fmt.Sprint(i), Text: sentence(30), Position: i})
	}
	return m, q
}

// BenchmarkPerQuestion is the time per question at 500 candidates (the
// paper's Table 6): "recompute" re-encodes every answer (Score), "memory"
// scores the answers' stored binary matrices (index.Matrices). Run with -cpu
// to set the cores.
func BenchmarkPerQuestion(b *testing.B) {
	m, q := benchPool(b)
	texts := make([]string, len(q.Candidates))
	for i, c := range q.Candidates {
		texts[i] = c.Text
	}
	x := store(b, m, texts)
	idx := make([]int, x.Len())
	for i := range idx {
		idx[i] = i
	}
	b.Run("recompute", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.Score(context.Background(), q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("memory", func(b *testing.B) {
		for b.Loop() {
			qv, err := m.EncodeQuestion(context.Background(), q.Text)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := x.Score(context.Background(), qv, idx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(x.CodeBytes())/float64(x.Len()), "B/answer")
}
