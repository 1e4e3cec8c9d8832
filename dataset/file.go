package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// ParseError is an error at a place in an input file. Line is 1-based; 0
// means the error concerns the file as a whole.
type ParseError struct {
	File string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Errorf returns a *ParseError for file and line.
func Errorf(file string, line int, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// Open opens a file for reading, decompressing it transparently when it
// starts with the gzip magic bytes, whatever its name.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	magic, _ := br.Peek(2)
	if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return readCloser{br, f}, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		f.Close()
		return nil, &ParseError{File: path, Err: fmt.Errorf("reading gzip header: %w", err)}
	}
	return readCloser{zr, f}, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// maxLine bounds one input line; longer lines are an error, not an allocation
// the size of the file.
const maxLine = 64 << 20

// ScanLines calls fn for every line of r (without the line ending; a
// trailing "\r" is dropped too), with its 1-based number. Lines that are not
// valid UTF-8, read errors (a truncated gzip stream, say) and errors returned
// by fn are reported as *ParseError naming file and line.
func ScanLines(r io.Reader, file string, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxLine)
	n := 0
	for sc.Scan() {
		n++
		b := sc.Bytes()
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
		}
		if !utf8.Valid(b) {
			return Errorf(file, n, "invalid UTF-8")
		}
		if err := fn(n, string(b)); err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				return err
			}
			return &ParseError{File: file, Line: n, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("file is truncated: %w", err)
		}
		return &ParseError{File: file, Line: n + 1, Err: err}
	}
	return nil
}

// ReadFile opens path (gzip or plain) and parses it with read, which gets
// the path as the name to use in errors.
func ReadFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	rc, err := Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer rc.Close()
	return read(rc, path)
}

// ReadLines opens path (gzip or plain) and calls ScanLines on it.
func ReadLines(path string, fn func(line int, text string) error) error {
	rc, err := Open(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	return ScanLines(rc, path, fn)
}
