package has

import (
	"testing"

	"github.com/as2/as2/internal/testkit/modelfile"
)

// FuzzRead feeds model.Read mutated HAS files.
func FuzzRead(f *testing.F) {
	modelfile.Fuzz(f, modelfile.Seeds(f, tinyHypers(), tiny)...)
}
