package compagg

import (
	"context"
	"math"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
)

// TestChunkedScoresAreWholeScores checks that a model without a candidate
// RNN, which Score takes in chunks of candidates, scores a large question
// as it scores each candidate alone: equal up to float32 rounding, since a
// matrix product over the words of more candidates may round differently
// (a question within one chunk is scored exactly as before chunking).
func TestChunkedScoresAreWholeScores(t *testing.T) {
	for name, h := range tinyHypers() {
		m := tiny(t, h, 3)
		if m.Independent() != (h.RNN == "") {
			t.Fatalf("%s: independent %v", name, m.Independent())
		}
		if !m.Independent() {
			continue
		}
		q := encodertest.LongQuestion(2*model.ChunkCandidates + 3)
		got, err := m.Score(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range q.Candidates {
			one := *q
			one.Candidates = []dataset.Candidate{c}
			s, err := m.Score(context.Background(), &one)
			if err != nil || len(s) != 1 || math.Abs(s[0]-got[i]) > 1e-5*max(1, math.Abs(got[i])) {
				t.Fatalf("%s: candidate %d: %v alone, %v in the question (%v)", name, i, s, got[i], err)
			}
		}
	}
}
