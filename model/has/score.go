package has

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/as2/as2/index"
	"github.com/as2/as2/nn"
)

// EncodeAnswers implements index.Encoder: each answer's binary matrix
// sgn(V_a), bit-packed (index.Matrices stores them), the answers spread
// over the cores. Only a hash-mode model has binary answer states.
func (m *Model) EncodeAnswers(ctx context.Context, texts []string) ([]index.BitMatrix, error) {
	return m.EncodeAnswersProgress(ctx, texts, nil)
}

// EncodeAnswersProgress is EncodeAnswers, calling progress (nil: none)
// with the number of answers encoded so far as it goes, one call at a
// time.
func (m *Model) EncodeAnswersProgress(ctx context.Context, texts []string, progress func(done int)) ([]index.BitMatrix, error) {
	if m.hyper.Mode != Hash {
		return nil, fmt.Errorf("a HAS model of mode %s has no binary answer states: train with --has-mode hash", m.hyper.Mode)
	}
	d := m.Dim()
	out := make([]index.BitMatrix, len(texts))
	err := m.encodeEach(ctx, texts, false, progress, func(i int, v *nn.Tensor[float32]) {
		out[i] = index.BitMatrix{Dim: d, Bits: packRows(v.Data, v.Rows(), d)}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// encodeEach encodes texts over the cores into their word states V_a
// [L, D] (max-pooled to [1, D] when pool) and hands each to keep with its
// position; progress (nil: none) gets the number done so far, one call at
// a time.
func (m *Model) encodeEach(ctx context.Context, texts []string, pool bool, progress func(done int), keep func(i int, v *nn.Tensor[float32])) error {
	var mu sync.Mutex
	done := 0
	return nn.ParallelContext(ctx, len(texts), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := m.sentence(texts[i])
			keep(i, m.rows.Value(func(tp *nn.Tape[float32]) *nn.Var[float32] {
				v := m.encode(tp, s)
				if pool {
					return tp.MaxPool(v)
				}
				return v
			}))
			if progress != nil {
				mu.Lock()
				done++
				progress(done)
				mu.Unlock()
			}
		}
	})
}

// EncodeQuestion implements index.Encoder: the question encoded and
// max-pooled (u_q), with W₂u_q, ready to score binary answer matrices by
// the composition and similarity layers. Its scores equal Score's on the
// same texts (up to float rounding).
func (m *Model) EncodeQuestion(_ context.Context, text string) (index.MatrixQuery, error) {
	if m.hyper.Mode != Hash {
		return nil, fmt.Errorf("a HAS model of mode %s cannot score binary answers", m.hyper.Mode)
	}
	return newQuery(m, text), nil
}

var _ index.Encoder[index.BitMatrix, index.MatrixQuery] = (*Model)(nil)

// EncodeFloatAnswers encodes answers into what the float baselines store
// offline (the HAS paper's Table 6): a pooling-mode model's pooled vector
// max_pool(V_a) [D], or an attention-mode model's word states V_a [L, D]
// (row after row), 32 bits an element. A hash-mode model stores binary
// matrices instead (EncodeAnswers).
func (m *Model) EncodeFloatAnswers(ctx context.Context, texts []string) ([][]float32, error) {
	if m.hyper.Mode == Hash {
		return nil, fmt.Errorf("a hash-mode model stores binary answers: use EncodeAnswers")
	}
	out := make([][]float32, len(texts))
	err := m.encodeEach(ctx, texts, m.hyper.Mode == Pooling, nil, func(i int, v *nn.Tensor[float32]) { out[i] = v.Data })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScoreFloatAnswers scores answers that EncodeFloatAnswers encoded
// against question: the cosine of pooled vectors, or attention over the
// stored word states. The scores equal Score's on the same texts (up to
// float rounding).
func (m *Model) ScoreFloatAnswers(ctx context.Context, question string, answers [][]float32) ([]float64, error) {
	if m.hyper.Mode == Hash {
		return nil, fmt.Errorf("a hash-mode model stores binary answers: score them through an index.Matrices")
	}
	d := m.Dim()
	for i, a := range answers {
		if len(a) == 0 || len(a)%d != 0 || m.hyper.Mode == Pooling && len(a) != d {
			return nil, fmt.Errorf("answer %d: %d floats, not the model's stored states of %d-d rows", i, len(a), d)
		}
	}
	q := newQuery(m, question)
	out := make([]float64, len(answers))
	err := nn.ParallelContext(ctx, len(answers), func(lo, hi int) {
		s := q.scratch()
		for i := lo; i < hi; i++ {
			if m.hyper.Mode == Pooling {
				out[i] = q.cosine(answers[i])
			} else {
				out[i] = q.scoreFloat(answers[i], s)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// byteTables hold W₁ applied to every byte of a binary row: entry
// [k][b] [M] is Σ_{j<8} ±W₁[8k+j] (+ where bit j of b is set), so that
// W₁b_i for a row of D bits is ⌈D/8⌉ table rows added, with no
// multiplication: adds and subtracts only, as the issue asks.
type byteTables struct {
	m    int       // M
	data []float32 // [⌈D/8⌉][256][M]
}

func newByteTables(w1 *nn.Tensor[float32]) *byteTables {
	d, m := w1.Dims()
	chunks := (d + 7) / 8
	t := &byteTables{m: m, data: make([]float32, chunks*256*m)}
	for k := range chunks {
		for b := range 256 {
			e := t.data[(k*256+b)*m : (k*256+b+1)*m]
			for j := range 8 {
				if 8*k+j >= d {
					break
				}
				row := w1.Row(8*k + j)
				if b>>j&1 == 1 {
					for x, v := range row {
						e[x] += v
					}
				} else {
					for x, v := range row {
						e[x] -= v
					}
				}
			}
		}
	}
	return t
}

// query is a question encoded for scoring stored answers.
type query struct {
	d, mm int
	u     []float32 // u_q [D]
	unorm float64   // max(‖u_q‖, 1e-12), as nn.Tape.RowNormalize
	w2u   []float32 // W₂u_q [M]
	mvec  []float32 // m [M]
	w1    *nn.Tensor[float32]
}

// Scorer implements index.MatrixQuery: attention over an answer's rows
// unpacked to ±1 floats (scoreUnpacked), with scratch memory of its own.
// Unpacking (8 signs at a time) and a GEMM beat reading W₁b from the byte
// tables (scoreBits, adds only), whose 4 MB at D = 256 and M = 128 do not
// stay in cache: 500 answers of 30 words took 39 ms against 49 ms on one
// core (BenchmarkStored).
func (q *query) Scorer() func(index.BitMatrix) float64 {
	s := q.scratch()
	return func(a index.BitMatrix) float64 {
		if a.Dim != q.d {
			return math.NaN()
		}
		return q.scoreUnpacked(a.Bits, s)
	}
}

func newQuery(m *Model, question string) *query {
	s := m.sentence(question)
	u := m.rows.Value(func(tp *nn.Tape[float32]) *nn.Var[float32] { return tp.MaxPool(m.encode(tp, s)) })
	var n2 float64
	for _, v := range u.Data {
		n2 += float64(v) * float64(v)
	}
	q := &query{d: m.Dim(), mm: m.hyper.AttnHidden, u: u.Data, unorm: max(math.Sqrt(n2), 1e-12)}
	if m.hyper.Mode != Pooling { // the composition layer's
		w2u := m.rows.Value(func(tp *nn.Tape[float32]) *nn.Var[float32] { return m.w2.Forward(tp, tp.Const(u)) })
		q.w2u, q.mvec, q.w1 = w2u.Data, m.m.W.Value.Data, m.w1.W.Value
	}
	return q
}

type scratch struct {
	acc, e, v []float32
	rows      []float32 // unpacked rows, for scoreUnpacked
	proj      []float32
}

func (q *query) scratch() *scratch {
	return &scratch{acc: make([]float32, q.mm), v: make([]float32, q.d)}
}

// scoreBits scores an answer from its packed rows (the slower way, see
// Scorer): W₁b_r from the byte tables, the attention weights, then
// v = Σ α_r b_r with b_r's ±1 read off the bits, and the cosine.
func (q *query) scoreBits(t *byteTables, rows []uint64, s *scratch) float64 {
	w := index.Words(q.d)
	l := len(rows) / w
	s.e = s.e[:0]
	chunks := (q.d + 7) / 8
	for r := range l {
		row := rows[r*w : (r+1)*w]
		copy(s.acc, q.w2u)
		for k := range chunks {
			b := int(row[k/8] >> (8 * (k % 8)) & 0xff)
			nn.Axpy(1, t.data[(k*256+b)*t.m:(k*256+b+1)*t.m], s.acc)
		}
		s.e = append(s.e, q.energy(s.acc))
	}
	softmax(s.e)
	clear(s.v)
	full := q.d / 8
	for r := range l {
		a := s.e[r]
		row := rows[r*w : (r+1)*w]
		for k := range full { // 8 signs a byte, from byteSigns
			v, signs := s.v[8*k:8*k+8], &byteSigns[row[k/8]>>(8*(k%8))&0xff]
			for j := range v {
				v[j] += a * signs[j]
			}
		}
		for j := 8 * full; j < q.d; j++ {
			s.v[j] += a * float32(int(row[j/64]>>(j%64)&1)*2-1)
		}
	}
	return q.cosine(s.v)
}

// scoreUnpacked scores an answer as Score does, from its rows unpacked to
// ±1 floats: W₁B by a GEMM. It is the other way of the benchmark.
func (q *query) scoreUnpacked(rows []uint64, s *scratch) float64 {
	l := len(rows) / index.Words(q.d)
	s.rows = resize(s.rows, l*q.d)
	unpackRows(s.rows, rows, l, q.d)
	return q.scoreFloat(s.rows, s)
}

// scoreFloat scores an answer from its word states [L, D] by the
// composition and similarity layers: W₁B by a GEMM, the attention weights,
// v = Σ α_r b_r and the cosine.
func (q *query) scoreFloat(rows []float32, s *scratch) float64 {
	l := len(rows) / q.d
	s.proj = resize(s.proj, l*q.mm)
	for r := range l {
		copy(s.proj[r*q.mm:(r+1)*q.mm], q.w2u)
	}
	nn.Gemm(false, false, l, q.mm, q.d, 1, rows, q.d, q.w1.Data, q.mm, 1, s.proj, q.mm)
	s.e = s.e[:0]
	for r := range l {
		s.e = append(s.e, q.energy(s.proj[r*q.mm:(r+1)*q.mm]))
	}
	softmax(s.e)
	clear(s.v)
	for r := range l {
		nn.Axpy(s.e[r], rows[r*q.d:(r+1)*q.d], s.v)
	}
	return q.cosine(s.v)
}

// resize returns x with length n, reusing its memory when it can (the
// contents are not kept).
func resize(x []float32, n int) []float32 {
	if cap(x) < n {
		return make([]float32, n)
	}
	return x[:n]
}

// energy is mᵀ tanh(x) for x = W₁b + W₂u_q (tanh in float32: nn.Tanh32).
func (q *query) energy(x []float32) float32 {
	var e float32
	for j, v := range x {
		e += q.mvec[j] * nn.Tanh32(v)
	}
	return e
}

// cosine is cos(u_q, v) with nn.Tape.RowNormalize's floor on the norms.
func (q *query) cosine(v []float32) float64 {
	var dot, n2 float64
	for j, x := range v {
		dot += float64(x) * float64(q.u[j])
		n2 += float64(x) * float64(x)
	}
	return dot / (q.unorm * max(math.Sqrt(n2), 1e-12))
}

// softmax normalises e in place.
func softmax(e []float32) {
	mx := e[0]
	for _, v := range e {
		mx = max(mx, v)
	}
	var s float64
	for i, v := range e {
		x := math.Exp(float64(v - mx))
		e[i] = float32(x)
		s += x
	}
	for i := range e {
		e[i] = float32(float64(e[i]) / s)
	}
}
