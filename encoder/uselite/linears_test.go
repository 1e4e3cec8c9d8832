package uselite

import (
	"math"
	"testing"

	"github.com/as2/as2/kernel"
	"github.com/as2/as2/nn"
)

// TestLinears checks that Linears lists every matrix but the embedding
// table, each once, so that int8 inference leaves no layer float32 by
// omission; and that the sentence vectors stay within 0.03 of float32's
// (unit vectors; int8 moved the tiny model's by up to 0.015 when this was
// written) once they run
// int8, on the kernel path this process runs (AS2_KERNEL).
func TestLinears(t *testing.T) {
	m := tinyModel(t)
	listed := map[string]bool{}
	for _, l := range m.Linears() {
		if listed[l.W.Name] {
			t.Errorf("%s listed twice", l.W.Name)
		}
		listed[l.W.Name] = true
	}
	for _, p := range m.Params().All() {
		if len(p.Shape()) == 2 && p.Name != "embeddings" && !listed[p.Name] {
			t.Errorf("matrix %s %v is not among Linears", p.Name, p.Shape())
		}
	}
	want, err := m.EmbedIDs(tinySentences)
	if err != nil {
		t.Fatal(err)
	}
	if err := nn.QuantizeInt8Linears(m.Linears()...); err != nil {
		t.Fatal(err)
	}
	got, err := m.EmbedIDs(tinySentences)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for i := range want {
		for j := range want[i] {
			worst = max(worst, math.Abs(float64(got[i][j]-want[i][j])))
		}
	}
	t.Logf("%s: worst |int8 − float32| %.3g", kernel.Describe(), worst)
	if worst == 0 || worst > 0.03 {
		t.Errorf("int8 sentence vectors differ from float32 by %.3g: want (0, 0.03]", worst)
	}
}
