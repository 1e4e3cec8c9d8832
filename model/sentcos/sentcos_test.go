package sentcos

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/internal/testkit/tinydata"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/text/sentencepiece"
)

// The zero-shot ranker scores by cosine (in [-1, 1], 1 for the question
// itself) and its model file ranks the same without the npm package.
func TestScoreAndRoundTrip(t *testing.T) {
	cfg := uselite.Config{Vocab: 30, EmbedDim: 8, Hidden: 12, FFN: 16, Heads: [2]int{2, 3}, MaxLen: 24, LNEps: 1e-6,
		QScale: [2]float64{0.5, 0.5}, InvTimescales: []float32{1, 0.1, 0.01, 0.001}}
	um, err := uselite.New(cfg, nn.NewRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []sentencepiece.Piece
	for i, p := range strings.Fields("\ufffd <s> </s> x1 x2 x3 ▁who ▁wrote ▁hamlet ▁is ▁a ▁tragedy ▁ ? . a e i o u s t r n h w d") {
		pieces = append(pieces, sentencepiece.Piece{Text: p, Score: -float64(i) / 10})
	}
	tok, err := sentencepiece.New(pieces, sentencepiece.Options{Algorithm: sentencepiece.USELiteJS})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := uselite.NewEncoder(um, tok)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Hyper{}, enc)
	if err != nil {
		t.Fatal(err)
	}
	q := tinydata.Question()
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
	var buf bytes.Buffer
	if err := model.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	back, err := model.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if again[i] != got[i] {
			t.Fatalf("read back: score %d is %v, want %v", i, again[i], got[i])
		}
	}
	if _, err := New(Hyper{}, tinydata.Static[float32](t)); err == nil {
		t.Error("static vectors accepted")
	}
}
