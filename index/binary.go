package index

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"slices"
)

// Binary is the exact index over bit-packed binary codes with float
// rescoring: each answer's vector is stored as its sign bits (one bit per
// dimension, 64 to a uint64 word) beside the vector itself; a search ranks
// every code by its Hamming distance to the question's code (XOR and
// popcount, math/bits), then rescores the Rescore nearest codes by the
// inner product of the float vectors and returns the k best of those.
// Binarised dual vectors and HAS's binary answer matrices use such codes.
//
// With vectors of mean zero the Hamming distance between sign codes
// estimates the angle between the vectors (Charikar 2002), so the
// candidates are mostly those an exact scan would rank first; Rescore
// trades speed for that recall. It is safe for concurrent searches, not
// for a search during Add.
type Binary struct {
	Flat
	words int      // uint64 words per code
	codes []uint64 // len(ids) codes of words
	// Rescore is the number of nearest codes rescored by their float
	// vectors (at least k): DefaultRescore when 0.
	Rescore int
}

// BinaryKind is Binary's kind in the file format.
const BinaryKind = "binary"

const binaryVersion = 1

// DefaultRescore is Binary's default Rescore.
const DefaultRescore = 200

// NewBinary returns an empty binary index of dim-dimensional vectors.
func NewBinary(dim int) (*Binary, error) {
	f, err := NewFlat(dim)
	if err != nil {
		return nil, err
	}
	return &Binary{Flat: *f, words: Words(dim)}, nil
}

// Code appends to dst the binary code of v: bit j is set when v[j] > 0.
func Code(dst []uint64, v []float32) []uint64 {
	words := Words(len(v))
	for w := range words {
		var c uint64
		for j, x := range v[w*64 : min(w*64+64, len(v))] {
			if x > 0 {
				c |= 1 << j
			}
		}
		dst = append(dst, c)
	}
	return dst
}

// Hamming is the number of bits that differ between codes a and b.
func Hamming(a, b []uint64) int {
	d := 0
	for i, x := range a {
		d += bits.OnesCount64(x ^ b[i])
	}
	return d
}

// Add implements Index.
func (x *Binary) Add(ids []string, vecs [][]float32) error {
	if err := x.Flat.Add(ids, vecs); err != nil {
		return err
	}
	x.codes = slices.Grow(x.codes, len(vecs)*x.words)
	for _, v := range vecs {
		x.codes = Code(x.codes, v)
	}
	return nil
}

// Search implements Index: the k best by inner product among the Rescore
// answers whose codes are nearest to q's (fewest differing bits; equal
// distances in the order added).
func (x *Binary) Search(ctx context.Context, q []float32, k int) ([]Hit, error) {
	if len(q) != x.dim {
		return nil, fmt.Errorf("index: a %d-dimensional question for %d-dimensional answers", len(q), x.dim)
	}
	if k <= 0 {
		return nil, nil
	}
	qc := Code(nil, q)
	n := x.Rescore
	if n <= 0 {
		n = DefaultRescore
	}
	n = max(n, k)
	// A code costs words popcounts where a vector costs dim products:
	// scale the parallel threshold accordingly.
	near, err := scan(ctx, len(x.ids), x.words*8, n, func(lo, hi int, t *topK) {
		w := x.words
		for i := lo; i < hi; i++ {
			t.offer(i, -float64(Hamming(x.codes[i*w:(i+1)*w], qc)))
		}
	})
	if err != nil {
		return nil, err
	}
	best := newTopK(k)
	for _, c := range near {
		best.offer(c.i, float64(dot(x.vecs[c.i*x.dim:(c.i+1)*x.dim], q)))
	}
	return x.hits(best.sorted()), nil
}

// WriteTo implements Index: kind "binary", version 1, the body of Flat's
// followed by Rescore (uint32). The codes are rebuilt from the vectors on
// reading.
func (x *Binary) WriteTo(w io.Writer) (int64, error) {
	fw := newFileWriter(w, BinaryKind, binaryVersion)
	x.writeBody(fw)
	return fw.finish()
}

func (x *Binary) writeBody(fw *fileWriter) {
	x.Flat.writeBody(fw)
	fw.u32(uint32(max(x.Rescore, 0)))
}

// ReadBinary reads an index written by Binary.WriteTo (see ReadFlat for
// errors).
func ReadBinary(r io.Reader) (*Binary, error) {
	return readKind(r, BinaryKind, binaryVersion, readBinaryBody)
}

// readBinaryBody reads what writeBody wrote; the codes are computed only
// once the body is whole.
func readBinaryBody(fr *fileReader) *Binary {
	f := readFlatBody(fr)
	rescore := fr.u32()
	if fr.err == nil && rescore > 1<<24 {
		fr.fail(fmt.Errorf("rescoring %d candidates", rescore))
	}
	x := &Binary{Flat: *f, words: Words(f.dim), Rescore: int(rescore)}
	if fr.err == nil {
		for i := range f.ids {
			x.codes = Code(x.codes, f.vecs[i*f.dim:(i+1)*f.dim])
		}
	}
	return x
}

var _ Index[[]float32, []float32] = (*Binary)(nil)
