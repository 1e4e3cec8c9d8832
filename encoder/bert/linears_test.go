package bert

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/kernel"
	"github.com/as2/as2/nn"
)

// TestLinears checks, on the tiny checkpoints, that Linears lists every
// matrix but the embeddings and the classifier, each once, so that int8
// inference leaves no layer float32 by omission; and that the token states
// stay within 0.1 of float32's (LayerNorm'd, about unit scale; int8 moved
// them by up to 0.053 when this was written) once they run int8, on the kernel path this process
// runs (AS2_KERNEL).
func TestLinears(t *testing.T) {
	exp := readExpected(t)
	for _, name := range []string{"tiny-bert", "tiny-bert-cls"} {
		t.Run(name, func(t *testing.T) {
			m, err := Load(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, l := range m.Linears() {
				if listed[l.W.Name] {
					t.Errorf("%s listed twice", l.W.Name)
				}
				listed[l.W.Name] = true
			}
			for _, p := range m.Params().All() {
				if len(p.Shape()) == 2 && !strings.HasPrefix(p.Name, "embeddings.") && !strings.HasPrefix(p.Name, "classifier.") && !listed[p.Name] {
					t.Errorf("matrix %s %v is not among Linears", p.Name, p.Shape())
				}
			}
			var ids, types [][]int
			for _, c := range exp.Models[name] {
				ids, types = append(ids, c.IDs), append(types, c.Types)
			}
			want, err := m.States(ids, types)
			if err != nil {
				t.Fatal(err)
			}
			if err := nn.QuantizeInt8Linears(m.Linears()...); err != nil {
				t.Fatal(err)
			}
			got, err := m.States(ids, types)
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for i := range want {
				for j := range want[i].Data {
					worst = max(worst, math.Abs(float64(got[i].Data[j]-want[i].Data[j])))
				}
			}
			t.Logf("%s: worst |int8 − float32| %.3g", kernel.Describe(), worst)
			if worst == 0 || worst > 0.1 {
				t.Errorf("int8 states differ from float32 by %.3g: want (0, 0.1]", worst)
			}
		})
	}
}
