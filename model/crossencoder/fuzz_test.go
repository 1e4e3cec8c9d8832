package crossencoder

import (
	"testing"

	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/internal/testkit/modelfile"
	"github.com/as2/as2/internal/testkit/tinydata"
)

// FuzzRead feeds model.Read mutated cross-encoder files: over USE-Lite
// (with exact-match marks and segments, and attention-pooled) and over an
// imported BERT classifier.
func FuzzRead(f *testing.F) {
	h := Recipe()
	h.ExactMatch, h.Segments = true, true
	benc, err := bert.LoadEncoder(tinydata.BERTDir(f))
	if err != nil {
		f.Fatal(err)
	}
	att := Recipe()
	att.Pool = PoolAttention
	modelfile.Fuzz(f, mustNew(f, h, tinydata.USELite(f, 1)), mustNew(f, att, tinydata.USELite(f, 1)), mustNew(f, Recipe(), benc))
}
