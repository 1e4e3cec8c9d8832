package index

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/as2/as2/rank"
)

// Options are the build parameters of the kinds New makes; a zero field
// takes its default.
type Options struct {
	// Rescore is a binary index's nearest codes rescored by their float
	// vectors (default DefaultRescore).
	Rescore int
	// HNSW are an hnsw index's parameters.
	HNSW HNSWOptions
	// BM25 are a bm25 index's scoring options (nil: rank.DefaultOptions()).
	BM25 *rank.Options
}

// Vectors is an index of sentence vectors searched by inner product: the
// kinds flat, binary and hnsw.
type Vectors interface {
	Stored
	Index[[]float32, []float32]
}

// VectorKinds are the kinds of Vectors, in the order help texts list them.
var VectorKinds = []string{FlatKind, BinaryKind, HNSWKind}

// New returns an empty index of kind: a vector kind (flat, binary, hnsw)
// or matrices, over dim-dimensional answers, or bm25 (dim unused). It is
// the one place that maps a kind's name to its constructor, so that
// commands, benchmarks and the front door build the same thing.
func New(kind string, dim int, opts Options) (Stored, error) {
	switch kind {
	case BM25Kind:
		o := rank.DefaultOptions()
		if opts.BM25 != nil {
			o = *opts.BM25
		}
		return NewBM25(o), nil
	case MatricesKind:
		return NewMatrices(dim)
	}
	return NewVectors(kind, dim, opts)
}

// NewVectors returns an empty index of a vector kind (flat, binary or
// hnsw) over dim-dimensional vectors.
func NewVectors(kind string, dim int, opts Options) (Vectors, error) {
	switch kind {
	case FlatKind:
		return NewFlat(dim)
	case BinaryKind:
		x, err := NewBinary(dim)
		if err != nil {
			return nil, err
		}
		if opts.Rescore < 0 {
			return nil, fmt.Errorf("index: rescore %d: want at least 1", opts.Rescore)
		}
		x.Rescore = opts.Rescore
		if x.Rescore == 0 {
			x.Rescore = DefaultRescore
		}
		return x, nil
	case HNSWKind:
		return NewHNSW(dim, opts.HNSW)
	}
	return nil, fmt.Errorf("index: kind %q: want flat, binary or hnsw", kind)
}

// Read reads an index file of any stand-alone kind (flat, binary, hnsw,
// bm25, matrices, remote) from r, as its kind's reader does: the kind is
// taken from the file's header. A bundle (as2 index build) is refused
// with an error that points at ReadBundle.
func Read(r io.Reader) (Stored, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(16)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: reading the header: %w", ErrCorrupt, err)
	}
	if string(head[:8]) != magic {
		return nil, fmt.Errorf("not an as2 index file (no %q magic)", magic)
	}
	kind := string(trimNUL(head[8:]))
	if kind == BundleKind {
		return nil, errors.New("the file holds an index bundle (as2 index build), not a stand-alone index: read it with ReadBundle")
	}
	k, ok := kinds[kind]
	if !ok {
		return nil, fmt.Errorf("the file holds a %q index, which this build does not read", kind)
	}
	return readKind(br, kind, k.version, k.read)
}

// SearchOptions change how a stored index searches, the trade of speed
// for recall that may change after the build; a zero field keeps the
// index's own value.
type SearchOptions struct {
	// EfSearch is an hnsw index's candidates a search keeps.
	EfSearch int
	// Rescore is a binary index's nearest codes rescored by their floats.
	Rescore int
}

// Apply sets o on x. A field given for another kind is an error: it
// would change nothing, and a user who gave it expected it to.
func (o SearchOptions) Apply(x Stored) error {
	if o.EfSearch != 0 {
		h, ok := x.(*HNSW)
		if !ok {
			return fmt.Errorf("index: ef-search %d is for hnsw indexes, not a %s one", o.EfSearch, x.Kind())
		}
		if err := h.SetEfSearch(o.EfSearch); err != nil {
			return err
		}
	}
	if o.Rescore != 0 {
		b, ok := x.(*Binary)
		if !ok {
			return fmt.Errorf("index: rescore %d is for binary indexes, not a %s one", o.Rescore, x.Kind())
		}
		if o.Rescore < 0 {
			return fmt.Errorf("index: rescore %d: want at least 1", o.Rescore)
		}
		b.Rescore = o.Rescore
	}
	return nil
}

// Describe says what x is and how it searches, for people: "flat index",
// "binary index (200 rescored)", "hnsw index (M 16, efConstruction 200,
// efSearch 100)", "weaviate index (class C at URL)".
func Describe(x Stored) string {
	switch x := x.(type) {
	case *Binary:
		return fmt.Sprintf("binary index (%d rescored)", x.Rescore)
	case *HNSW:
		o := x.Options()
		return fmt.Sprintf("hnsw index (M %d, efConstruction %d, efSearch %d)", o.M, o.EfConstruction, o.EfSearch)
	case *Remote:
		return fmt.Sprintf("%s index (class %s at %s)", x.Engine, x.Params["class"], x.Params["url"])
	}
	return x.Kind() + " index"
}
