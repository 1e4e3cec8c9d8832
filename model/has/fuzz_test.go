package has

import (
	"testing"

	"github.com/as2/as2/internal/testkit/modelfile"
	"github.com/as2/as2/model"
)

// FuzzRead feeds model.Read mutated HAS files.
func FuzzRead(f *testing.F) {
	var seeds []model.Model
	for _, h := range tinyHypers() {
		seeds = append(seeds, tiny(f, h, 1))
	}
	modelfile.Fuzz(f, seeds...)
}
