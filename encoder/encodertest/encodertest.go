// Package encodertest holds the hand-made inputs of the neural rankers' unit
// tests: a few random word vectors and one question whose candidates cover
// the awkward cases (an empty sentence, a one-word sentence).
package encodertest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/text/sentencepiece"
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

// Model builds an architecture's model with its constructor over Static's
// float32 vectors, failing t on an error: the tiny models of the
// architectures' unit tests.
func Model[H, M any](t testing.TB, newModel func(H, encoder.Encoder[float32], uint64) (M, error), h H, seed uint64) M {
	t.Helper()
	m, err := newModel(h, Static[float32](t), seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Projected is an encoder with weights: Static's vectors through a linear
// layer ("proj.weight", "proj.bias"), for the gradient checks of models
// that fine-tune their encoder. Layers added to Params are its too.
type Projected[T nn.Float] struct {
	*encoder.Static[T]
	ps   *nn.Params[T]
	proj *nn.Linear[T]
}

// NewProjected returns a Projected encoder with seeded random weights.
func NewProjected[T nn.Float](t testing.TB) *Projected[T] {
	s := Static[T](t)
	e := &Projected[T]{Static: s, ps: nn.NewParams[T]()}
	e.proj = nn.NewLinear(e.ps, "proj", s.Dim(), s.Dim(), true, nn.NewRNG(5))
	return e
}

// Encode implements encoder.Encoder.
func (e *Projected[T]) Encode(tp *nn.Tape[T], t encoder.Tokens) *nn.Var[T] {
	return e.proj.Forward(tp, e.Static.Encode(tp, t))
}

// Params implements encoder.Encoder: the projection's weights.
func (e *Projected[T]) Params() *nn.Params[T] { return e.ps }

// USELite is a random two-layer USE-Lite of a few dozen pieces (the
// words of Question among them), for the tests of models over it.
func USELite(t testing.TB, seed uint64) *uselite.Encoder {
	t.Helper()
	cfg := uselite.Config{Vocab: 40, EmbedDim: 8, Hidden: 12, FFN: 16, Heads: [2]int{2, 3}, MaxLen: 24, LNEps: 1e-6,
		QScale: [2]float64{0.5, 0.5}, InvTimescales: []float32{1, 0.1, 0.01, 0.001}}
	return USELiteOf(t, cfg, seed)
}

// USELiteOf is USELite with other shapes (cfg.Vocab at least 40, the
// pieces' count).
func USELiteOf(t testing.TB, cfg uselite.Config, seed uint64) *uselite.Encoder {
	t.Helper()
	m, err := uselite.New(cfg, nn.NewRNG(seed))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []sentencepiece.Piece
	for i, p := range strings.Fields("\ufffd <s> </s> x1 x2 x3 ▁who ▁wrote ▁hamlet ▁is ▁a ▁tragedy ▁shakespeare ▁it ▁in ▁denmark ▁ ? . 1 6 0 a e i o u s t r n h w d") {
		pieces = append(pieces, sentencepiece.Piece{Text: p, Score: -float64(i) / 10})
	}
	tok, err := sentencepiece.New(pieces, sentencepiece.Options{Algorithm: sentencepiece.USELiteJS})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := uselite.NewEncoder(m, tok)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// BERTDir is a Hugging Face checkpoint folder: the tiny random BERT
// sequence classifier of encoder/bert's tests (2 layers, width 32; its
// weights from scripts/reference/bert-reference.py) with a vocab.txt of its 100 ids,
// Question's words among them.
func BERTDir(t testing.TB) string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("encodertest: cannot locate the source tree")
	}
	src := filepath.Join(filepath.Dir(self), "..", "bert", "testdata", "tiny-bert-cls")
	dir := t.TempDir()
	for _, f := range []string{"config.json", "model.safetensors"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vocab := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	vocab = append(vocab, strings.Fields("who wrote hamlet ? is a tragedy . shakespeare it in denmark 1600 ##s ##ed")...)
	for _, c := range "abcdefghijklmnopqrstuvwxyz0123456789" {
		vocab = append(vocab, string(c), "##"+string(c))
	}
	for len(vocab) < 100 {
		vocab = append(vocab, "[unused"+strings.Repeat("x", len(vocab))+"]")
	}
	if err := os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte(strings.Join(vocab, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
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
