package has

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/as2/as2/nn"
)

// Answer is one answer of a pool to encode.
type Answer struct {
	ID, Text string
}

// BuildMemory encodes answers once into a Memory: each answer's binary
// matrix sgn(V_a), the answers spread over the cores. Only a hash-mode
// model has binary answer states.
func (m *Model) BuildMemory(ctx context.Context, answers []Answer) (*Memory, error) {
	if m.hyper.Mode != Hash {
		return nil, fmt.Errorf("a %s-mode model has no binary answer states: train with --has-mode hash", m.hyper.Mode)
	}
	d := m.Dim()
	packed := make([][]uint64, len(answers))
	err := nn.ParallelContext(ctx, len(answers), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := m.sentence(answers[i].Text)
			v := m.rows.Value(func(tp *nn.Tape[float32]) *nn.Var[float32] { return m.encode(tp, s) })
			packed[i] = packRows(v.Data, v.Rows(), d)
		}
	})
	if err != nil {
		return nil, err
	}
	mem := &Memory{Dim: d, Model: m.Fingerprint(), Offsets: make([]int, 1, len(answers)+1)}
	w := mem.Words()
	for i, a := range answers {
		mem.IDs = append(mem.IDs, a.ID)
		mem.Texts = append(mem.Texts, a.Text)
		mem.Offsets = append(mem.Offsets, mem.Offsets[i]+len(packed[i])/w)
		mem.Bits = append(mem.Bits, packed[i]...)
	}
	return mem, nil
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

// byteTables returns the model's tables, built on first use.
func (m *Model) byteTables() *byteTables {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tables == nil {
		m.tables = newByteTables(m.w1.W.Value)
	}
	return m.tables
}

// ScoreMemory scores the answers idx of mem (nil: all of them) against
// question, the test-time forward pass of HAS over the stored binary
// matrices: the question is encoded and max-pooled (u_q), and each answer
// is composed by attention over its ±1 rows and scored by cos(u_q, v_a).
// The scores equal Score's on the same texts (up to float rounding).
func (m *Model) ScoreMemory(ctx context.Context, question string, mem *Memory, idx []int) ([]float64, error) {
	if m.hyper.Mode != Hash {
		return nil, fmt.Errorf("a %s-mode model cannot score a binary memory", m.hyper.Mode)
	}
	if mem.Dim != m.Dim() {
		return nil, fmt.Errorf("the memory has %d-bit rows, the model %d-dimensional states", mem.Dim, m.Dim())
	}
	if mem.Model != m.Fingerprint() {
		return nil, errors.New("the memory was encoded by another model (or before this one's last training step): rebuild it")
	}
	if idx == nil {
		idx = make([]int, mem.Len())
		for i := range idx {
			idx[i] = i
		}
	}
	for _, i := range idx {
		if i < 0 || i >= mem.Len() {
			return nil, fmt.Errorf("answer %d: the memory has %d", i, mem.Len())
		}
	}
	q := newQuery(m, question)
	tables := m.byteTables()
	out := make([]float64, len(idx))
	err := nn.ParallelContext(ctx, len(idx), func(lo, hi int) {
		s := q.scratch()
		for k := lo; k < hi; k++ {
			out[k] = q.scoreBits(tables, mem, idx[k], s)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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

func newQuery(m *Model, question string) *query {
	s := m.sentence(question)
	u := m.rows.Value(func(tp *nn.Tape[float32]) *nn.Var[float32] { return tp.MaxPool(m.encode(tp, s)) })
	w2u := m.rows.Value(func(tp *nn.Tape[float32]) *nn.Var[float32] { return m.w2.Forward(tp, tp.Const(u)) })
	var n2 float64
	for _, v := range u.Data {
		n2 += float64(v) * float64(v)
	}
	return &query{d: m.Dim(), mm: m.hyper.AttnHidden, u: u.Data, unorm: max(math.Sqrt(n2), 1e-12),
		w2u: w2u.Data, mvec: m.m.W.Value.Data, w1: m.w1.W.Value}
}

type scratch struct {
	acc, e, v []float32
	rows      []float32 // unpacked rows, for scoreUnpacked
	proj      []float32
}

func (q *query) scratch() *scratch {
	return &scratch{acc: make([]float32, q.mm), v: make([]float32, q.d)}
}

// scoreBits scores answer i from its bits: W₁b_r from the byte tables,
// the attention weights, then v = Σ α_r b_r with b_r's ±1 read off the
// bits, and the cosine.
func (q *query) scoreBits(t *byteTables, mem *Memory, i int, s *scratch) float64 {
	w := mem.Words()
	rows := mem.Rows(i)
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
	for r := range l {
		a := s.e[r]
		row := rows[r*w : (r+1)*w]
		for j := range q.d {
			if row[j/64]>>(j%64)&1 == 1 {
				s.v[j] += a
			} else {
				s.v[j] -= a
			}
		}
	}
	return q.cosine(s.v)
}

// scoreUnpacked scores answer i as Score does, from its rows unpacked to
// ±1 floats: W₁B by a GEMM. It is the other way of the benchmark.
func (q *query) scoreUnpacked(mem *Memory, i int, s *scratch) float64 {
	w := mem.Words()
	rows := mem.Rows(i)
	l := len(rows) / w
	s.rows = append(s.rows[:0], make([]float32, l*q.d)...)
	s.proj = append(s.proj[:0], make([]float32, l*q.mm)...)
	unpackRows(s.rows, rows, l, q.d)
	for r := range l {
		copy(s.proj[r*q.mm:(r+1)*q.mm], q.w2u)
	}
	nn.Gemm(false, false, l, q.mm, q.d, 1, s.rows, q.d, q.w1.Data, q.mm, 1, s.proj, q.mm)
	s.e = s.e[:0]
	for r := range l {
		s.e = append(s.e, q.energy(s.proj[r*q.mm:(r+1)*q.mm]))
	}
	softmax(s.e)
	clear(s.v)
	for r := range l {
		nn.Axpy(s.e[r], s.rows[r*q.d:(r+1)*q.d], s.v)
	}
	return q.cosine(s.v)
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
