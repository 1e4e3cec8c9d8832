package has

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"unicode/utf8"

	"github.com/as2/as2/nn"
)

// A Memory is an answer pool encoded once by a hash-mode model: every
// answer's binary matrix 𝓑_a = sgn(V_a) [L_a, D], bit-packed, one row of
// ⌈D/64⌉ uint64 words per answer word (bit j%64 of word j/64 is +1 when
// set, −1 when clear; the padding bits past D are clear). This is the
// paper's stored binary representation (section "Hashing Layer"; Table 6):
// Model.ScoreMemory ranks it against a question without re-encoding the
// answers.
type Memory struct {
	Dim   int      // D, bits per row
	Model [32]byte // Fingerprint of the model that encoded the answers
	IDs   []string // the answers' ids
	Texts []string // the answers' texts
	// Offsets[i]..Offsets[i+1] are answer i's rows; len(Offsets) = answers+1.
	Offsets []int
	Bits    []uint64 // rows × Words()
}

// Words is the number of uint64 words of a row.
func (m *Memory) Words() int { return wordsPerRow(m.Dim) }

// Len is the number of answers.
func (m *Memory) Len() int { return len(m.IDs) }

// Rows returns answer i's packed rows, [L_i × Words()].
func (m *Memory) Rows(i int) []uint64 {
	w := m.Words()
	return m.Bits[m.Offsets[i]*w : m.Offsets[i+1]*w]
}

// CodeBytes is the memory the answers' binary matrices take (the paper's
// "memory cost for storing representations of answers"), without the
// texts and ids.
func (m *Memory) CodeBytes() int64 { return int64(len(m.Bits)) * 8 }

func wordsPerRow(d int) int { return (d + 63) / 64 }

// packRows packs the signs of x [rows, d] into rows of ⌈d/64⌉ words: bit
// set for x ≥ 0 (+1).
func packRows[T nn.Float](x []T, rows, d int) []uint64 {
	w := wordsPerRow(d)
	out := make([]uint64, rows*w)
	for r := range rows {
		for j, v := range x[r*d : (r+1)*d] {
			if v >= 0 {
				out[r*w+j/64] |= 1 << (j % 64)
			}
		}
	}
	return out
}

// unpackRows writes the ±1 values of packed rows into x [rows, d].
func unpackRows[T nn.Float](x []T, packed []uint64, rows, d int) {
	w := wordsPerRow(d)
	for r := range rows {
		for j := range d {
			if packed[r*w+j/64]>>(j%64)&1 == 1 {
				x[r*d+j] = 1
			} else {
				x[r*d+j] = -1
			}
		}
	}
}

// Bytes per stored answer of `words` word states of size d, as the
// paper's Table 6 counts them (float32 values):
//
//   - PoolingBytes: a pooled vector [D] (the dual encoder stores one vector);
//   - FloatAttentionBytes: the float matrix V_a [L, D] that attention over
//     stored answers needs;
//   - HashBytes: HAS's binary matrix, ⌈D/64⌉ 64-bit words per word.
func PoolingBytes(d int) int64 { return 4 * int64(d) }

// FloatAttentionBytes: see PoolingBytes.
func FloatAttentionBytes(words, d int) int64 { return 4 * int64(words) * int64(d) }

// HashBytes: see PoolingBytes.
func HashBytes(words, d int) int64 { return 8 * int64(words) * int64(wordsPerRow(d)) }

// The memory file format, version 1, little-endian:
//
//	magic    [8]byte "AS2HASM\n"
//	version  uint32  1
//	dim      uint32  D
//	answers  uint64
//	rows     uint64  total answer words
//	model    [32]byte fingerprint
//	answers × { rows uint32; id: len uint32, bytes; text: len uint32, bytes }
//	bits     rows × ⌈D/64⌉ uint64
//	checksum [32]byte SHA-256 of everything before it
//
// Nothing may follow the checksum.
const (
	memoryMagic   = "AS2HASM\n"
	MemoryVersion = 1
	maxDim        = 1 << 16
	maxAnswers    = 1 << 32
	maxRowsPer    = 1 << 20
	maxString     = 1 << 24
)

