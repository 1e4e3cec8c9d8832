package crossencoder

import (
	"testing"

	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model/modeltest"
)

// FuzzRead feeds model.Read mutated cross-encoder files: over USE-Lite
// (with exact-match marks and segments, and attention-pooled) and over an
// imported BERT classifier.
func FuzzRead(f *testing.F) {
	h := Recipe()
	h.ExactMatch, h.Segments = true, true
	benc, err := bert.LoadEncoder(encodertest.BERTDir(f))
	if err != nil {
		f.Fatal(err)
	}
	att := Recipe()
	att.Pool = PoolAttention
	modeltest.Fuzz(f, mustNew(f, h, encodertest.USELite(f, 1)), mustNew(f, att, encodertest.USELite(f, 1)), mustNew(f, Recipe(), benc))
}
