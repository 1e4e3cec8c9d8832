package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"slices"
)

// The file format every index kind of this package writes:
//
//	magic    8 bytes  "AS2INDEX"
//	kind     8 bytes  the kind's name, NUL-padded ("flat", "binary", "hnsw",
//	                  "bm25", "matrices", "remote", "bundle")
//	version  uint32   the kind's format version
//	body              the kind's own (little-endian throughout)
//	crc      uint32   CRC-32C of everything before it
//
// A reader checks the magic, the kind, the version and the checksum, and
// bounds every length by the bytes actually present before allocating, so
// a corrupt or truncated file gives an error, never a panic or a huge
// allocation.
const magic = "AS2INDEX"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt is wrapped by the errors of readers given a damaged file.
var ErrCorrupt = errors.New("corrupt index file")

// encoder writes a file, summing what it writes.
type fileWriter struct {
	w   *bufio.Writer
	crc hash.Hash32
	n   int64
	err error
	buf [8]byte
}

func newFileWriter(w io.Writer, kind string, version uint32) *fileWriter {
	fw := &fileWriter{w: bufio.NewWriter(w), crc: crc32.New(castagnoli)}
	fw.bytes([]byte(magic))
	var k [8]byte
	copy(k[:], kind)
	fw.bytes(k[:])
	fw.u32(version)
	return fw
}

func (fw *fileWriter) bytes(b []byte) {
	if fw.err != nil {
		return
	}
	fw.crc.Write(b)
	n, err := fw.w.Write(b)
	fw.n += int64(n)
	fw.err = err
}

func (fw *fileWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(fw.buf[:4], v)
	fw.bytes(fw.buf[:4])
}

func (fw *fileWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(fw.buf[:8], v)
	fw.bytes(fw.buf[:8])
}

func (fw *fileWriter) str(s string) {
	fw.u32(uint32(len(s)))
	fw.bytes([]byte(s))
}

func (fw *fileWriter) f32s(v []float32) {
	writeValues(fw, v, 4, func(b []byte, x float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(x)) })
}

func (fw *fileWriter) u64s(v []uint64) {
	writeValues(fw, v, 8, binary.LittleEndian.PutUint64)
}

// writeValues writes v, size bytes a value, in chunks.
func writeValues[T any](fw *fileWriter, v []T, size int, put func([]byte, T)) {
	b := make([]byte, size*min(len(v), 1<<14))
	for len(v) > 0 {
		n := min(len(v), len(b)/size)
		for i, x := range v[:n] {
			put(b[size*i:], x)
		}
		fw.bytes(b[:size*n])
		v = v[n:]
	}
}

// finish writes the checksum and flushes.
func (fw *fileWriter) finish() (int64, error) {
	if fw.err == nil {
		binary.LittleEndian.PutUint32(fw.buf[:4], fw.crc.Sum32())
		n, err := fw.w.Write(fw.buf[:4])
		fw.n += int64(n)
		fw.err = err
	}
	if fw.err == nil {
		fw.err = fw.w.Flush()
	}
	return fw.n, fw.err
}

// fileReader reads a file, summing what it reads; the first error sticks.
type fileReader struct {
	r   *bufio.Reader
	crc hash.Hash32
	err error
	buf [8]byte
	// max, when set, bounds the next strings instead of maxString.
	max uint32
}

// maxString bounds ids and terms.
const maxString = 1 << 16

// readKind reads a file of one kind whose body needs no version: the
// header, the body, then the checksum.
func readKind[T any](r io.Reader, kind string, version uint32, body func(*fileReader) T) (T, error) {
	var zero T
	fr, _, err := newFileReader(r, kind, version)
	if err != nil {
		return zero, err
	}
	x := body(fr)
	if err := fr.finish(); err != nil {
		return zero, fmt.Errorf("reading a %s index: %w", kind, err)
	}
	return x, nil
}

