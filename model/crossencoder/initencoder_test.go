package crossencoder

import (
	"strings"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/dual"
)

// fineTunedDual is a dual encoder that fine-tuned the tiny USE-Lite of
// seed 1, its encoder weights moved off the pretrained ones.
func fineTunedDual(t *testing.T) *dual.Model {
	t.Helper()
	h := dual.RecipeHyper()
	h.Layer, h.Pool, h.FineTune, h.Scale, h.Encoder = dual.LayerNone, dual.PoolEncoder, true, 20, ""
	d, err := dual.New(h, encodertest.USELite(t, 1), 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range d.Params().All() {
		for j := range p.Value.Data {
			p.Value.Data[j] += 0.01 * float32(i+j%7)
		}
	}
	return d
}

// TestInitEncoderFromDual starts a cross-encoder's USE-Lite from a dual
// encoder's fine-tuned one (model.InitEncoder, as2 train --init-encoder):
// every encoder weight of the new model is the dual encoder's.
func TestInitEncoderFromDual(t *testing.T) {
	d := fineTunedDual(t)
	tuned := map[string][]float32{}
	for _, p := range d.Params().All() {
		if name, ok := strings.CutPrefix(p.Name, "encoder."); ok {
			tuned[name] = p.Value.Data
		}
	}
	enc := encodertest.USELite(t, 1)
	if err := model.InitEncoder(enc, d); err != nil {
		t.Fatal(err)
	}
	m := mustNew(t, Recipe(), enc)
	checked := 0
	for _, p := range m.Params().All() {
		name, ok := strings.CutPrefix(p.Name, "encoder.")
		if !ok {
			continue
		}
		want, ok := tuned[name]
		if !ok {
			t.Fatalf("%s: not among the dual encoder's weights", p.Name)
		}
		for j := range want {
			if p.Value.Data[j] != want[j] {
				t.Fatalf("%s[%d] = %v, want the dual encoder's %v", p.Name, j, p.Value.Data[j], want[j])
			}
		}
		checked++
	}
	if checked == 0 || checked != len(tuned) {
		t.Fatalf("%d encoder weights checked, the dual encoder has %d", checked, len(tuned))
	}
}

func TestInitEncoderErrors(t *testing.T) {
	frozen, err := dual.New(dual.RecipeHyper(), encodertest.USELite(t, 1), 2) // a BiLSTM over frozen states
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		seed uint64 // of the new model's tiny USE-Lite
		from model.Model
		want string
	}{
		{"other pretrained weights", 2, fineTunedDual(t), "a different pretrained encoder"},
		{"frozen", 1, frozen, "kept its encoder frozen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := model.InitEncoder(encodertest.USELite(t, tc.seed), tc.from)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one about %q", err, tc.want)
			}
		})
	}
}
