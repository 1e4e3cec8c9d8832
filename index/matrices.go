package index

import (
	"context"
	"fmt"
	"io"
)

// Matrices is the exact index over binary matrices, one per answer: HAS's
// stored answers (HAS paper, section "Hashing Layer" and Table 6). An
// answer is L rows of Dim signs, bit-packed into ⌈Dim/64⌉ uint64 words per
// row (bit j%64 of word j/64 set for +1, clear for −1; the bits past Dim
// clear), 1 bit per element where attention over float answer states
// stores 32. A search scores every answer with the question's
// MatrixQuery (for HAS: attention from the question's vector over the
// answer's rows, then a cosine), so its cost is that of the scoring
// function, not of a vector scan. It is safe for concurrent searches, not
// for a search during Add.
type Matrices struct {
	dim     int
	ids     []string
	offsets []int    // answer i's rows are offsets[i]..offsets[i+1]
	bits    []uint64 // rows × Words()
}

// BitMatrix is one answer's binary matrix: Rows rows of Words() packed
// words each, in Bits.
type BitMatrix struct {
	Dim  int      // signs per row
	Bits []uint64 // the rows' words, row after row
}

// Words is the number of uint64 words of a row of dim signs.
func Words(dim int) int { return (dim + 63) / 64 }

// Rows is the number of rows of m.
func (m BitMatrix) Rows() int { return len(m.Bits) / Words(m.Dim) }

// MatrixQuery is a question encoded to score binary matrices.
type MatrixQuery interface {
	// Scorer returns a function that scores one answer's matrix. Each
	// goroutine of a search calls Scorer once and keeps its function, so
	// the function may reuse scratch memory between calls.
	Scorer() func(BitMatrix) float64
}

// MatricesKind is Matrices' kind in the file format.
const MatricesKind = "matrices"

const matricesVersion = 1

// maxRows bounds the rows of one answer.
const maxRows = 1 << 20

// NewMatrices returns an empty index of matrices with rows of dim signs.
func NewMatrices(dim int) (*Matrices, error) {
	if dim < 1 || dim > maxDim {
		return nil, fmt.Errorf("index: dimension %d: want 1 to %d", dim, maxDim)
	}
	return &Matrices{dim: dim, offsets: []int{0}}, nil
}

// Dim is the signs per row.
func (x *Matrices) Dim() int { return x.dim }

// Len implements Index.
func (x *Matrices) Len() int { return len(x.ids) }

// Kind implements Stored.
func (x *Matrices) Kind() string { return MatricesKind }

// Matrix returns answer i's matrix (sharing the index's memory).
func (x *Matrices) Matrix(i int) BitMatrix {
	w := Words(x.dim)
	return BitMatrix{Dim: x.dim, Bits: x.bits[x.offsets[i]*w : x.offsets[i+1]*w]}
}

// ID returns answer i's id.
func (x *Matrices) ID(i int) string { return x.ids[i] }

// CodeBytes is the memory the answers' matrices take (the HAS paper's
// "memory cost for storing representations of answers"), without ids.
func (x *Matrices) CodeBytes() int64 { return 8 * int64(len(x.bits)) }

// Add implements Index.
func (x *Matrices) Add(ids []string, answers []BitMatrix) error {
	if err := checkAdd(ids, len(answers), x.dim, func(i int) int { return answers[i].Dim }); err != nil {
		return err
	}
	w := Words(x.dim)
	for i, a := range answers {
		if r := a.Rows(); r < 1 || r > maxRows || len(a.Bits) != r*w {
			return fmt.Errorf("index: answer %q: %d words, want 1 to %d rows of %d", ids[i], len(a.Bits), maxRows, w)
		}
		if err := checkPadding(a.Bits, x.dim); err != nil {
			return fmt.Errorf("index: answer %q: %w", ids[i], err)
		}
	}
	for i, a := range answers {
		x.ids = append(x.ids, ids[i])
		x.bits = append(x.bits, a.Bits...)
		x.offsets = append(x.offsets, x.offsets[len(x.offsets)-1]+a.Rows())
	}
	return nil
}

// checkPadding checks that no bit past dim is set in rows of dim signs.
func checkPadding(bits []uint64, dim int) error {
	pad := dim % 64
	if pad == 0 {
		return nil
	}
	w := Words(dim)
	mask := ^uint64(0) << pad
	for r := w - 1; r < len(bits); r += w {
		if bits[r]&mask != 0 {
			return fmt.Errorf("row %d has bits set past dimension %d", r/w, dim)
		}
	}
	return nil
}

