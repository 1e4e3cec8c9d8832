package embed

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"

	"github.com/as2/as2/dataset"
)

// The compact format; doc.go describes it byte by byte.
const (
	magic         = "\x89AS2EMB\n"
	formatVersion = 1
	headerLen     = 32
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes v in as2's compact binary format (see the package
// documentation) and returns the number of bytes written. It writes in
// chunks of 256 KiB, so w needs no buffering.
func (v *Vectors) WriteTo(w io.Writer) (int64, error) {
	if err := v.checkShape(); err != nil {
		return 0, fmt.Errorf("embed: %w", err)
	}
	cw := &crcWriter{w: w}
	wordsLen := 0
	for _, word := range v.Words {
		wordsLen += uvarintLen(uint64(len(word))) + len(word)
	}
	buf := make([]byte, 0, chunk)
	buf = append(buf, magic...)
	buf = binary.LittleEndian.AppendUint32(buf, formatVersion)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(v.Dim))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(v.Words)))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(wordsLen))
	for _, word := range v.Words {
		if len(buf)+binary.MaxVarintLen64+len(word) > chunk {
			if err := cw.write(&buf); err != nil {
				return cw.n, err
			}
		}
		buf = binary.AppendUvarint(buf, uint64(len(word)))
		buf = append(buf, word...)
	}
	for off := 0; off < len(v.Data); {
		if len(buf) > chunk-64 {
			if err := cw.write(&buf); err != nil {
				return cw.n, err
			}
		}
		n := min(len(v.Data)-off, (chunk-len(buf))/4)
		buf = appendFloats(buf, v.Data[off:off+n])
		off += n
	}
	if err := cw.write(&buf); err != nil {
		return cw.n, err
	}
	buf = binary.LittleEndian.AppendUint32(buf, cw.crc)
	err := cw.write(&buf)
	return cw.n, err
}

type crcWriter struct {
	w   io.Writer
	n   int64
	crc uint32
}

// write writes *buf, folds it into the checksum and empties it.
func (c *crcWriter) write(buf *[]byte) error {
	c.crc = crc32.Update(c.crc, castagnoli, *buf)
	n, err := c.w.Write(*buf)
	c.n += int64(n)
	*buf = (*buf)[:0]
	return err
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// Read reads vectors in as2's compact format, reading exactly the bytes
// WriteTo wrote, so the table can be one part of a larger stream. It checks
// the magic, the version, the sizes in the header (against the bytes left
// when r can tell: *bytes.Reader, *strings.Reader, *os.File, ...), the
// checksum, and every word and value, as Add does. Errors start with
// "embed: byte offset N:".
func Read(r io.Reader) (*Vectors, error) {
	left, known := remaining(r)
	return readCompact(r, "embed", left, known)
}

// remaining returns the bytes left in r, when r can tell.
func remaining(r io.Reader) (int64, bool) {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len()), true
	case *os.File:
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0, false
		}
		off, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		return max(fi.Size()-off, 0), true
	}
	return 0, false
}

