package has

import (
	"testing"

	"github.com/as2/as2/model/modeltest"
)

// FuzzRead feeds model.Read mutated HAS files.
func FuzzRead(f *testing.F) {
	modeltest.Fuzz(f, modeltest.Seeds(f, tinyHypers(), tiny)...)
}
