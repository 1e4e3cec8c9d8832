package trigger

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCalibration(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"a":0.39,"b":-1.66,"threshold":0.16}`, ""},
		{`{"a":0.39,"b":-1.66,"threshold":0.16}` + "\n", ""},
		{`{"a":1,"b":0}`, `no "threshold"`},
		{`{}`, `no "a"`},
		{`{"a":1,"b":0,"threshold":1.5}`, "not a probability"},
		{`{"a":1,"b":0,"threshold":-0.1}`, "not a probability"},
		{`{"a":1,"b":0,"threshold":0.5,"bias":2}`, `unknown field "bias"`},
		{`{"a":1,"b":0,"threshold":0.5} {}`, "more than one"},
		{`{"a":"1","b":0,"threshold":0.5}`, "cannot unmarshal"},
		{`{"a":1e999,"b":0,"threshold":0.5}`, "calibration"},
		{``, "EOF"},
	} {
		got, err := ReadCalibration(strings.NewReader(c.in))
		if c.err == "" {
			if err != nil || got != (Calibration{A: 0.39, B: -1.66, Threshold: 0.16}) {
				t.Errorf("%s: %+v, %v", c.in, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one with %q", c.in, err, c.err)
		}
	}
}

// What as2 trigger --out writes, LoadCalibration reads back; its errors
// name the file.
func TestLoadCalibration(t *testing.T) {
	dir := t.TempDir()
	want := Calibration{A: 2, B: -3, Threshold: 0.25}
	js, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	os.WriteFile(good, js, 0o644)
	os.WriteFile(bad, []byte(`{"a":2}`), 0o644)
	if got, err := LoadCalibration(good); err != nil || got != want {
		t.Fatalf("%+v, %v", got, err)
	}
	if _, err := LoadCalibration(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("error %v does not name %s", err, bad)
	}
}

// FuzzReadCalibration: a file is refused or gives a threshold in [0, 1]
// and a calibration that re-encodes to itself.
func FuzzReadCalibration(f *testing.F) {
	f.Add(`{"a":0.3887741504373481,"b":-1.6592941796981968,"threshold":0.1598969991661076}`)
	f.Add(`{"a":1,"b":0,"threshold":1}`)
	f.Add(`{"A":1,"B":0,"Threshold":0}`)
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ReadCalibration(strings.NewReader(in))
		if err != nil {
			return
		}
		if c.Threshold < 0 || c.Threshold > 1 {
			t.Fatalf("threshold %v", c.Threshold)
		}
		js, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ReadCalibration(strings.NewReader(string(js)))
		if err != nil || back != c {
			t.Fatalf("%+v re-reads as %+v, %v", c, back, err)
		}
	})
}
