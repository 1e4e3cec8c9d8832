package embed

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
)

type readerFunc func(r io.Reader) (*Vectors, error)

var (
	textReader = func(r io.Reader) (*Vectors, error) { return ReadText(r, "f.txt") }
	w2vReader  = func(r io.Reader) (*Vectors, error) { return ReadWord2VecBinary(r, "f.bin") }
	winkReader = func(r io.Reader) (*Vectors, error) { return ReadWinkJSON(r, "f.json") }
	readerAS2  = func(r io.Reader) (*Vectors, error) { return Read(r) }
)

func TestReadersAcceptValidInput(t *testing.T) {
	want := fixture(t)
	w2vNoNL := word2vecBinary(want, false)
	cases := []struct {
		name string
		read readerFunc
		in   []byte
	}{
		{"glove", textReader, gloveText(want, false)},
		{"fasttext header and trailing spaces", textReader, gloveText(want, true)},
		{"crlf tabs and blank lines", textReader, []byte(strings.ReplaceAll(strings.ReplaceAll(string(gloveText(want, false)), " ", "\t"), "\n", "\r\n\r\n"))},
		{"no final newline", textReader, bytes.TrimSuffix(gloveText(want, false), []byte("\n"))},
		{"word2vec with newlines", w2vReader, word2vecBinary(want, true)},
		{"word2vec without newlines", w2vReader, w2vNoNL},
		{"word2vec trailing newline", w2vReader, append(bytes.Clone(w2vNoNL), "\r\n"...)},
		{"wink", winkReader, winkJSON(want)},
		{"wink with white space", winkReader, bytes.ReplaceAll(bytes.ReplaceAll(winkJSON(want), []byte("],"), []byte("] ,\n\t")), []byte(":["), []byte(" : [ "))},
		{"as2", readerAS2, compact(t, want)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.read(bytes.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			sameTable(t, got, want)
		})
	}
}

