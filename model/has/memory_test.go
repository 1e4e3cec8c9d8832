package has

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/internal/testkit/tinydata"
	"github.com/as2/as2/nn"
)

// hashModel is a tiny hash-mode model with its parameters moved off their
// initial zero biases (so that no state is exactly 0), and the answers of
// tinydata.Question as a pool.
func hashModel(t testing.TB, dim int) (*Model, []Answer) {
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
	var answers []Answer
	for _, c := range tinydata.Question().Candidates {
		answers = append(answers, Answer{ID: c.ID, Text: c.Text})
	}
	return m, answers
}

func buildMemory(t testing.TB, m *Model, answers []Answer) *Memory {
	t.Helper()
	mem, err := m.BuildMemory(context.Background(), answers)
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

func encodeMemory(t testing.TB, mem *Memory) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := mem.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo reports %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

func TestPackRows(t *testing.T) {
	for _, d := range []int{1, 7, 63, 64, 65, 130} {
		rng := nn.NewRNG(uint64(d))
		x := make([]float32, 3*d)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		packed := packRows(x, 3, d)
		if len(packed) != 3*wordsPerRow(d) {
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

// Scoring from the memory equals the model's hash-mode Score, by bits
// (byte tables) and by unpacked rows; a saved memory reloads
// bit-identically and gives identical scores.
func TestMemoryScoresEqualModel(t *testing.T) {
	for _, dim := range []int{6, 64, 130} { // one partial word, one whole, a partial byte past two words
		m, answers := hashModel(t, dim)
		q := tinydata.Question()
		want, err := m.Score(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		mem := buildMemory(t, m, answers)
		got, err := m.ScoreMemory(context.Background(), q.Text, mem, nil)
		if err != nil {
			t.Fatal(err)
		}
		qu := newQuery(m, q.Text)
		s := qu.scratch()
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-5 {
				t.Errorf("dim %d, answer %d: %v from the memory, %v from Score", dim, i, got[i], want[i])
			}
			if u := qu.scoreUnpacked(mem, i, s); math.Abs(u-got[i]) > 1e-5 {
				t.Errorf("dim %d, answer %d: %v unpacked, %v from bits", dim, i, u, got[i])
			}
		}
		back, err := ReadMemory(bytes.NewReader(encodeMemory(t, mem)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, mem) {
			t.Fatalf("dim %d: the memory changed in a round trip", dim)
		}
		again, err := m.ScoreMemory(context.Background(), q.Text, back, []int{3, 1})
		if err != nil {
			t.Fatal(err)
		}
		if again[0] != got[3] || again[1] != got[1] {
			t.Fatalf("dim %d: scores %v after reloading, %v before", dim, again, got)
		}
	}
}

func TestMemoryRefusals(t *testing.T) {
	m, answers := hashModel(t, 6)
	mem := buildMemory(t, m, answers)
	other, _ := hashModel(t, 6)
	other.Params().All()[0].Value.Data[0] += 1
	other.ParamsChanged()
	pool := tiny(t, tinyHypers()[Pooling], 1)
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"another model", func() error { _, err := other.ScoreMemory(context.Background(), "who", mem, nil); return err }, "another model"},
		{"index", func() error { _, err := m.ScoreMemory(context.Background(), "who", mem, []int{4}); return err }, "answer 4"},
		{"pooling score", func() error { _, err := pool.ScoreMemory(context.Background(), "who", mem, nil); return err }, "pooling-mode"},
		{"pooling build", func() error { _, err := pool.BuildMemory(context.Background(), answers); return err }, "pooling-mode"},
		{"canceled", func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := m.BuildMemory(ctx, answers)
			return err
		}, "canceled"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %q", c.name, err, c.want)
		}
	}
}

// A truncated or altered memory file is refused with ErrCorrupt: every
// prefix, every single flipped byte, and the hand-made cases.
func TestMemoryCorrupt(t *testing.T) {
	m, answers := hashModel(t, 70)
	data := encodeMemory(t, buildMemory(t, m, answers))
	for n := range len(data) {
		if _, err := ReadMemory(bytes.NewReader(data[:n])); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("prefix of %d of %d bytes: error %v", n, len(data), err)
		}
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x10
		if _, err := ReadMemory(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: error %v", i, err)
		}
	}
	le := binary.LittleEndian
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"magic", func(b []byte) []byte { copy(b, "SAFETENS"); return b }, "magic"},
		{"version", func(b []byte) []byte { le.PutUint32(b[8:], 2); return b }, "version 2"},
		{"dim", func(b []byte) []byte { le.PutUint32(b[12:], 0); return b }, "dimension 0"},
		{"answers", func(b []byte) []byte { le.PutUint64(b[16:], 1<<40); return b }, "answers"},
		{"rows", func(b []byte) []byte { le.PutUint64(b[24:], 1<<60); return b }, "rows"},
		{"trailing", func(b []byte) []byte { return append(b, 0) }, "after the checksum"},
		{"checksum", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, "checksum"},
	} {
		_, err := ReadMemory(bytes.NewReader(c.edit(bytes.Clone(data))))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrCorrupt about %q", c.name, err, c.want)
		}
	}
}

