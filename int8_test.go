package as2_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/crossencoder"
	"github.com/as2/as2/model/quant"
	"github.com/as2/as2/rank"
)

// hamletScores are r's scores for hamlet's candidates, in their order.
func hamletScores(t *testing.T, r rank.Ranker) []float64 {
	t.Helper()
	ranked, err := rank.Texts(context.Background(), r, hamletQ, hamletCands)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]float64, len(ranked))
	for _, c := range ranked {
		s[c.Index] = c.Score
	}
	return s
}

// TestWithInt8 opens transformer specs with WithInt8(false), WithInt8(true)
// and neither (int8 for the built-in model, float32 otherwise): int8
// scores differ from float32 ones where quant.Supported, by at most a
// tenth of the float32 scores' spread (the built-in model's moved by 4.5%
// of it when this was written; package quant's tests bound each
// checkpoint tighter), and equal them where the kernels fall back to
// float32. The built-in model keeps its calibration.
func TestWithInt8(t *testing.T) {
	dir := t.TempDir()
	m, err := crossencoder.New(crossencoder.Recipe(), encodertest.USELite(t, 5), 2)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "ce.as2")
	if err := model.SaveInt8(file, m); err != nil {
		t.Fatal(err)
	}
	hf := encodertest.BERTDir(t)
	for _, c := range []struct{ name, spec string }{
		{"builtin", as2.Builtin},
		{"model file", file},
		{"Hugging Face folder", hf},
		{"cascade", "cascade:bm25:3,ce=" + file + ":2"},
	} {
		spec := c.spec
		t.Run(c.name, func(t *testing.T) {
			f, err := as2.OpenRanker(context.Background(), spec, as2.WithInt8(false))
			if err != nil {
				t.Fatal(err)
			}
			i8, err := as2.OpenRanker(context.Background(), spec, as2.WithInt8(true))
			if err != nil {
				t.Fatal(err)
			}
			def, err := as2.OpenRanker(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			want, got := hamletScores(t, f), hamletScores(t, i8)
			// Without WithInt8 the built-in model runs int8, files float32.
			wantDef := want
			if spec == as2.Builtin {
				wantDef = got
			}
			if d := hamletScores(t, def); !slices.Equal(d, wantDef) {
				t.Errorf("scores with no WithInt8 %.4f, want %.4f (int8 for the built-in model only)", d, wantDef)
			}
			var worst float64
			lo, hi := want[0], want[0]
			for i := range want {
				worst = max(worst, math.Abs(got[i]-want[i]))
				lo, hi = min(lo, want[i]), max(hi, want[i])
			}
			spread := max(hi-lo, 1)
			t.Logf("scores float32 %.4f, int8 %.4f", want, got)
			switch {
			case quant.Supported() && worst == 0:
				t.Error("int8 scores equal the float32 ones: int8 did not run")
			case !quant.Supported() && worst != 0:
				t.Errorf("int8 falls back to float32, but the scores differ by %.3g", worst)
			case worst > 0.1*spread:
				t.Errorf("int8 scores differ from float32 by %.3g, over a tenth of their spread %.3g", worst, spread)
			}
			if _, ok := as2.CalibrationOf(i8); ok != (spec == as2.Builtin) {
				t.Errorf("CalibrationOf(int8 %s): %v", spec, ok)
			}
		})
	}
}
