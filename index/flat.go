package index

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/as2/as2/kernel"
)

// Flat is the exact index over float32 vectors: a search scores every
// stored vector by its inner product with the question's, the dual
// encoders' score (ENDX paper, section 3), on as2's AVX2 dot-product
// kernel (internal/f32), split over the CPUs for pools of more than
// ParallelMin vectors. It is safe for concurrent searches, not for a
// search during Add.
type Flat struct {
	dim  int
	ids  []string
	vecs []float32 // len(ids) rows of dim
}

// FlatKind is Flat's kind in the file format.
const FlatKind = "flat"

const flatVersion = 1

// ParallelMin is the pool size (vectors × dimensions) from which the exact
// scans use every CPU: below it, starting goroutines costs more than it
// saves.
const ParallelMin = 1 << 18

// NewFlat returns an empty exact index of dim-dimensional vectors.
func NewFlat(dim int) (*Flat, error) {
	if dim < 1 || dim > maxDim {
		return nil, fmt.Errorf("index: dimension %d: want 1 to %d", dim, maxDim)
	}
	return &Flat{dim: dim}, nil
}

const maxDim = 1 << 16

// Dim is the vectors' dimension.
func (x *Flat) Dim() int { return x.dim }

// Len implements Index.
func (x *Flat) Len() int { return len(x.ids) }

// Vector is the i-th stored vector (0 ≤ i < Len), in the order added: a
// view of the index's storage, which the caller must not change.
func (x *Flat) Vector(i int) []float32 { return x.vecs[i*x.dim : (i+1)*x.dim : (i+1)*x.dim] }

// Add implements Index.
func (x *Flat) Add(ids []string, vecs [][]float32) error {
	if err := checkAdd(ids, len(vecs), x.dim, func(i int) int { return len(vecs[i]) }); err != nil {
		return err
	}
	x.ids = append(x.ids, ids...)
	// Grown once: a pool of millions would otherwise be copied as it
	// doubles, and keep up to twice its size.
	x.vecs = slices.Grow(x.vecs, len(vecs)*x.dim)
	for _, v := range vecs {
		x.vecs = append(x.vecs, v...)
	}
	return nil
}

func checkAdd(ids []string, n, dim int, length func(int) int) error {
	if len(ids) != n {
		return fmt.Errorf("index: %d ids for %d vectors", len(ids), n)
	}
	for i, id := range ids {
		if id == "" || len(id) > maxString {
			return fmt.Errorf("index: answer %d: id of %d bytes (want 1 to %d)", i, len(id), maxString)
		}
		if l := length(i); l != dim {
			return fmt.Errorf("index: answer %q: %d dimensions, want %d", id, l, dim)
		}
	}
	return nil
}

// dot is Σ a[i]·b[i] on the kernel where it applies.
func dot(a, b []float32) float32 {
	if s, ok := kernel.Dot(a, b); ok {
		return s
	}
	var s float32
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// Search implements Index: the k vectors with the largest inner product
// with q, best first (equal scores in the order they were added).
func (x *Flat) Search(ctx context.Context, q []float32, k int) ([]Hit, error) {
	if len(q) != x.dim {
		return nil, fmt.Errorf("index: a %d-dimensional question for %d-dimensional answers", len(q), x.dim)
	}
	if k <= 0 {
		return nil, nil
	}
	best, err := scan(ctx, len(x.ids), x.dim, k, func(lo, hi int, t *topK) {
		for i := lo; i < hi; i++ {
			t.offer(i, float64(dot(x.vecs[i*x.dim:(i+1)*x.dim], q)))
		}
	})
	if err != nil {
		return nil, err
	}
	return x.hits(best), nil
}

func (x *Flat) hits(best []scored) []Hit {
	out := make([]Hit, len(best))
	for j, c := range best {
		out[j] = Hit{ID: x.ids[c.i], Score: c.score}
	}
	return out
}

// scan calls score over [0, n) in blocks, on every CPU when n×dim reaches
// ParallelMin, each worker keeping its own k best; it checks ctx between
// blocks. A block is about ParallelMin of work (at most 4096 answers), so
// that costly answers (HAS's matrices) still spread over the CPUs.
func scan(ctx context.Context, n, dim, k int, score func(lo, hi int, t *topK)) ([]scored, error) {
	block := min(4096, max(1, ParallelMin/dim))
	workers := 1
	if n*dim >= ParallelMin {
		workers = min(runtime.GOMAXPROCS(0), (n+block-1)/block)
	}
	parts := make([]*topK, workers)
	var wg sync.WaitGroup
	for w := range workers {
		parts[w] = newTopK(k)
		wg.Go(func() {
			for lo := w * block; lo < n; lo += workers * block {
				if ctx.Err() != nil {
					return
				}
				score(lo, min(lo+block, n), parts[w])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return merge(k, parts...), nil
}

// WriteTo implements Index: the ids and vectors in the package's checked
// format (kind "flat", version 1; body: dim uint32, count uint64, then
// count ids as uint32 length + bytes, then count×dim float32).
func (x *Flat) WriteTo(w io.Writer) (int64, error) {
	fw := newFileWriter(w, FlatKind, flatVersion)
	x.writeBody(fw)
	return fw.finish()
}

func (x *Flat) writeBody(fw *fileWriter) {
	fw.u32(uint32(x.dim))
	writeIDs(fw, x.ids)
	fw.f32s(x.vecs)
}

func writeIDs(fw *fileWriter, ids []string) {
	fw.u64(uint64(len(ids)))
	for _, id := range ids {
		fw.str(id)
	}
}

// readIDs reads what writeIDs wrote, growing the slice as ids arrive.
func readIDs(fr *fileReader) []string {
	n := fr.u64()
	var ids []string
	for i := uint64(0); i < n && fr.err == nil; i++ {
		id := fr.str()
		if fr.err == nil && id == "" {
			fr.fail(fmt.Errorf("answer %d has an empty id", i))
		}
		ids = append(ids, id)
	}
	return ids
}

// ReadFlat reads an index written by Flat.WriteTo. A file of another kind
// or version, or a damaged one, is refused with an error (wrapping
// ErrCorrupt for damage).
func ReadFlat(r io.Reader) (*Flat, error) {
	return readKind(r, FlatKind, flatVersion, readFlatBody)
}

func readFlatBody(fr *fileReader) *Flat {
	x := &Flat{dim: int(fr.u32())}
	if fr.err == nil && (x.dim < 1 || x.dim > maxDim) {
		fr.fail(fmt.Errorf("dimension %d", x.dim))
	}
	x.ids = readIDs(fr)
	x.vecs = fr.f32s(uint64(len(x.ids)) * uint64(x.dim))
	return x
}

var _ Index[[]float32, []float32] = (*Flat)(nil)
