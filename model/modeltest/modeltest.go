// Package modeltest round-trips models through their file format, and
// fuzzes its reader, for the tests of the architectures.
package modeltest

import (
	"bytes"
	"context"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
)

// RoundTrip writes m in the model file format and reads it back, failing
// t on an error.
func RoundTrip(t testing.TB, m model.Model) model.Model {
	t.Helper()
	var buf bytes.Buffer
	if err := model.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	back, err := model.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// Fuzz is the body of an architecture's FuzzRead: seeded with the files of
// models (each written as model.Write and as model.WriteInt8 write it), it
// feeds model.Read mutated files. A file may be refused, never panic; one
// that loads must score encodertest's question without panicking.
func Fuzz(f *testing.F, seeds ...model.Model) {
	for _, m := range seeds {
		for _, write := range []func(io.Writer, model.Model) error{model.Write, model.WriteInt8} {
			var buf bytes.Buffer
			if err := write(&buf, m); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := model.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		_, _ = m.Score(context.Background(), encodertest.Question())
	})
}

// Seeds builds a model from seed 1 for each of hypers, in name order, for
// Fuzz: build is an architecture's tiny-model constructor.
func Seeds[H any, M model.Model](tb testing.TB, hypers map[string]H, build func(testing.TB, H, uint64) M) []model.Model {
	var out []model.Model
	for _, name := range slices.Sorted(maps.Keys(hypers)) {
		out = append(out, build(tb, hypers[name], 1))
	}
	return out
}
