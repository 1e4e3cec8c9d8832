package index

import (
	"fmt"
	"io"
)

// Bundle is an index with what a search needs besides it, the file that
// "as2 index build" writes and "as2 index search" reads: how the question
// encoder is rebuilt (Encoder, key-value pairs the command defines, such
// as the retriever's kind, its parameters, a model's path and digest) and
// the answers' texts, to print them with the hits.
type Bundle struct {
	Encoder map[string]string
	// IDs and Texts are the answers, in the order they were added to
	// Index.
	IDs, Texts []string
	Index      Stored
}

// Stored is an index of one of this package's kinds (*Flat, *Binary,
// *HNSW, *BM25, *Matrices, or *Remote for answers stored in another
// system), as a Bundle holds it.
type Stored interface {
	Len() int
	// Kind is the kind's name in the file format.
	Kind() string
	WriteTo(w io.Writer) (int64, error)
	writeBody(fw *fileWriter)
}

// Kind implements Stored.
func (x *Flat) Kind() string { return FlatKind }

// Kind implements Stored.
func (x *Binary) Kind() string { return BinaryKind }

// Kind implements Stored.
func (x *HNSW) Kind() string { return HNSWKind }

// Kind implements Stored.
func (x *BM25) Kind() string { return BM25Kind }

// BundleKind is Bundle's kind in the file format.
const BundleKind = "bundle"

const bundleVersion = 1

// maxText bounds an answer's text in a bundle.
const maxText = 1 << 20

// kinds are the versions and body readers of the kinds a bundle can hold.
var kinds = map[string]struct {
	version uint32
	read    func(*fileReader) Stored
}{
	FlatKind:     {flatVersion, func(fr *fileReader) Stored { return readFlatBody(fr) }},
	BinaryKind:   {binaryVersion, func(fr *fileReader) Stored { return readBinaryBody(fr) }},
	HNSWKind:     {hnswVersion, func(fr *fileReader) Stored { return readHNSWBody(fr) }},
	BM25Kind:     {bm25Version, func(fr *fileReader) Stored { return readBM25Body(fr) }},
	MatricesKind: {matricesVersion, func(fr *fileReader) Stored { return readMatricesBody(fr) }},
	RemoteKind:   {remoteVersion, func(fr *fileReader) Stored { return readRemoteBody(fr) }},
}

// WriteTo writes the bundle in the package's checked format (kind
// "bundle", version 1). Its body: the encoder's pairs (a uint32 count,
// then key and value strings, keys ascending), the answers (a uint64
// count, then each one's id and text as strings), then the index: its
// kind (a string), its format version (uint32) and its kind's body, all
// under the one checksum at the end.
func (b *Bundle) WriteTo(w io.Writer) (int64, error) {
	if err := b.check(); err != nil {
		return 0, err
	}
	fw := newFileWriter(w, BundleKind, bundleVersion)
	writeStrings(fw, b.Encoder)
	fw.u64(uint64(len(b.IDs)))
	for i, id := range b.IDs {
		fw.str(id)
		fw.str(b.Texts[i])
	}
	fw.str(b.Index.Kind())
	fw.u32(kinds[b.Index.Kind()].version)
	b.Index.writeBody(fw)
	return fw.finish()
}

func (b *Bundle) check() error {
	if b.Index == nil {
		return fmt.Errorf("index: a bundle without an index")
	}
	if _, ok := kinds[b.Index.Kind()]; !ok {
		return fmt.Errorf("index: a bundle cannot hold a %q index", b.Index.Kind())
	}
	if x, ok := b.Index.(*Remote); ok {
		if err := x.check(); err != nil {
			return err
		}
	}
	if len(b.IDs) != len(b.Texts) || len(b.IDs) != b.Index.Len() {
		return fmt.Errorf("index: a bundle of %d ids and %d texts for %d answers", len(b.IDs), len(b.Texts), b.Index.Len())
	}
	for k, v := range b.Encoder {
		if len(k) == 0 || len(k) > maxString || len(v) > maxString {
			return fmt.Errorf("index: bundle encoder key %q: want 1 to %d bytes, and a value of at most %d", k, maxString, maxString)
		}
	}
	for i, t := range b.Texts {
		if len(t) > maxText {
			return fmt.Errorf("index: answer %q: a text of %d bytes (at most %d)", b.IDs[i], len(t), maxText)
		}
	}
	return nil
}

// ReadBundle reads a bundle written by Bundle.WriteTo. A file of another
// kind or version, one holding an index kind or version this build does
// not read, or a damaged one, is refused with an error (wrapping
// ErrCorrupt for damage).
func ReadBundle(r io.Reader) (*Bundle, error) {
	fr, _, err := newFileReader(r, BundleKind, bundleVersion)
	if err != nil {
		return nil, err
	}
	b := &Bundle{Encoder: readStrings(fr, "encoder keys")}
	count := fr.u64()
	for i := uint64(0); i < count && fr.err == nil; i++ {
		id := fr.str()
		fr.max = maxText
		text := fr.str()
		fr.max = 0
		if fr.err == nil && id == "" {
			fr.fail(fmt.Errorf("answer %d has an empty id", i))
		}
		b.IDs, b.Texts = append(b.IDs, id), append(b.Texts, text)
	}
	kind := fr.str()
	version := fr.u32()
	if fr.err == nil {
		k, ok := kinds[kind]
		switch {
		case !ok:
			return nil, fmt.Errorf("reading an index bundle: it holds a %q index, which this build does not read", kind)
		case version == 0 || version > k.version:
			return nil, fmt.Errorf("reading an index bundle: %s index format version %d: this build reads versions 1 to %d", kind, version, k.version)
		}
		b.Index = k.read(fr)
		if fr.err == nil && b.Index.Len() != len(b.IDs) {
			fr.fail(fmt.Errorf("%d answers for an index of %d", len(b.IDs), b.Index.Len()))
		}
	}
	if err := fr.finish(); err != nil {
		return nil, fmt.Errorf("reading an index bundle: %w", err)
	}
	return b, nil
}
