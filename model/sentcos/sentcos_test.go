package sentcos

import (
	"context"
	"math"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model/modeltest"
)

// The zero-shot ranker scores by cosine (in [-1, 1], 1 for the question
// itself) and its model file ranks the same without the npm package.
func TestScoreAndRoundTrip(t *testing.T) {
	enc := encodertest.USELite(t, 1)
	m, err := New(Hyper{}, enc)
	if err != nil {
		t.Fatal(err)
	}
	q := encodertest.Question()
	q.Candidates[0].Text = q.Text
	got, err := m.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got[0]-1) > 1e-5 {
		t.Errorf("the question against itself scores %v", got[0])
	}
	for _, s := range got {
		if s < -1-1e-5 || s > 1+1e-5 {
			t.Errorf("score %v is not a cosine", s)
		}
	}
	back := modeltest.RoundTrip(t, m)
	again, err := back.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if again[i] != got[i] {
			t.Fatalf("read back: score %d is %v, want %v", i, again[i], got[i])
		}
	}
	if _, err := New(Hyper{}, encodertest.Static[float32](t)); err == nil {
		t.Error("static vectors accepted")
	}
}
