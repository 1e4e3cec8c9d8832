package encoder_test

import (
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/nn"
)

// FineTune moves an encoder's weights into the model's set under
// TensorPrefix, and refuses an encoder with none.
func TestFineTune(t *testing.T) {
	ps := nn.NewParams[float64]()
	ps.New("head.weight", 2)
	enc := encodertest.NewProjected[float64](t)
	want := enc.Params().Count()
	if err := encoder.FineTune(ps, enc); err != nil {
		t.Fatal(err)
	}
	if enc.Params().Count() != 0 || ps.Count() != want+2 || ps.Get(encoder.TensorPrefix+"proj.weight") == nil {
		t.Fatalf("after FineTune: encoder %d weights, model %d (want %d), names %v", enc.Params().Count(), ps.Count(), want+2, ps.All())
	}
	err := encoder.FineTune(nn.NewParams[float64](), encodertest.Static[float64](t))
	if err == nil || !strings.Contains(err.Error(), "no weights to train") {
		t.Fatalf("static vectors: error %v, want one about no weights", err)
	}
}
