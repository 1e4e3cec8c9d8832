package dual

import (
	"testing"

	"github.com/as2/as2/internal/testkit/modelfile"
)

// FuzzRead feeds model.Read mutated dual encoder files, ENDX among them.
func FuzzRead(f *testing.F) {
	modelfile.Fuzz(f, modelfile.Seeds(f, tinyHypers(), tiny)...)
}
