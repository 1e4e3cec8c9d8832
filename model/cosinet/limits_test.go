package cosinet

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
)

// TestChunkedScoresAreWholeScores checks that a Cosinet without a candidate
// RNN or pool features, which Score takes in chunks of candidates, scores a
// large question exactly as it scores each candidate alone.
func TestChunkedScoresAreWholeScores(t *testing.T) {
	h := tinyHyper("")
	h.PairFeatures = false
	m := tiny(t, h, 3)
	if !m.Independent() {
		t.Fatal("a Cosinet without RNN or pair features is not independent")
	}
	q := encodertest.LongQuestion(3*model.ChunkCandidates + 5)
	got, err := m.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range q.Candidates {
		one := *q
		one.Candidates = []dataset.Candidate{c}
		s, err := m.Score(context.Background(), &one)
		if err != nil || !reflect.DeepEqual(s, got[i:i+1]) {
			t.Fatalf("candidate %d: %v alone, %v in the question (%v)", i, s, got[i], err)
		}
	}
	if tiny(t, tinyHyper(""), 3).Independent() || tiny(t, tinyHyper("birnn"), 3).Independent() {
		t.Fatal("pair features or an RNN over the candidates must make a Cosinet dependent")
	}
}

// TestScoreHonoursContext checks that a done context stops scoring between
// chunks of candidates, and that a live one changes nothing.
func TestScoreHonoursContext(t *testing.T) {
	m := tiny(t, tinyHyper("birnn"), 3)
	q := encodertest.LongQuestion(4000)
	want, err := m.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	got, err := m.Score(ctx, q)
	cancel()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("with a live context: %v", err)
	}
	if _, err := m.Score(ctx, q); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: %v", err)
	}
	// Cancelled while the candidates are being scored.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(time.Millisecond, cancel)
	start := time.Now()
	_, err = m.Score(ctx, encodertest.LongQuestion(200_000))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during: %v after %v", err, time.Since(start))
	}
}

// TestDependentModelRefusesHugeQuestions checks the token limit of a model
// with an RNN over the candidates.
func TestDependentModelRefusesHugeQuestions(t *testing.T) {
	m := tiny(t, tinyHyper("birnn"), 3)
	q := encodertest.Question()
	q.Candidates[0].Text = strings.Repeat("word ", model.MaxDependentTokens)
	_, err := m.Score(context.Background(), q)
	var tl *model.TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "RNN over the candidates") {
		t.Fatalf("error %v", err)
	}
}