// ErrCorrupt is wrapped by Read's errors for a file that is not a valid
// memory (truncated, altered, or another kind of file).
var ErrCorrupt = errors.New("corrupt HAS memory")

// validate checks m's invariants before it is written or after it is read.
func (m *Memory) validate() error {
	n := len(m.IDs)
	switch {
	case m.Dim < 1 || m.Dim > maxDim:
		return fmt.Errorf("dimension %d: want 1 to %d", m.Dim, maxDim)
	case len(m.Texts) != n || len(m.Offsets) != n+1:
		return fmt.Errorf("%d ids, %d texts and %d offsets: want n, n and n+1", n, len(m.Texts), len(m.Offsets))
	case m.Offsets[0] != 0:
		return fmt.Errorf("first offset %d: want 0", m.Offsets[0])
	}
	for i := range n {
		if l := m.Offsets[i+1] - m.Offsets[i]; l < 1 || l > maxRowsPer {
			return fmt.Errorf("answer %d has %d rows: want 1 to %d", i, l, maxRowsPer)
		}
		for _, s := range []string{m.IDs[i], m.Texts[i]} {
			if len(s) > maxString || !utf8.ValidString(s) {
				return fmt.Errorf("answer %d: an id or text of %d bytes that is not UTF-8 or longer than %d", i, len(s), maxString)
			}
		}
	}
	w := m.Words()
	if len(m.Bits) != m.Offsets[n]*w {
		return fmt.Errorf("%d words of bits for %d rows of %d words", len(m.Bits), m.Offsets[n], w)
	}
	if pad := m.Dim % 64; pad != 0 {
		mask := ^uint64(0) << pad
		for r := range m.Offsets[n] {
			if m.Bits[r*w+w-1]&mask != 0 {
				return fmt.Errorf("row %d has bits set past dimension %d", r, m.Dim)
			}
		}
	}
	return nil
}

// WriteTo writes the memory in the file format above. Callers write files
// atomically (e.g. renameio.WriteFile of a buffer, as model.Save does).
func (m *Memory) WriteTo(w io.Writer) (int64, error) {
	if err := m.validate(); err != nil {
		return 0, fmt.Errorf("HAS memory: %w", err)
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	hs := sha256.New()
	out := io.MultiWriter(bw, hs)
	le := binary.LittleEndian
	var hdr []byte
	hdr = append(hdr, memoryMagic...)
	hdr = le.AppendUint32(hdr, MemoryVersion)
	hdr = le.AppendUint32(hdr, uint32(m.Dim))
	hdr = le.AppendUint64(hdr, uint64(m.Len()))
	hdr = le.AppendUint64(hdr, uint64(m.Offsets[m.Len()]))
	hdr = append(hdr, m.Model[:]...)
	if _, err := out.Write(hdr); err != nil {
		return cw.n, err
	}
	var buf []byte
	for i := range m.IDs {
		buf = le.AppendUint32(buf[:0], uint32(m.Offsets[i+1]-m.Offsets[i]))
		for _, s := range []string{m.IDs[i], m.Texts[i]} {
			buf = le.AppendUint32(buf, uint32(len(s)))
			buf = append(buf, s...)
		}
		if _, err := out.Write(buf); err != nil {
			return cw.n, err
		}
	}
	const chunk = 4096
	for lo := 0; lo < len(m.Bits); lo += chunk {
		buf = buf[:0]
		for _, v := range m.Bits[lo:min(lo+chunk, len(m.Bits))] {
			buf = le.AppendUint64(buf, v)
		}
		if _, err := out.Write(buf); err != nil {
			return cw.n, err
		}
	}
	if _, err := bw.Write(hs.Sum(nil)); err != nil {
		return cw.n, err
	}
	err := bw.Flush()
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// hashReader reads through a running SHA-256.
type hashReader struct {
	r  *bufio.Reader
	hs hash.Hash
}

func (h *hashReader) full(p []byte) error {
	if _, err := io.ReadFull(h.r, p); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		return err
	}
	h.hs.Write(p)
	return nil
}

func (h *hashReader) u32() (uint32, error) {
	var b [4]byte
	err := h.full(b[:])
	return binary.LittleEndian.Uint32(b[:]), err
}

func (h *hashReader) u64() (uint64, error) {
	var b [8]byte
	err := h.full(b[:])
	return binary.LittleEndian.Uint64(b[:]), err
}

func (h *hashReader) str(what string) (string, error) {
	n, err := h.u32()
	if err != nil {
		return "", err
	}
	if n > maxString {
		return "", fmt.Errorf("%w: %s of %d bytes", ErrCorrupt, what, n)
	}
	b := make([]byte, n)
	if err := h.full(b); err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%w: %s is not UTF-8", ErrCorrupt, what)
	}
	return string(b), nil
}

