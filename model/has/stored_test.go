package has

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/index"
	"github.com/as2/as2/nn"
)

// hashModel is a tiny hash-mode model with its parameters moved off their
// initial zero biases (so that no state is exactly 0), and the answers of
// encodertest.Question as a pool.
func hashModel(t testing.TB, dim int) (*Model, []string) {
	t.Helper()
	h := tinyHypers()[Hash]
	h.Hidden = dim / 2
	m := tiny(t, h, 7)
	rng := nn.NewRNG(11)
	for _, p := range m.Params().All() {
		for i := range p.Value.Data {
			p.Value.Data[i] += 0.1 * float32(rng.NormFloat64())
		}
	}
	m.ParamsChanged()
	var texts []string
	for _, c := range encodertest.Question().Candidates {
		texts = append(texts, c.Text)
	}
	return m, texts
}

// store encodes texts with m into an index of binary matrices.
func store(t testing.TB, m *Model, texts []string) *index.Matrices {
	t.Helper()
	bms, err := m.EncodeAnswers(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.NewMatrices(m.Dim())
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(texts))
	for i := range ids {
		ids[i] = fmt.Sprint("a", i)
	}
	if err := x.Add(ids, bms); err != nil {
		t.Fatal(err)
	}
	return x
}

func encodeQuestion(t testing.TB, m *Model, text string) index.MatrixQuery {
	t.Helper()
	q, err := m.EncodeQuestion(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestPackRows(t *testing.T) {
	for _, d := range []int{1, 7, 63, 64, 65, 130} {
		rng := nn.NewRNG(uint64(d))
		x := make([]float32, 3*d)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		packed := packRows(x, 3, d)
		if len(packed) != 3*index.Words(d) {
			t.Fatalf("d %d: %d words", d, len(packed))
		}
		back := make([]float32, len(x))
		unpackRows(back, packed, 3, d)
		for i, v := range x {
			if back[i] != sign(v) {
				t.Fatalf("d %d: element %d is %v, its sign %v", d, i, back[i], sign(v))
			}
		}
	}
}

// Scoring stored binary answers equals the model's hash-mode Score, by
// unpacked rows (the scorer) and by the byte tables; a saved index reloads
// bit-identically and gives identical scores.
func TestStoredScoresEqualModel(t *testing.T) {
	ctx := context.Background()
	for _, dim := range []int{6, 64, 130} { // one partial word, one whole, a partial byte past two words
		m, texts := hashModel(t, dim)
		q := encodertest.Question()
		want, err := m.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		x := store(t, m, texts)
		qv := encodeQuestion(t, m, q.Text)
		all := []int{0, 1, 2, 3}
		got, err := x.Score(ctx, qv, all)
		if err != nil {
			t.Fatal(err)
		}
		qu := newQuery(m, q.Text)
		tables := newByteTables(m.w1.W.Value)
		s := qu.scratch()
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-5 {
				t.Errorf("dim %d, answer %d: %v stored, %v from Score", dim, i, got[i], want[i])
			}
			if b := qu.scoreBits(tables, x.Matrix(i).Bits, s); math.Abs(b-got[i]) > 1e-5 {
				t.Errorf("dim %d, answer %d: %v from the byte tables, %v unpacked", dim, i, b, got[i])
			}
		}
		hits, err := x.Search(ctx, qv, 1)
		if err != nil || len(hits) != 1 || hits[0].Score != slices.Max(got) {
			t.Fatalf("dim %d: search %v, %v; scores %v", dim, hits, err, got)
		}
		var buf bytes.Buffer
		if _, err := x.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := index.ReadMatrices(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, x) {
			t.Fatalf("dim %d: the stored answers changed in a round trip", dim)
		}
		again, err := back.Score(ctx, qv, []int{3, 1})
		if err != nil {
			t.Fatal(err)
		}
		if again[0] != got[3] || again[1] != got[1] {
			t.Fatalf("dim %d: scores %v after reloading, %v before", dim, again, got)
		}
	}
}

// The float baselines' stored answers (pooled vectors, word states) score
// as the models' Score; a hash-mode model refuses them.
func TestFloatAnswersScoreAsModel(t *testing.T) {
	ctx := context.Background()
	q := encodertest.Question()
	var texts []string
	for _, c := range q.Candidates {
		texts = append(texts, c.Text)
	}
	for _, mode := range []string{Pooling, Attention} {
		m := tiny(t, tinyHypers()[mode], 5)
		want, err := m.Score(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := m.EncodeFloatAnswers(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.ScoreFloatAnswers(ctx, q.Text, stored)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-5 {
				t.Errorf("%s, answer %d: %v stored, %v from Score", mode, i, got[i], want[i])
			}
		}
		if mode == Pooling && len(stored[0]) != m.Dim() {
			t.Errorf("pooling stores %d floats an answer, want %d", len(stored[0]), m.Dim())
		}
		if _, err := m.ScoreFloatAnswers(ctx, q.Text, [][]float32{{1}}); err == nil {
			t.Errorf("%s: a 1-float answer was scored", mode)
		}
	}
	h, _ := hashModel(t, 6)
	if _, err := h.EncodeFloatAnswers(ctx, texts); err == nil {
		t.Error("a hash-mode model encoded float answers")
	}
}

func TestStoredRefusals(t *testing.T) {
	m, texts := hashModel(t, 6)
	x := store(t, m, texts)
	pool := tiny(t, tinyHypers()[Pooling], 1)
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"index", func() error {
			_, err := x.Score(context.Background(), encodeQuestion(t, m, "who"), []int{4})
			return err
		}, "answer 4"},
		{"pooling question", func() error { _, err := pool.EncodeQuestion(context.Background(), "who"); return err }, "of mode pooling"},
		{"pooling answers", func() error { _, err := pool.EncodeAnswers(context.Background(), texts); return err }, "of mode pooling"},
		{"canceled", func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := m.EncodeAnswers(ctx, texts)
			return err
		}, "canceled"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %q", c.name, err, c.want)
		}
	}
}

