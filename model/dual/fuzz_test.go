package dual

import (
	"testing"

	"github.com/as2/as2/model/modeltest"
)

// FuzzRead feeds model.Read mutated dual encoder files, ENDX among them.
func FuzzRead(f *testing.F) {
	modeltest.Fuzz(f, modeltest.Seeds(f, tinyHypers(), tiny)...)
}