// Search implements Index: the k answers q scores highest, best first
// (equal scores in the order added).
func (x *Matrices) Search(ctx context.Context, q MatrixQuery, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	best, err := x.scan(ctx, q, len(x.ids), k, func(t *topK, i int, score func(BitMatrix) float64) {
		t.offer(i, score(x.Matrix(i)))
	})
	if err != nil {
		return nil, err
	}
	out := make([]Hit, len(best))
	for j, c := range best {
		out[j] = Hit{ID: x.ids[c.i], Score: c.score}
	}
	return out, nil
}

// Score scores the answers idx (positions, as Matrix takes) against q, in
// idx's order: a question's own candidates out of a stored pool (the HAS
// paper's setting of 500 candidates per question).
func (x *Matrices) Score(ctx context.Context, q MatrixQuery, idx []int) ([]float64, error) {
	for _, i := range idx {
		if i < 0 || i >= len(x.ids) {
			return nil, fmt.Errorf("index: answer %d of %d", i, len(x.ids))
		}
	}
	out := make([]float64, len(idx))
	// Nothing to keep (k = 0): each worker writes its own positions of out.
	if _, err := x.scan(ctx, q, len(idx), 0, func(_ *topK, j int, score func(BitMatrix) float64) {
		out[j] = score(x.Matrix(idx[j]))
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// scan calls each for j in 0..n-1 over the CPUs, each worker with its own
// k best and its own scorer from q. Attention over a row costs far more
// than a dot product over a vector (for HAS, a product by W₁ [D, M]): a
// row's sign counts as 8 multiplications for scan's parallel threshold.
func (x *Matrices) scan(ctx context.Context, q MatrixQuery, n, k int, each func(t *topK, j int, score func(BitMatrix) float64)) ([]scored, error) {
	cost := 8 * x.dim
	if len(x.ids) > 0 {
		cost *= max(1, x.offsets[len(x.ids)]/len(x.ids))
	}
	return scan(ctx, n, cost, k, func(lo, hi int, t *topK) {
		score := q.Scorer()
		for j := lo; j < hi; j++ {
			each(t, j, score)
		}
	})
}

// WriteTo implements Index: kind "matrices", version 1; body: dim uint32,
// the ids (as Flat's), each answer's rows (uint32), then the words
// (uint64, row after row).
func (x *Matrices) WriteTo(w io.Writer) (int64, error) {
	fw := newFileWriter(w, MatricesKind, matricesVersion)
	x.writeBody(fw)
	return fw.finish()
}

func (x *Matrices) writeBody(fw *fileWriter) {
	fw.u32(uint32(x.dim))
	writeIDs(fw, x.ids)
	for i := range x.ids {
		fw.u32(uint32(x.offsets[i+1] - x.offsets[i]))
	}
	fw.u64s(x.bits)
}

// ReadMatrices reads an index written by Matrices.WriteTo (see ReadFlat
// for errors).
func ReadMatrices(r io.Reader) (*Matrices, error) {
	return readKind(r, MatricesKind, matricesVersion, readMatricesBody)
}

func readMatricesBody(fr *fileReader) *Matrices {
	x := &Matrices{dim: int(fr.u32()), offsets: []int{0}}
	if fr.err == nil && (x.dim < 1 || x.dim > maxDim) {
		fr.fail(fmt.Errorf("dimension %d", x.dim))
	}
	x.ids = readIDs(fr)
	for i := 0; i < len(x.ids) && fr.err == nil; i++ {
		r := fr.u32()
		if fr.err == nil && (r < 1 || r > maxRows) {
			fr.fail(fmt.Errorf("answer %d has %d rows", i, r))
		}
		x.offsets = append(x.offsets, x.offsets[i]+int(r))
	}
	if fr.err != nil {
		return x
	}
	x.bits = fr.u64s(uint64(x.offsets[len(x.ids)]) * uint64(Words(x.dim)))
	if fr.err == nil {
		if err := checkPadding(x.bits, x.dim); err != nil {
			fr.fail(err)
		}
	}
	return x
}

var _ Index[BitMatrix, MatrixQuery] = (*Matrices)(nil)
