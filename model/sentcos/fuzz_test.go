package sentcos

import (
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model/modeltest"
)

// FuzzRead feeds model.Read mutated zero-shot model files.
func FuzzRead(f *testing.F) {
	m, err := New(Hyper{}, encodertest.USELite(f, 1))
	if err != nil {
		f.Fatal(err)
	}
	modeltest.Fuzz(f, m)
}