// ReadMemory reads a memory written by WriteTo, checking its magic,
// version, sizes and checksum; a file that fails a check gives an error
// wrapping ErrCorrupt. Memory grows with the data actually read, so a
// header that claims more than the file holds costs nothing.
func ReadMemory(r io.Reader) (*Memory, error) {
	h := &hashReader{r: bufio.NewReaderSize(r, 1<<16), hs: sha256.New()}
	magic := make([]byte, len(memoryMagic))
	if err := h.full(magic); err != nil {
		return nil, fmt.Errorf("not a HAS memory: %w", err)
	}
	if !bytes.Equal(magic, []byte(memoryMagic)) {
		return nil, fmt.Errorf("%w: not a HAS memory (bad magic %q)", ErrCorrupt, magic)
	}
	version, err := h.u32()
	if err != nil {
		return nil, err
	}
	if version != MemoryVersion {
		return nil, fmt.Errorf("%w: HAS memory version %d; this as2 reads version %d", ErrCorrupt, version, MemoryVersion)
	}
	dim, err := h.u32()
	if err != nil {
		return nil, err
	}
	answers, err := h.u64()
	if err != nil {
		return nil, err
	}
	rows, err := h.u64()
	if err != nil {
		return nil, err
	}
	switch {
	case dim < 1 || dim > maxDim:
		return nil, fmt.Errorf("%w: dimension %d", ErrCorrupt, dim)
	case answers > maxAnswers:
		return nil, fmt.Errorf("%w: %d answers", ErrCorrupt, answers)
	case rows < answers || rows > answers*maxRowsPer:
		return nil, fmt.Errorf("%w: %d rows for %d answers", ErrCorrupt, rows, answers)
	}
	m := &Memory{Dim: int(dim), Offsets: []int{0}}
	if err := h.full(m.Model[:]); err != nil {
		return nil, err
	}
	for i := range answers {
		l, err := h.u32()
		if err != nil {
			return nil, err
		}
		if l < 1 || l > maxRowsPer {
			return nil, fmt.Errorf("%w: answer %d has %d rows", ErrCorrupt, i, l)
		}
		id, err := h.str("id")
		if err != nil {
			return nil, err
		}
		text, err := h.str("text")
		if err != nil {
			return nil, err
		}
		m.IDs, m.Texts = append(m.IDs, id), append(m.Texts, text)
		m.Offsets = append(m.Offsets, m.Offsets[len(m.Offsets)-1]+int(l))
	}
	if uint64(m.Offsets[len(m.Offsets)-1]) != rows {
		return nil, fmt.Errorf("%w: the answers have %d rows, the header says %d", ErrCorrupt, m.Offsets[len(m.Offsets)-1], rows)
	}
	total := rows * uint64(m.Words())
	buf := make([]byte, 8*4096)
	for read := uint64(0); read < total; {
		n := min(total-read, 4096)
		if err := h.full(buf[:8*n]); err != nil {
			return nil, err
		}
		for k := range n {
			m.Bits = append(m.Bits, binary.LittleEndian.Uint64(buf[8*k:]))
		}
		read += n
	}
	want := h.hs.Sum(nil)
	var got [32]byte
	if _, err := io.ReadFull(h.r, got[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated (no checksum)", ErrCorrupt)
	}
	if !bytes.Equal(got[:], want) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	if _, err := h.r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the checksum", ErrCorrupt)
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return m, nil
}
