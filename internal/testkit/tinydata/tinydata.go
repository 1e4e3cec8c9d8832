// Package tinydata holds the hand-made inputs of the neural rankers' unit
// tests: a few random word vectors and one question whose candidates cover
// the awkward cases (an empty sentence, a one-word sentence).
package tinydata

import (
	"fmt"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
)

// Vectors returns seeded random 4-d vectors for the words of Question.
func Vectors(t testing.TB) *embed.Vectors {
	v := embed.New(4)
	rng := nn.NewRNG(1)
	for _, w := range []string{"who", "wrote", "hamlet", "shakespeare", "play", "is", "a", "tragedy", "denmark", "."} {
		vec := make([]float32, 4)
		for i := range vec {
			vec[i] = float32(rng.NormFloat64())
		}
		if err := v.Add(w, vec); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// Static returns the static encoder of Vectors at float type T.
func Static[T nn.Float](t testing.TB) *encoder.Static[T] {
	enc, err := encoder.NewStatic[T](Vectors(t))
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// Question is "Who wrote Hamlet?" with four candidates, the second correct.
func Question() *dataset.Question {
	return &dataset.Question{ID: "q", Text: "Who wrote Hamlet?", Candidates: []dataset.Candidate{
		{ID: "0", Text: "Hamlet is a tragedy.", Position: 0, Label: 0},
		{ID: "1", Text: "Shakespeare wrote it in 1600.", Position: 1, Label: 1},
		{ID: "2", Text: "", Position: 2, Label: 0},        // no tokens at all
		{ID: "3", Text: "Denmark", Position: 3, Label: 0}, // shorter than most filters
	}}
}

// LongQuestion is Question with its candidates repeated to n, enough for
// inference to spread them over goroutines.
func LongQuestion(n int) *dataset.Question {
	q := Question()
	base := q.Candidates
	q.Candidates = nil
	for i := 0; i < n; i++ {
		c := base[i%len(base)]
		c.ID, c.Position = fmt.Sprint(i), i
		q.Candidates = append(q.Candidates, c)
	}
	return q
}
