package compagg

import (
	"testing"

	"github.com/as2/as2/internal/testkit/modelfile"
)

// FuzzRead feeds model.Read mutated CA and Comp-Clip files.
func FuzzRead(f *testing.F) {
	modelfile.Fuzz(f, modelfile.Seeds(f, tinyHypers(), tiny)...)
}