func TestReadersRejectBadInput(t *testing.T) {
	good := fixture(t)
	w2v := word2vecBinary(good, true)
	nan := []byte("1 2\nab ")
	nan = binary.LittleEndian.AppendUint32(nan, math.Float32bits(1))
	nan = binary.LittleEndian.AppendUint32(nan, 0x7fc00000)
	as2 := compact(t, good)
	version := bytes.Clone(as2)
	version[8] = 2
	flipped := bytes.Clone(as2)
	flipped[len(flipped)-10] ^= 1
	hugeDim := resum(as2)
	binary.LittleEndian.PutUint32(hugeDim[12:], 1<<20)
	past := rawCompact(1, []string{"a", "b"}, []float32{1, 2})
	past[34] = 9 // the length of "b"
	past = resum(past)
	hugeCount := bytes.Clone(as2)
	binary.LittleEndian.PutUint64(hugeCount[16:], 1<<30)
	binary.LittleEndian.PutUint64(hugeCount[24:], 1<<31)

	cases := []struct {
		name string
		read readerFunc
		in   string
		want string // the whole message
	}{
		// GloVe and fastText text.
		{"short line", textReader, hundred("the", 100) + hundred("of", 100) + hundred("to", 99), "f.txt:3: 99 values, want 100"},
		{"long line", textReader, "a 1 2\nb 1 2 3\n", "f.txt:2: 3 values, want 2"},
		{"not a number", textReader, "a 1 2\nb 1 x\n", `f.txt:2: value 2 ("x") is not a number`},
		{"NaN", textReader, "a NaN 2\n", `f.txt:1: value 1 ("NaN") is not finite`},
		{"Inf", textReader, "a 1 -Inf\n", `f.txt:1: value 2 ("-Inf") is not finite`},
		{"float32 overflow", textReader, "a 1 1e39\n", `f.txt:1: value 2 ("1e39") is out of float32 range`},
		{"duplicate", textReader, "a 1 2\nb 3 4\na 5 6\n", `f.txt:3: duplicate word "a" (first on line 1)`},
		{"empty file", textReader, "", "f.txt: empty file"},
		{"blank lines only", textReader, "\n \n", "f.txt: no vectors"},
		{"header only", textReader, "0 100\n", "f.txt: no vectors"},
		{"header dimension mismatch", textReader, "2 3\na 1 2 3\nb 1 2\n", "f.txt:3: 2 values, want 3"},
		{"header count mismatch", textReader, "3 2\na 1 2\nb 1 2\n", "f.txt: the header announces 3 words, the file has 2"},
		{"header dimension 0", textReader, "3 0\n", "f.txt:1: header: dimension 0 out of range 1..65536"},
		{"header huge dimension", textReader, "3 99999999999999999999\n", "f.txt:1: header: dimension 99999999999999999999 out of range 1..65536"},
		{"invalid UTF-8", textReader, "a 1 2\n\xffb 1 2\n", "f.txt:2: invalid UTF-8"},
		{"leading space", textReader, "a 1 2\n b 1 2\n", "f.txt:2: empty word: the line starts with white space"},
		{"no values", textReader, "a\n", `f.txt:1: no values after the word "a"`},

		// word2vec binary.
		{"w2v empty", w2vReader, "", "f.bin: empty file"},
		{"w2v no header", w2vReader, "the 0.1 0.2\n", `f.bin: want a header line "COUNT DIM", got "the 0.1 0.2"`},
		{"w2v truncated vector", w2vReader, string(w2v[:len(w2v)-7]), `f.bin: byte offset 107: truncated in vector 5 of 5 ("n't"): unexpected end of input`},
		{"w2v truncated word", w2vReader, "2 1\nab \x00\x00\x00\x00\ncd", "f.bin: byte offset 14: truncated in word 2 of 2: unexpected end of input"},
		{"w2v missing vector", w2vReader, "2 1\nab \x00\x00\x00\x00\n", "f.bin: byte offset 12: truncated before vector 2 of 2: unexpected end of input"},
		{"w2v dimension mismatch", w2vReader, "1 3\nab \x00\x00\x00\x00\x00\x00\x00\x00\n", `f.bin: byte offset 16: truncated in vector 1 of 1 ("ab"): unexpected end of input`},
		{"w2v NaN", w2vReader, string(nan), `f.bin: byte offset 4: vector 1: value 2 of "ab" is NaN: values must be finite`},
		{"w2v duplicate", w2vReader, "2 1\nab \x00\x00\x00\x00\nab \x00\x00\x00\x00\n", `f.bin: byte offset 12: vector 2: duplicate word "ab"`},
		{"w2v invalid UTF-8", w2vReader, "1 1\n\xff\xfe \x00\x00\x00\x00", `f.bin: byte offset 4: vector 1: word "\xff\xfe" is not valid UTF-8`},
		{"w2v trailing data", w2vReader, "1 1\nab \x00\x00\x00\x00\ncd", "f.bin: byte offset 12: data after the 1 vectors the header announces"},
		{"w2v no vectors", w2vReader, "0 5\n", "f.bin: no vectors"},
		{"w2v word too long", w2vReader, "1 1\n" + strings.Repeat("x", MaxWordLen+10), "f.bin: byte offset 4: vector 1: word longer than 65536 bytes (is this a binary word2vec file?)"},

		// wink JSON.
		{"wink empty", winkReader, "", "f.json: empty file"},
		{"wink array", winkReader, "[1]", "f.json: byte offset 1: want a JSON object, got ["},
		{"wink truncated", winkReader, `{"dimensions":2,"vectors":{"a":[1,2`, "f.json: byte offset 31: truncated JSON"},
		{"wink syntax", winkReader, `{"dimensions":2,"vectors":{"a":[1,,2]}}`, "f.json: byte offset 31: invalid character ',' looking for beginning of value"},
		{"wink short vector", winkReader, `{"dimensions":2,"vectors":{"a":[1]}}`, `f.json: byte offset 30: vector of "a": 1 values, want at least 2`},
		{"wink string value", winkReader, `{"dimensions":2,"vectors":{"a":[1,"2"]}}`, `f.json: byte offset 30: vector of "a": value 2 is not a number`},
		{"wink nested value", winkReader, `{"dimensions":2,"vectors":{"a":[[1,2],3]}}`, `f.json: byte offset 30: vector of "a": value 1 is not a number`},
		{"wink overflow", winkReader, `{"dimensions":1,"vectors":{"a":[1e39]}}`, `f.json: byte offset 30: vector of "a": value 1 (1e39) is not a float32 number`},
		{"wink duplicate", winkReader, `{"dimensions":1,"vectors":{"a":[1],"a":[2]}}`, `f.json: byte offset 38: vector of "a": duplicate word "a"`},
		{"wink size", winkReader, `{"size":3,"dimensions":1,"vectors":{"a":[1]}}`, `f.json: "size" is 3 but there are 1 vectors`},
		{"wink no dimensions", winkReader, `{"vectors":{"a":[1]}}`, `f.json: byte offset 10: "vectors" before "dimensions"`},
		{"wink dimensions after", winkReader, `{"l2NormIndex":1,"vectors":{"a":[1,1]},"dimensions":2}`, `f.json: byte offset 53: "dimensions" is 2 but the vectors before it were read as 1-d`},
		{"wink no vectors", winkReader, `{"dimensions":1}`, `f.json: no "vectors" object`},
		{"wink empty vectors", winkReader, `{"dimensions":1,"vectors":{}}`, `f.json: no vectors`},
		{"wink bad dimensions", winkReader, `{"dimensions":1.5}`, `f.json: byte offset 17: "dimensions" is 1.5, want a count`},
		{"wink trailing", winkReader, `{"dimensions":1,"vectors":{"a":[1]}} {}`, `f.json: byte offset 38: data after the JSON object`},

		// as2's compact format.
		{"as2 empty", readerAS2, "", "embed: empty input"},
		{"as2 bad magic", readerAS2, "the 0.1 0.2\n", `embed: byte offset 0: not an as2 embeddings file (bad magic "the 0.1 ")`},
		{"as2 short magic", readerAS2, "\x89AS", `embed: byte offset 3: truncated header: unexpected end of input`},
		{"as2 version", readerAS2, string(version), "embed: byte offset 8: unsupported format version 2 (this build reads version 1)"},
		{"as2 checksum", readerAS2, string(flipped), checksumMsg(flipped)},
		{"as2 truncated", readerAS2, string(as2[:len(as2)-5]), "embed: byte offset 32: truncated: the header announces 109 more bytes, the input has 104"},
		{"as2 huge dimension", readerAS2, string(hugeDim), "embed: byte offset 12: dimension 1048576 out of range 1..65536"},
		{"as2 huge count", readerAS2, string(hugeCount), "embed: byte offset 32: truncated: the header announces 19327352836 more bytes, the input has 109"},
		{"as2 duplicate", readerAS2, string(rawCompact(1, []string{"a", "a"}, []float32{1, 2})), `embed: byte offset 34: word 2: duplicate word "a"`},
		{"as2 short word section", readerAS2, string(rawCompact(1, []string{"a", ""}, []float32{1, 2})), `embed: byte offset 24: word section of 3 bytes impossible for 2 words`},
		{"as2 empty word", readerAS2, string(rawCompact(1, []string{"abc", ""}, []float32{1, 2})), `embed: byte offset 36: word 2: empty word`},
		{"as2 junk after the words", readerAS2, string(rawCompact(1, []string{"a", "b"}, []float32{1, 2}, 'z')), "embed: byte offset 36: 1 bytes after the last word"},
		{"as2 bad word length", readerAS2, string(rawCompact(1, []string{"a", "b"}, []float32{1, 2}, 0x80, 0x80)), "embed: byte offset 36: 2 bytes after the last word"},
		{"as2 word past the section", readerAS2, string(past), "embed: byte offset 34: word 2: bad length"},
		{"as2 invalid UTF-8", readerAS2, string(rawCompact(1, []string{"a", "\xff"}, []float32{1, 2})), `embed: byte offset 34: word 2: word "\xff" is not valid UTF-8`},
		{"as2 NaN", readerAS2, string(rawCompact(2, []string{"a", "b"}, []float32{1, 2, 3, float32(math.NaN())})), `embed: byte offset 48: value 2 of "b" is NaN: values must be finite`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := c.read(strings.NewReader(c.in))
			if err == nil {
				t.Fatalf("read %d words, want error %q", v.Len(), c.want)
			}
			if err.Error() != c.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, c.want)
			}
			var pe *dataset.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *dataset.ParseError", err)
			}
		})
	}
}

