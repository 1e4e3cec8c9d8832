package trec

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/as2/as2/dataset"
)

// Seeds beyond these are in testdata/fuzz/.
func FuzzReadQrels(f *testing.F) {
	f.Add([]byte("1 0 0 0\n1 0 1 1\n"))
	f.Add([]byte("# c\n\nq 0 d -1\r\nq\t0\td2\t+3"))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ReadQrels(bytes.NewReader(data), "fuzz")
		if err != nil {
			var pe *dataset.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteQrels(&buf, q); err != nil {
			t.Fatalf("WriteQrels of parsed qrels: %v", err)
		}
		back, err := ReadQrels(&buf, "written")
		if err != nil {
			t.Fatalf("reading written qrels: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(back, q) {
			t.Fatalf("round trip: %v, want %v", back, q)
		}
	})
}

func FuzzReadRun(f *testing.F) {
	f.Add([]byte("1 0 0 0 0.0374061375409 0\n1 0 1 0 0.009280639066 0\n"))
	f.Add([]byte("q Q0 d 1 -Inf t\n# x\n\nq Q0 e 2 1e-320 t\r\np Q0 d 3 0x1p-2 t"))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := ReadRun(bytes.NewReader(data), "fuzz")
		if err != nil {
			var pe *dataset.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteRun(&buf, run); err != nil {
			t.Fatalf("WriteRun of a parsed run: %v", err)
		}
		back, err := ReadRun(&buf, "written")
		if err != nil {
			t.Fatalf("reading written run: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(back, run) {
			t.Fatalf("round trip: %+v, want %+v", back, run)
		}
	})
}
