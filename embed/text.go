package embed

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/as2/as2/dataset"
)

// header says whether a text file starts with a "COUNT DIM" line.
type header int

const (
	headerAuto header = iota // detect it (ReadText)
	headerNo                 // GloVe
	headerYes                // fastText .vec, word2vec text
)

// ReadText reads vectors in text form, one word a line: the word, then its
// values, separated by spaces or tabs (trailing white space, as fastText
// writes it, is fine). This is GloVe's format; fastText .vec and word2vec
// text files add a first line "COUNT DIM", which ReadText detects: a first
// line of exactly two unsigned integers is a header. (A GloVe file of 1-d
// vectors whose first word is a number would look the same; [Load] with
// format "glove" reads such a file.) Without a header the first line fixes
// the dimension. Blank lines are skipped.
//
// Errors name the input and line: "name:3: 99 values, want 100". Values
// must be finite float32 numbers; words must be unique and valid UTF-8.
func ReadText(r io.Reader, name string) (*Vectors, error) {
	return readText(r, name, headerAuto)
}

func readText(r io.Reader, name string, hdr header) (*Vectors, error) {
	var (
		v     *Vectors
		want  = -1      // word count from the header
		first []int32   // line of each word, to point at the first of a duplicate
		vals  []float32 // one line's values, reused
		lines int
	)
	err := dataset.ScanLines(r, name, func(n int, line string) error {
		lines = n
		if n == 1 && hdr != headerNo {
			count, dim, ok, err := parseHeader(line)
			if err != nil {
				return err
			}
			if ok {
				want, v = count, New(dim)
				return nil
			}
			if hdr == headerYes {
				return fmt.Errorf("want a header line \"COUNT DIM\", got %q", clip(line))
			}
		}
		word, rest := cutWord(line)
		if word == "" {
			if strings.TrimLeft(rest, " \t") == "" {
				return nil // blank line
			}
			return errors.New("empty word: the line starts with white space")
		}
		k := countFields(rest)
		if v == nil {
			if k == 0 {
				return fmt.Errorf("no values after the word %q", clip(word))
			}
			if k > MaxDim {
				return fmt.Errorf("%d values, more than %d", k, MaxDim)
			}
			v = New(k)
		}
		if k != v.Dim {
			return fmt.Errorf("%d values, want %d", k, v.Dim)
		}
		if i, dup := v.index[word]; dup {
			return fmt.Errorf("duplicate word %q (first on line %d)", clip(word), first[i])
		}
		vals = vals[:0]
		for i := 1; ; i++ {
			var f string
			f, rest = nextField(rest)
			if f == "" {
				break
			}
			x, err := parseValue(f, i)
			if err != nil {
				return err
			}
			vals = append(vals, x)
		}
		// Clone: word is a slice of the whole line, ~1 KB that a 10-byte
		// word must not keep alive.
		if err := v.add(strings.Clone(word), vals); err != nil {
			return err
		}
		first = append(first, int32(n))
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case lines == 0:
		return nil, dataset.Errorf(name, 0, "empty file")
	case v == nil || v.Len() == 0:
		return nil, dataset.Errorf(name, 0, "no vectors")
	case want >= 0 && v.Len() != want:
		return nil, dataset.Errorf(name, 0, "the header announces %d words, the file has %d", want, v.Len())
	}
	return v, nil
}

// parseHeader recognises "COUNT DIM". ok is false when line is not made of
// two unsigned integers; err is set when it is, but they are out of range.
func parseHeader(line string) (count, dim int, ok bool, err error) {
	a, rest := nextField(line)
	b, rest := nextField(rest)
	if c, _ := nextField(rest); c != "" || !digits(a) || !digits(b) {
		return 0, 0, false, nil
	}
	count, err1 := strconv.Atoi(a)
	dim, err2 := strconv.Atoi(b)
	if err1 != nil || count > maxCount {
		return 0, 0, false, fmt.Errorf("header: word count %s out of range", clip(a))
	}
	if err2 != nil || dim < 1 || dim > MaxDim {
		return 0, 0, false, fmt.Errorf("header: dimension %s out of range 1..%d", clip(b), MaxDim)
	}
	return count, dim, true, nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parseValue parses the i-th value (1-based) of a line.
func parseValue(f string, i int) (float32, error) {
	x, err := strconv.ParseFloat(f, 32)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("value %d (%q) is out of float32 range", i, clip(f))
		}
		return 0, fmt.Errorf("value %d (%q) is not a number", i, clip(f))
	}
	if !finite(float32(x)) {
		return 0, fmt.Errorf("value %d (%q) is not finite", i, clip(f))
	}
	return float32(x), nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// cutWord splits a line at its first space or tab. The word is only what
// precedes it, so a line starting with a space has an empty word.
func cutWord(s string) (word, rest string) {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// nextField returns the first run of non-blank bytes of s and what follows.
func nextField(s string) (field, rest string) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

func countFields(s string) int {
	n := 0
	for {
		var f string
		if f, s = nextField(s); f == "" {
			return n
		}
		n++
	}
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && s[i]&0xc0 == 0x80 { // do not cut a UTF-8 sequence
		i--
	}
	return s[:i] + "…"
}
