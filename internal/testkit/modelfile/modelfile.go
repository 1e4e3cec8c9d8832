// Package modelfile round-trips models through their file format for the
// tests of the architectures.
package modelfile

import (
	"bytes"
	"testing"

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