// readCompact reads the compact format from r. hint bounds what it
// allocates ahead of the input; when exact, hint is the number of bytes
// left in r and a header that asks for more is an error at once.
func readCompact(r io.Reader, name string, hint int64, exact bool) (*Vectors, error) {
	cr := &crcReader{r: r}
	fail := func(off int64, format string, args ...any) error {
		return dataset.Errorf(name, 0, "byte offset %d: "+format, append([]any{off}, args...)...)
	}
	var h [headerLen]byte
	n, err := io.ReadFull(cr, h[:])
	switch {
	case n == 0 && err == io.EOF:
		return nil, dataset.Errorf(name, 0, "empty input")
	case !bytes.HasPrefix(h[:n], []byte(magic[:min(n, len(magic))])):
		return nil, fail(0, "not an as2 embeddings file (bad magic %q)", h[:min(n, len(magic))])
	case err != nil:
		return nil, fail(int64(n), "truncated header: %v", describe(err))
	}
	version := binary.LittleEndian.Uint32(h[8:])
	dim := binary.LittleEndian.Uint32(h[12:])
	count := binary.LittleEndian.Uint64(h[16:])
	wordsLen := binary.LittleEndian.Uint64(h[24:])
	switch {
	case version != formatVersion:
		return nil, fail(8, "unsupported format version %d (this build reads version %d)", version, formatVersion)
	case dim < 1 || dim > MaxDim:
		return nil, fail(12, "dimension %d out of range 1..%d", dim, MaxDim)
	case count > maxCount || count*uint64(dim) > maxValues:
		return nil, fail(16, "word count %d out of range", count)
	case wordsLen < 2*count || wordsLen > count*(MaxWordLen+3):
		// Every word takes at least 2 bytes (length, 1 byte) and at most
		// a 3-byte length and MaxWordLen bytes.
		return nil, fail(24, "word section of %d bytes impossible for %d words", wordsLen, count)
	}
	dataLen := count * uint64(dim) * 4
	if need, left := wordsLen+dataLen+4, hint-headerLen; exact && need > uint64(left) {
		return nil, fail(headerLen, "truncated: the header announces %d more bytes, the input has %d", need, left)
	}
	hint = max(hint, growStep)

	words, err := readBytes(cr, int(wordsLen), hint)
	if err != nil {
		return nil, fail(cr.n, "truncated in the words: %v", describe(err))
	}

	// The values, decoded chunk by chunk, into a slice that grows with the
	// input unless its size is vouched for.
	total := int(count * uint64(dim))
	data := make([]float32, 0, min(total, int(hint/4)))
	buf := make([]byte, chunk)
	nonFinite := -1
	for len(data) < total {
		b := buf[:min(len(buf), 4*(total-len(data)))]
		if _, err := io.ReadFull(cr, b); err != nil {
			return nil, fail(cr.n, "truncated in the vectors: %v", describe(err))
		}
		n := len(data)
		data = slices.Grow(data, len(b)/4)[:n+len(b)/4]
		dst := data[n:]
		for k := range dst {
			bits := binary.LittleEndian.Uint32(b[4*k:])
			dst[k] = math.Float32frombits(bits)
			if bits&0x7f800000 == 0x7f800000 && nonFinite < 0 {
				nonFinite = n + k
			}
		}
	}
	sum := cr.crc
	var tail [4]byte
	if _, err := io.ReadFull(cr, tail[:]); err != nil {
		return nil, fail(cr.n, "truncated checksum: %v", describe(err))
	}
	if stored := binary.LittleEndian.Uint32(tail[:]); stored != sum {
		return nil, fail(cr.n-4, "checksum mismatch: stored %08x, computed %08x (the data is corrupt)", stored, sum)
	}

	// The checksum is right; what is left are files a buggy writer made.
	v := &Vectors{Dim: int(dim), Data: data, index: make(map[string]int, count)}
	v.Words = make([]string, 0, count)
	all := string(words) // one allocation for every word
	off := 0
	for i := range int(count) {
		l, k := binary.Uvarint(words[off:])
		if k <= 0 || l > uint64(len(words)-off-k) {
			return nil, fail(int64(headerLen+off), "word %d: bad length", i+1)
		}
		w := all[off+k : off+k+int(l)]
		if err := checkWord(w); err != nil {
			return nil, fail(int64(headerLen+off), "word %d: %v", i+1, err)
		}
		// One map operation, not a lookup and an insert: at 341k words
		// the map is most of the load time.
		if v.index[w] = i; len(v.index) != i+1 {
			return nil, fail(int64(headerLen+off), "word %d: duplicate word %q", i+1, clip(w))
		}
		v.Words = append(v.Words, w)
		off += k + int(l)
	}
	if off != len(words) {
		return nil, fail(int64(headerLen+off), "%d bytes after the last word", len(words)-off)
	}
	if nonFinite >= 0 {
		i := nonFinite / int(dim)
		return nil, fail(int64(headerLen)+int64(wordsLen)+4*int64(nonFinite),
			"value %d of %q is %v: values must be finite", nonFinite%int(dim)+1, clip(v.Words[i]), data[nonFinite])
	}
	return v, nil
}

// readBytes reads n bytes, allocating at most hint bytes ahead of what has
// arrived, so that a lying header costs no more memory than the input.
func readBytes(r io.Reader, n int, hint int64) ([]byte, error) {
	if int64(n) <= hint {
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	var buf bytes.Buffer
	buf.Grow(int(hint))
	m, err := io.CopyN(&buf, r, int64(n))
	if m < int64(n) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf.Bytes(), nil
}

// crcReader checksums and counts what it reads.
type crcReader struct {
	r   io.Reader
	n   int64
	crc uint32
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	c.n += int64(n)
	return n, err
}
