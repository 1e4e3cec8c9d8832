package embed

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fixture returns a small table with awkward values: negative zero, a
// subnormal, the largest float32, and words with non-ASCII letters.
func fixture(t testing.TB) *Vectors {
	t.Helper()
	v := New(4)
	rows := []struct {
		w   string
		vec []float32
	}{
		{"the", []float32{-0.038194, -0.24487, 0.72812, -0.39961}},
		{",", []float32{1, 0, 0, 0}},
		{"zürich", []float32{float32(math.Copysign(0, -1)), 1e-45, math.MaxFloat32, -1.5}},
		{"東京", []float32{0.1, 0.2, 0.3, 0.4}},
		{"n't", []float32{0, 0, 0, 0}},
	}
	for _, r := range rows {
		if err := v.Add(r.w, r.vec); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// randomTable returns n random words of dimension dim.
func randomTable(t testing.TB, n, dim int, seed uint64) *Vectors {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	v := New(dim)
	v.Words = make([]string, 0, n)
	v.Data = make([]float32, 0, n*dim)
	vec := make([]float32, dim)
	for i := range n {
		for k := range vec {
			vec[k] = float32(rng.NormFloat64() * 0.4)
		}
		if err := v.add("w"+strconv.Itoa(i), vec); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// sameTable fails t unless a and b hold the same words and bit-identical values.
func sameTable(t testing.TB, got, want *Vectors) {
	t.Helper()
	if got.Dim != want.Dim || got.Len() != want.Len() || len(got.Data) != len(want.Data) {
		t.Fatalf("got %d words of dim %d (%d values), want %d of dim %d (%d values)",
			got.Len(), got.Dim, len(got.Data), want.Len(), want.Dim, len(want.Data))
	}
	for i, w := range want.Words {
		if got.Words[i] != w {
			t.Fatalf("word %d is %q, want %q", i, got.Words[i], w)
		}
		if j, ok := got.Index(w); !ok || j != i {
			t.Fatalf("Index(%q) = %d, %v, want %d", w, j, ok, i)
		}
	}
	for k, x := range want.Data {
		if math.Float32bits(got.Data[k]) != math.Float32bits(x) {
			t.Fatalf("value %d (word %q) is %v, want %v", k, want.Words[k/want.Dim], got.Data[k], x)
		}
	}
}

// The encoders below write the distribution formats for the tests.

func gloveText(v *Vectors, header bool) []byte {
	var b bytes.Buffer
	if header {
		fmt.Fprintf(&b, "%d %d\n", v.Len(), v.Dim)
	}
	for i, w := range v.Words {
		b.WriteString(w)
		for _, x := range v.Vector(i) {
			b.WriteByte(' ')
			b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
		if header {
			b.WriteByte(' ') // fastText ends lines with a space
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func word2vecBinary(v *Vectors, newlines bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d %d\n", v.Len(), v.Dim)
	for i, w := range v.Words {
		b.WriteString(w)
		b.WriteByte(' ')
		b.Write(appendFloats(nil, v.Vector(i)))
		if newlines {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func winkJSON(v *Vectors) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"precision":8,"l2NormIndex":%d,"wordIndex":%d,"size":%d,"dimensions":%d,"words":[`, v.Dim, v.Dim+1, v.Len(), v.Dim)
	for i, w := range v.Words {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(w))
	}
	b.WriteString(`],"vectors":{`)
	for i, w := range v.Words {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s:[", strconv.Quote(w))
		for _, x := range v.Vector(i) {
			b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "1.5,%d]", i)
	}
	b.WriteString(`},"unkVector":[0,0,0,0,-1]}`)
	return b.Bytes()
}

func compact(t testing.TB, v *Vectors) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := v.WriteTo(&b)
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("WriteTo = %d, %v; wrote %d bytes", n, err, b.Len())
	}
	return b.Bytes()
}

// rawCompact builds a compact file with a valid checksum from parts a
// correct writer would refuse, and extra bytes at the end of the words.
func rawCompact(dim int, words []string, data []float32, extra ...byte) []byte {
	var ws []byte
	for _, w := range words {
		ws = binary.AppendUvarint(ws, uint64(len(w)))
		ws = append(ws, w...)
	}
	ws = append(ws, extra...) // junk after the last word
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint32(b, formatVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(dim))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(words)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(ws)))
	b = append(b, ws...)
	b = appendFloats(b, data)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// resum recomputes the checksum of a compact file after a test edited it.
func resum(b []byte) []byte {
	b = bytes.Clone(b)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	return b
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hundred returns a GloVe line of word and n values.
func hundred(word string, n int) string {
	var b strings.Builder
	b.WriteString(word)
	for i := range n {
		fmt.Fprintf(&b, " 0.%d", i+1)
	}
	return b.String() + "\n"
}