// crcHex is the checksum stored at the end of b, and what a reader computes
// over the rest.
func checksumMsg(b []byte) string {
	stored, computed := crcHex(b)
	return fmt.Sprintf("embed: byte offset %d: checksum mismatch: stored %s, computed %s (the data is corrupt)", len(b)-4, stored, computed)
}

func crcHex(b []byte) (stored, computed string) {
	return fmt.Sprintf("%08x", binary.LittleEndian.Uint32(b[len(b)-4:])),
		fmt.Sprintf("%08x", crc32.Checksum(b[:len(b)-4], castagnoli))
}

// Every proper prefix of a compact file is an error, whether or not the
// reader can tell how much input is left, and never a panic.
func TestReadTruncatedCompact(t *testing.T) {
	b := compact(t, fixture(t))
	for n := range len(b) {
		if _, err := Read(bytes.NewReader(b[:n])); err == nil {
			t.Fatalf("prefix of %d bytes: no error", n)
		}
		_, err := Read(io.MultiReader(bytes.NewReader(b[:n]))) // hides Len
		if err == nil {
			t.Fatalf("prefix of %d bytes (unsized): no error", n)
		}
		if n > 0 && !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("prefix of %d bytes: %v", n, err)
		}
	}
}

// A header that lies about the sizes costs no more memory than the input
// when the reader cannot tell how much is left.
func TestReadHugeHeaderUnsized(t *testing.T) {
	b := compact(t, fixture(t))
	binary.LittleEndian.PutUint32(b[12:], MaxDim)
	binary.LittleEndian.PutUint64(b[16:], 1<<20)
	binary.LittleEndian.PutUint64(b[24:], 1<<35)
	_, err := Read(io.MultiReader(bytes.NewReader(b)))
	if err == nil || !strings.Contains(err.Error(), "truncated in the words") {
		t.Fatalf("got %v", err)
	}
	binary.LittleEndian.PutUint64(b[24:], 2<<20)
	_, err = Read(io.MultiReader(bytes.NewReader(b)))
	if err == nil || !strings.Contains(err.Error(), "truncated in the words") {
		t.Fatalf("got %v", err)
	}
}

// Read consumes exactly the compact bytes, so a table can sit inside a
// larger stream.
func TestReadStopsAtTheEnd(t *testing.T) {
	v := fixture(t)
	var b bytes.Buffer
	v.WriteTo(&b)
	b.WriteString("MORE")
	r := io.MultiReader(&b) // hides Len: Read may not look ahead
	got, err := Read(r)
	if err != nil {
		t.Fatal(err)
	}
	sameTable(t, got, v)
	rest, _ := io.ReadAll(r)
	if string(rest) != "MORE" {
		t.Fatalf("left %q, want MORE", rest)
	}
}
