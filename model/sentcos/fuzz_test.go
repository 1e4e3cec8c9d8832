package sentcos

import (
	"testing"

	"github.com/as2/as2/internal/testkit/modelfile"
	"github.com/as2/as2/internal/testkit/tinydata"
)

// FuzzRead feeds model.Read mutated zero-shot model files.
func FuzzRead(f *testing.F) {
	m, err := New(Hyper{}, tinydata.USELite(f, 1))
	if err != nil {
		f.Fatal(err)
	}
	modelfile.Fuzz(f, m)
}