// newFileReader checks the header of kind and returns the version.
func newFileReader(r io.Reader, kind string, maxVersion uint32) (*fileReader, uint32, error) {
	fr := &fileReader{r: bufio.NewReader(r), crc: crc32.New(castagnoli)}
	var head [16]byte
	fr.read(head[:])
	if fr.err != nil {
		return nil, 0, fmt.Errorf("%w: reading the header: %w", ErrCorrupt, fr.err)
	}
	if string(head[:8]) != magic {
		return nil, 0, fmt.Errorf("not an as2 index file (no %q magic)", magic)
	}
	got := string(trimNUL(head[8:]))
	if got != kind {
		return nil, 0, fmt.Errorf("the file holds a %q index, not a %q one", got, kind)
	}
	v := fr.u32()
	if fr.err != nil {
		return nil, 0, fmt.Errorf("%w: reading the header: %w", ErrCorrupt, fr.err)
	}
	if v == 0 || v > maxVersion {
		return nil, 0, fmt.Errorf("%s index format version %d: this build reads versions 1 to %d", kind, v, maxVersion)
	}
	return fr, v, nil
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

func (fr *fileReader) read(b []byte) {
	if fr.err != nil {
		return
	}
	if _, err := io.ReadFull(fr.r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		fr.err = err
		return
	}
	fr.crc.Write(b)
}

func (fr *fileReader) u32() uint32 {
	fr.read(fr.buf[:4])
	if fr.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint32(fr.buf[:4])
}

func (fr *fileReader) u64() uint64 {
	fr.read(fr.buf[:8])
	if fr.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint64(fr.buf[:8])
}

func (fr *fileReader) str() string {
	n := fr.u32()
	if fr.err != nil {
		return ""
	}
	limit := uint32(maxString)
	if fr.max > 0 {
		limit = fr.max
	}
	if n > limit {
		fr.err = fmt.Errorf("a string of %d bytes (at most %d)", n, limit)
		return ""
	}
	// Grown as the bytes arrive: a length is not trusted before them.
	var b []byte
	for uint32(len(b)) < n && fr.err == nil {
		chunk := make([]byte, min(n-uint32(len(b)), 1<<16))
		fr.read(chunk)
		b = append(b, chunk...)
	}
	return string(b)
}

// f32s reads n floats, growing the slice as the bytes arrive.
func (fr *fileReader) f32s(n uint64) []float32 {
	return readValues(fr, n, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
}

// u64s reads n uint64 words, growing the slice as the bytes arrive.
func (fr *fileReader) u64s(n uint64) []uint64 {
	return readValues(fr, n, 8, binary.LittleEndian.Uint64)
}

// readValues reads n values of size bytes, growing the slice as the bytes
// arrive: a count is not trusted before them.
func readValues[T any](fr *fileReader, n uint64, size int, decode func([]byte) T) []T {
	var out []T
	b := make([]byte, 1<<14)
	for uint64(len(out)) < n && fr.err == nil {
		m := min(n-uint64(len(out)), uint64(len(b)/size))
		fr.read(b[:uint64(size)*m])
		if fr.err != nil {
			break
		}
		for i := range int(m) {
			out = append(out, decode(b[size*i:]))
		}
	}
	return out
}

// writeStrings writes a map of strings: a uint32 count, then each key and
// value, keys ascending (so that a file's bytes depend on its content only).
func writeStrings(fw *fileWriter, m map[string]string) {
	keys := slices.Sorted(maps.Keys(m))
	fw.u32(uint32(len(keys)))
	for _, k := range keys {
		fw.str(k)
		fw.str(m[k])
	}
}

// readStrings reads what writeStrings wrote, refusing empty or unordered
// keys; what names the map in errors.
func readStrings(fr *fileReader, what string) map[string]string {
	m := map[string]string{}
	n := fr.u32()
	prev := ""
	for i := uint32(0); i < n && fr.err == nil; i++ {
		k, v := fr.str(), fr.str()
		if fr.err == nil && (k == "" || i > 0 && k <= prev) {
			fr.fail(fmt.Errorf("%s %q, %q not ascending", what, prev, k))
		}
		m[k], prev = v, k
	}
	return m
}

// finish checks the checksum.
func (fr *fileReader) finish() error {
	if fr.err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, fr.err)
	}
	want := fr.crc.Sum32()
	var b [4]byte
	if _, err := io.ReadFull(fr.r, b[:]); err != nil {
		return fmt.Errorf("%w: reading the checksum: %w", ErrCorrupt, err)
	}
	if got := binary.LittleEndian.Uint32(b[:]); got != want {
		return fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, want)
	}
	return nil
}

// fail records err as the reader's error, if it has none.
func (fr *fileReader) fail(err error) {
	if fr.err == nil {
		fr.err = err
	}
}
