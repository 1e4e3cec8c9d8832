package embed

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/as2/as2/dataset"
)

// ReadWord2VecBinary reads the binary format of word2vec (-binary 1) and of
// gensim's save_word2vec_format(binary=True): a text line "COUNT DIM", then
// for each word its bytes up to a space and DIM little-endian float32 values,
// optionally followed by a newline. White space before a word is skipped.
// After the COUNT vectors only white space may follow. Errors name the
// input and a byte offset: "name: byte offset 1234: truncated in vector 7
// of 10".
//
// It reads ahead of the data it needs (it buffers r), which does not matter
// for this format: it ends with the file.
func ReadWord2VecBinary(r io.Reader, name string) (*Vectors, error) {
	br := &offsetReader{r: bufio.NewReaderSize(r, chunk)}
	fail := func(format string, args ...any) error {
		return dataset.Errorf(name, 0, "byte offset %d: "+format, append([]any{br.off}, args...)...)
	}

	line, err := br.readUntil('\n', 128)
	if len(line) == 0 && err == io.EOF {
		return nil, dataset.Errorf(name, 0, "empty file")
	}
	if err != nil && err != io.EOF {
		return nil, fail("reading the header: %v", describe(err))
	}
	line = bytes.TrimRight(line, "\r")
	count, dim, ok, herr := parseHeader(string(line))
	if herr != nil {
		return nil, dataset.Errorf(name, 0, "%v", herr)
	}
	if !ok {
		return nil, dataset.Errorf(name, 0, "want a header line \"COUNT DIM\", got %q", clip(string(line)))
	}
	if count == 0 {
		return nil, dataset.Errorf(name, 0, "no vectors")
	}

	v := New(dim)
	// The header is not trusted for the allocation: start small and grow
	// with the input (doubling costs little next to the reading).
	v.Words = make([]string, 0, min(count, 1<<12))
	v.Data = make([]float32, 0, min(count*dim, 1<<16))
	raw := make([]byte, 4*dim)
	vec := make([]float32, dim)
	for i := range count {
		if err := br.skipSpace(); err != nil {
			return nil, fail("truncated before vector %d of %d: %v", i+1, count, describe(err))
		}
		start := br.off
		word, err := br.readUntil(' ', MaxWordLen)
		if err != nil {
			if errors.Is(err, errTooLong) {
				return nil, dataset.Errorf(name, 0, "byte offset %d: vector %d: word longer than %d bytes (is this a binary word2vec file?)", start, i+1, MaxWordLen)
			}
			return nil, fail("truncated in word %d of %d: %v", i+1, count, describe(err))
		}
		w := string(word)
		if _, err := io.ReadFull(br, raw); err != nil {
			return nil, fail("truncated in vector %d of %d (%q): %v", i+1, count, clip(w), describe(err))
		}
		for k := range vec {
			vec[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:]))
		}
		if err := v.add(w, vec); err != nil {
			return nil, dataset.Errorf(name, 0, "byte offset %d: vector %d: %v", start, i+1, err)
		}
	}
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return v, nil
		}
		if err != nil {
			return nil, fail("%v", describe(err))
		}
		if !isSpace(c) && c != '\n' && c != '\r' {
			return nil, dataset.Errorf(name, 0, "byte offset %d: data after the %d vectors the header announces", br.off-1, count)
		}
	}
}

var errTooLong = errors.New("too long")

// offsetReader counts the bytes read, for error messages.
type offsetReader struct {
	r   *bufio.Reader
	off int64
}

func (o *offsetReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	o.off += int64(n)
	return n, err
}

func (o *offsetReader) ReadByte() (byte, error) {
	c, err := o.r.ReadByte()
	if err == nil {
		o.off++
	}
	return c, err
}

// skipSpace skips blanks and line ends; io.EOF if nothing else follows.
func (o *offsetReader) skipSpace() error {
	for {
		c, err := o.ReadByte()
		if err != nil {
			return err
		}
		if !isSpace(c) && c != '\n' && c != '\r' {
			return o.unread()
		}
	}
}

func (o *offsetReader) unread() error {
	o.off--
	return o.r.UnreadByte()
}

// readUntil returns the bytes before delim, consuming delim, reading at most
// max bytes before it. The result is valid until the next read. At the end
// of the input it returns what it read and io.EOF.
func (o *offsetReader) readUntil(delim byte, max int) ([]byte, error) {
	var out []byte
	for {
		b, err := o.r.ReadSlice(delim)
		o.off += int64(len(b))
		if err == nil {
			b = b[:len(b)-1]
		}
		if out == nil && err != bufio.ErrBufferFull {
			out = b // the common case: no copy
		} else {
			out = append(out, b...)
		}
		if len(out) > max {
			return nil, errTooLong
		}
		if err != bufio.ErrBufferFull {
			return out, err
		}
	}
}

// describe words a read error for a message about truncation.
func describe(err error) string {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "unexpected end of input"
	}
	return fmt.Sprint(err)
}
