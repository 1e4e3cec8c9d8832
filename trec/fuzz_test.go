package trec

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/as2/as2/dataset"
)

// Seeds beyond these are in testdata/fuzz/.
func FuzzReadQrels(f *testing.F) {
	f.Add([]byte("1 0 0 0\n1 0 1 1\n"))
	f.Add([]byte("# c\n\nq 0 d -1\r\nq\t0\td2\t+3"))
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip(t, data, ReadQrels, WriteQrels) })
}

func FuzzReadRun(f *testing.F) {
	f.Add([]byte("1 0 0 0 0.0374061375409 0\n1 0 1 0 0.009280639066 0\n"))
	f.Add([]byte("q Q0 d 1 -Inf t\n# x\n\nq Q0 e 2 1e-320 t\r\np Q0 d 3 0x1p-2 t"))
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip(t, data, ReadRun, WriteRun) })
}

// roundTrip checks a reader on arbitrary input: it either fails with a
// *dataset.ParseError (which names the line) or reads something that the
// matching writer writes back to the same value.
func roundTrip[T any](t *testing.T, data []byte, read func(io.Reader, string) (T, error), write func(io.Writer, T) error) {
	t.Helper()
	v, err := read(bytes.NewReader(data), "fuzz")
	if err != nil {
		var pe *dataset.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error is not a *ParseError: %v", err)
		}
		return
	}
	var buf bytes.Buffer
	if err := write(&buf, v); err != nil {
		t.Fatalf("writing what was read: %v", err)
	}
	back, err := read(&buf, "written")
	if err != nil {
		t.Fatalf("reading what was written: %v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(back, v) {
		t.Fatalf("round trip: %+v, want %+v", back, v)
	}
}
