package embed

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"unicode/utf8"
)

// Bounds on what any reader accepts (and Add). They keep a corrupt or
// hostile header from asking for an absurd allocation.
const (
	MaxDim     = 1 << 16 // dimensions of a vector
	MaxWordLen = 1 << 16 // bytes in one word
)

const (
	maxCount   = 1<<31 - 1   // words in one table
	maxValues  = 1<<40 - 1   // count × dim in a compact header
	chunk      = 256 << 10   // I/O chunk for the binary formats
	growStep   = 16 << 20    // bytes allocated ahead of input of unknown size
	hashPrefix = "as2-embed" // domain separation for Identity
)

// Vectors is a word → vector table. Row i is the vector of Words[i] and is
// stored at Data[i*Dim : (i+1)*Dim], so the whole table is one allocation
// that loads and saves as a block.
//
// Build a table with [New] and [Vectors.Add] or with a reader; the lookup
// index is private, so do not append to Words or Data directly. Once built,
// a table is safe for concurrent readers.
type Vectors struct {
	Dim   int
	Words []string
	Data  []float32

	index map[string]int
}

// New returns an empty table of dim-dimensional vectors.
func New(dim int) *Vectors {
	return &Vectors{Dim: dim, index: make(map[string]int)}
}

// Add appends word with a copy of vec. It fails, leaving v unchanged, when
// the word is empty, not valid UTF-8 or already present, when len(vec) is
// not v.Dim, or when a value is NaN or infinite.
func (v *Vectors) Add(word string, vec []float32) error {
	if err := v.add(strings.Clone(word), vec); err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	return nil
}

// add is Add without the copy of word and without the package prefix on
// errors, so that readers can place the error in their input.
func (v *Vectors) add(word string, vec []float32) error {
	if err := v.checkShape(); err != nil {
		return err
	}
	if len(vec) != v.Dim {
		return fmt.Errorf("%d values, want %d", len(vec), v.Dim)
	}
	if err := checkWord(word); err != nil {
		return err
	}
	if v.index == nil {
		v.rebuildIndex()
	}
	if _, dup := v.index[word]; dup {
		return fmt.Errorf("duplicate word %q", word)
	}
	for k, x := range vec {
		if !finite(x) {
			return fmt.Errorf("value %d of %q is %v: values must be finite", k+1, word, x)
		}
	}
	v.index[word] = len(v.Words)
	v.Words = append(v.Words, word)
	v.Data = append(v.Data, vec...)
	return nil
}

func (v *Vectors) checkShape() error {
	if v.Dim < 1 || v.Dim > MaxDim {
		return fmt.Errorf("dimension %d out of range 1..%d", v.Dim, MaxDim)
	}
	if len(v.Data) != len(v.Words)*v.Dim {
		return fmt.Errorf("inconsistent table: %d words of dimension %d but %d values", len(v.Words), v.Dim, len(v.Data))
	}
	return nil
}

func checkWord(w string) error {
	switch {
	case w == "":
		return errors.New("empty word")
	case len(w) > MaxWordLen:
		return fmt.Errorf("word of %d bytes, longer than %d", len(w), MaxWordLen)
	case !utf8.ValidString(w):
		return fmt.Errorf("word %q is not valid UTF-8", w)
	}
	return nil
}

// rebuildIndex lets Add work on a Vectors built as a struct literal.
func (v *Vectors) rebuildIndex() {
	v.index = make(map[string]int, len(v.Words))
	for i, w := range v.Words {
		v.index[w] = i
	}
}

// finite reports whether x is neither NaN nor ±Inf (exponent bits not all 1).
func finite(x float32) bool {
	return math.Float32bits(x)&0x7f800000 != 0x7f800000
}

// Len returns the number of words.
func (v *Vectors) Len() int { return len(v.Words) }

// Index returns the row of word.
func (v *Vectors) Index(word string) (int, bool) {
	i, ok := v.index[word]
	return i, ok
}

// Vector returns row i as a view into Data (its capacity ends with the row,
// so an append cannot overwrite the next one). It panics if i is out of range.
func (v *Vectors) Vector(i int) []float32 {
	return v.Data[i*v.Dim : (i+1)*v.Dim : (i+1)*v.Dim]
}

// Lookup returns the vector of word, a view into Data, or nil and false.
// Lookup is exact: callers lowercase and tokenize (text.Tokenize) first.
func (v *Vectors) Lookup(word string) ([]float32, bool) {
	i, ok := v.index[word]
	if !ok {
		return nil, false
	}
	return v.Vector(i), true
}

// Keep returns a new table with the words for which keep returns true, in
// their order in v (to cut a vocabulary down to a data set's, say).
func (v *Vectors) Keep(keep func(word string) bool) *Vectors {
	out := New(v.Dim)
	for i, w := range v.Words {
		if keep(w) {
			// Clone: a word may be a slice of one big string (see Read) that
			// a small subset should not keep alive.
			w = strings.Clone(w)
			out.index[w] = len(out.Words)
			out.Words = append(out.Words, w)
			out.Data = append(out.Data, v.Vector(i)...)
		}
	}
	return out
}

// Normalized returns a copy of v whose rows have unit Euclidean length (rows
// of zeros stay zero), so that the cosine of two rows is their dot product:
// see [RelatednessUnit]. Its Identity differs from v's.
func (v *Vectors) Normalized() *Vectors {
	out := &Vectors{
		Dim:   v.Dim,
		Words: append([]string(nil), v.Words...),
		Data:  make([]float32, len(v.Data)),
		index: maps.Clone(v.index),
	}
	if out.index == nil {
		out.rebuildIndex()
	}
	for i := range v.Words {
		row, dst := v.Vector(i), out.Vector(i)
		var ss float64
		for _, x := range row {
			ss += float64(x) * float64(x)
		}
		if ss == 0 {
			continue
		}
		inv := 1 / math.Sqrt(ss)
		for k, x := range row {
			dst[k] = float32(float64(x) * inv)
		}
	}
	return out
}

// Identity returns a short fingerprint of the table, for model files to
// record which embeddings they were trained with: "vec-<Dim>d-<Len>-" and the
// first 12 hex digits of a SHA-256 over the dimension, the words in order and
// the exact bits of every value. Equal tables have equal identities; any
// change to a word, the order or a single bit of a value changes it. It
// hashes the whole table (a few tenths of a second for 341k × 100): call it
// once when saving or loading a model.
func (v *Vectors) Identity() string {
	h := sha256.New()
	var b [binary.MaxVarintLen64 + 16]byte
	h.Write([]byte(hashPrefix))
	h.Write(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32(b[:0], uint32(v.Dim)), uint64(len(v.Words))))
	for _, w := range v.Words {
		h.Write(binary.AppendUvarint(b[:0], uint64(len(w))))
		h.Write([]byte(w))
	}
	buf := make([]byte, 0, chunk)
	for off := 0; off < len(v.Data); {
		n := min(len(v.Data)-off, chunk/4)
		buf = appendFloats(buf[:0], v.Data[off:off+n])
		h.Write(buf)
		off += n
	}
	return fmt.Sprintf("vec-%dd-%d-%x", v.Dim, len(v.Words), h.Sum(nil)[:6])
}

// appendFloats appends xs as little-endian float32.
func appendFloats(b []byte, xs []float32) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
