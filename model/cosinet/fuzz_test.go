package cosinet

import (
	"testing"

	"github.com/as2/as2/model"
	"github.com/as2/as2/model/modeltest"
)

// FuzzRead feeds model.Read mutated Cosinet files, one of each RNN kind.
func FuzzRead(f *testing.F) {
	var seeds []model.Model
	for _, rnn := range RNNKinds {
		seeds = append(seeds, tiny(f, tinyHyper(rnn), 3))
	}
	modeltest.Fuzz(f, seeds...)
}
