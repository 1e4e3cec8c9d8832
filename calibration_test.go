package as2_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trigger"
)

func TestOpenCalibration(t *testing.T) {
	ctx := context.Background()
	builtin, err := as2.OpenRanker(ctx, as2.Builtin)
	if err != nil {
		t.Fatal(err)
	}
	wo, err := as2.OpenRanker(ctx, "wo")
	if err != nil {
		t.Fatal(err)
	}
	own, _ := as2.CalibrationOf(builtin)
	dir := t.TempDir()
	good := writeTestFile(t, filepath.Join(dir, "c.json"), `{"a": 2, "b": -1, "threshold": 0.4}`)
	bad := writeTestFile(t, filepath.Join(dir, "bad.json"), `{"a": 2}`)
	for _, tc := range []struct {
		name, spec string
		r          rank.Ranker
		want       trigger.Calibration
		err        string
	}{
		{"builtin's own", as2.Builtin, builtin, own, ""},
		{"builtin for another ranker", as2.Builtin, wo, trigger.Calibration{}, "builtin: "},
		{"a file, for any ranker", good, wo, trigger.Calibration{A: 2, B: -1, Threshold: 0.4}, ""},
		{"a file beats builtin's own", good, builtin, trigger.Calibration{A: 2, B: -1, Threshold: 0.4}, ""},
		{"a bad file", bad, wo, trigger.Calibration{}, bad + ": "},
		{"a missing file", filepath.Join(dir, "none.json"), wo, trigger.Calibration{}, "none.json: file not found"},
	} {
		c, err := as2.OpenCalibration(tc.spec, tc.r)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || c != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, c, err, tc.want)
		}
	}
	if _, err := as2.OpenCalibration(filepath.Join(dir, "none.json"), wo); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v is not fs.ErrNotExist", err)
	}
}
