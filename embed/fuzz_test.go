package embed

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/as2/as2/dataset"
)

// The fuzz targets check that no input panics, that every error carries its
// place (*dataset.ParseError), and that whatever is accepted is a sound
// table that survives a compact round trip bit for bit. Seeds are in
// testdata/fuzz/<target>/ and below.

func FuzzReadText(f *testing.F) {
	v := fixture(f)
	f.Add(gloveText(v, false))
	f.Add(gloveText(v, true))
	f.Add([]byte("a 1 2\nb 3 4\n"))
	f.Add([]byte("2 2\na 1 2\nb NaN 4\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ReadText(bytes.NewReader(b), "fuzz")
		check(t, got, err)
	})
}

func FuzzReadWord2VecBinary(f *testing.F) {
	v := fixture(f)
	f.Add(word2vecBinary(v, true))
	f.Add(word2vecBinary(v, false))
	f.Add([]byte("1 1\nab \x00\x00\x80\x3f\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ReadWord2VecBinary(bytes.NewReader(b), "fuzz")
		check(t, got, err)
	})
}

func FuzzRead(f *testing.F) {
	v := fixture(f)
	f.Add(compact(f, v))
	f.Add(compact(f, New(3)))
	f.Add(rawCompact(1, []string{"a", "a"}, []float32{1, 2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Read(bytes.NewReader(b))
		check(t, got, err)
		// Unsized input takes the other allocation path; same verdict.
		got2, err2 := Read(io.MultiReader(bytes.NewReader(b)))
		if (err == nil) != (err2 == nil) {
			t.Fatalf("sized: %v; unsized: %v", err, err2)
		}
		if err == nil {
			sameTable(t, got2, got)
		}
	})
}

func FuzzReadWinkJSON(f *testing.F) {
	f.Add(winkJSON(fixture(f)))
	f.Add([]byte(`{"l2NormIndex":1,"vectors":{"a":[1,2,3],"b":[0,1e-3]},"size":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ReadWinkJSON(bytes.NewReader(b), "fuzz")
		check(t, got, err)
	})
}

func check(t *testing.T, v *Vectors, err error) {
	t.Helper()
	if err != nil {
		var pe *dataset.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T without a place: %v", err, err)
		}
		if v != nil {
			t.Fatal("a table and an error")
		}
		return
	}
	if err := v.checkShape(); err != nil {
		t.Fatal(err)
	}
	for i, w := range v.Words {
		if err := checkWord(w); err != nil {
			t.Fatal(err)
		}
		if j, ok := v.Index(w); !ok || j != i {
			t.Fatalf("Index(%q) = %d, %v, want %d", w, j, ok, i)
		}
	}
	for _, x := range v.Data {
		if !finite(x) {
			t.Fatalf("accepted %v", x)
		}
	}
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	sameTable(t, back, v)
}