func TestAccounting(t *testing.T) {
	for _, c := range []struct {
		words, d             int
		pooling, float, hash int64
	}{
		{30, 256, 1024, 30720, 960},     // 32x less than float attention
		{1, 768, 3072, 3072, 96},        // the paper's BERT width
		{200, 768, 3072, 614400, 19200}, // the paper's example: "over 600 KB" per answer in floats
		{2, 65, 260, 520, 32},           // a partial word costs a whole one
	} {
		if p, f, h := PoolingBytes(c.d), FloatAttentionBytes(c.words, c.d), HashBytes(c.words, c.d); p != c.pooling || f != c.float || h != c.hash {
			t.Errorf("%d words of %d: %d, %d, %d bytes, want %d, %d, %d", c.words, c.d, p, f, h, c.pooling, c.float, c.hash)
		}
	}
	m, texts := hashModel(t, 64)
	x := store(t, m, texts)
	words := 0
	for _, a := range texts {
		words += max(1, m.enc.Tokenize(a).Len())
	}
	if x.CodeBytes() != HashBytes(words, 64) {
		t.Fatalf("answers of %d words: %d bytes, want %d", words, x.CodeBytes(), HashBytes(words, 64))
	}
}

// benchRows are 500 random answers of 30 rows (the paper's Table 6 pool
// size), at the recipe's D = 256 and M = 128.
func benchRows(b *testing.B) (*Model, [][]uint64) {
	m, err := New(PaperHyper(), encodertest.Static[float32](b), 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := nn.NewRNG(3)
	answers := make([][]uint64, 500)
	for i := range answers {
		for range 30 * index.Words(m.Dim()) {
			answers[i] = append(answers[i], rng.Uint64())
		}
	}
	return m, answers
}

// BenchmarkStored compares attention over the stored bits (W₁b from byte
// tables: adds only) with attention over the rows unpacked to ±1 floats
// (W₁B by GEMM), one question against 500 answers on one core.
func BenchmarkStored(b *testing.B) {
	m, answers := benchRows(b)
	q := newQuery(m, encodertest.Question().Text)
	tables := newByteTables(m.w1.W.Value)
	s := q.scratch()
	b.Run("bits", func(b *testing.B) {
		for b.Loop() {
			for _, a := range answers {
				q.scoreBits(tables, a, s)
			}
		}
	})
	b.Run("unpacked", func(b *testing.B) {
		for b.Loop() {
			for _, a := range answers {
				q.scoreUnpacked(a, s)
			}
		}
	})
}

// EncodeAnswersProgress reports the answers done so far, one call at a
// time, ending at all of them.
func TestEncodeProgress(t *testing.T) {
	m, texts := hashModel(t, 6)
	texts = append(texts, texts...)
	var seen []int
	if _, err := m.EncodeAnswersProgress(context.Background(), texts, func(done int) { seen = append(seen, done) }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	for i, d := range seen {
		if d != i+1 {
			t.Fatalf("progress %v, want 1 to %d", seen, len(texts))
		}
	}
	if len(seen) != len(texts) {
		t.Fatalf("progress %v, want 1 to %d", seen, len(texts))
	}
}
