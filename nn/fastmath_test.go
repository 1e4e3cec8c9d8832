package nn_test

import (
	"math"
	"testing"

	"github.com/as2/as2/nn"
)

func TestTanh32(t *testing.T) {
	worst := 0.0
	for x := -12.0; x <= 12; x += 1e-3 {
		want := math.Tanh(float64(float32(x)))
		got := float64(nn.Tanh32(float32(x)))
		worst = max(worst, math.Abs(got-want)/max(math.Abs(want), 1e-30))
	}
	if worst > 1e-6 {
		t.Fatalf("worst relative error %.3g", worst)
	}
	if nn.Tanh32(0) != 0 || nn.Tanh32(100) != 1 || nn.Tanh32(-100) != -1 {
		t.Fatal("Tanh32 at 0 or ±100")
	}
}