// WriteTo refuses a memory that breaks its invariants.
func TestMemoryWriteInvalid(t *testing.T) {
	for name, mem := range map[string]*Memory{
		"dim":     {Dim: 0, Offsets: []int{0}},
		"offsets": {Dim: 3, IDs: []string{"a"}, Texts: []string{"a"}, Offsets: []int{0}},
		"empty":   {Dim: 3, IDs: []string{"a"}, Texts: []string{"a"}, Offsets: []int{0, 0}},
		"bits":    {Dim: 3, IDs: []string{"a"}, Texts: []string{"a"}, Offsets: []int{0, 1}, Bits: []uint64{1, 2}},
		"padding": {Dim: 3, IDs: []string{"a"}, Texts: []string{"a"}, Offsets: []int{0, 1}, Bits: []uint64{8}},
		"utf8":    {Dim: 3, IDs: []string{"a"}, Texts: []string{"\xff"}, Offsets: []int{0, 1}, Bits: []uint64{1}},
	} {
		if _, err := mem.WriteTo(&bytes.Buffer{}); err == nil {
			t.Errorf("%s: written", name)
		}
	}
}

// FuzzReadMemory: the reader never panics, and whatever it accepts it
// writes back byte for byte.
func FuzzReadMemory(f *testing.F) {
	m, answers := hashModel(f, 6)
	f.Add(encodeMemory(f, buildMemory(f, m, answers)))
	f.Add(encodeMemory(f, &Memory{Dim: 64, Offsets: []int{0}}))
	f.Add([]byte(memoryMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		mem, err := ReadMemory(bytes.NewReader(data))
		if err != nil {
			return
		}
		if got := encodeMemory(t, mem); !bytes.Equal(got, data) {
			t.Fatalf("accepted %d bytes, writes back %d others", len(data), len(got))
		}
	})
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
	m, answers := hashModel(t, 64)
	mem := buildMemory(t, m, answers)
	words := 0
	for _, a := range answers {
		words += max(1, m.enc.Tokenize(a.Text).Len())
	}
	if mem.CodeBytes() != HashBytes(words, 64) {
		t.Fatalf("memory of %d words: %d bytes, want %d", words, mem.CodeBytes(), HashBytes(words, 64))
	}
}

// benchMemory is a random memory of 500 answers of 30 words (the paper's
// Table 6 pool size), at the recipe's D = 256 and M = 128.
func benchMemory(b *testing.B) (*Model, *Memory) {
	h := PaperHyper()
	m, err := New(h, tinydata.Static[float32](b), 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := nn.NewRNG(3)
	mem := &Memory{Dim: m.Dim(), Model: m.Fingerprint(), Offsets: []int{0}}
	for i := range 500 {
		mem.IDs, mem.Texts = append(mem.IDs, ""), append(mem.Texts, "")
		mem.Offsets = append(mem.Offsets, (i+1)*30)
	}
	for range 500 * 30 * mem.Words() {
		mem.Bits = append(mem.Bits, rng.Uint64())
	}
	return m, mem
}

// BenchmarkMemory compares attention over the stored bits (W₁b from byte
// tables: adds only) with attention over the rows unpacked to ±1 floats
// (W₁B by GEMM), one question against 500 answers on one core.
func BenchmarkMemory(b *testing.B) {
	m, mem := benchMemory(b)
	q := newQuery(m, tinydata.Question().Text)
	tables := m.byteTables()
	s := q.scratch()
	b.Run("bits", func(b *testing.B) {
		for b.Loop() {
			for i := range mem.Len() {
				q.scoreBits(tables, mem, i, s)
			}
		}
	})
	b.Run("unpacked", func(b *testing.B) {
		for b.Loop() {
			for i := range mem.Len() {
				q.scoreUnpacked(mem, i, s)
			}
		}
	})
}
