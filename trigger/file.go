package trigger

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadCalibration reads a calibration as as2 trigger --out writes it:
// {"a": A, "b": B, "threshold": T}. Every field must be there (a missing
// one would silently read as 0, which answers everything), nothing else
// may be, and T must be a probability. (JSON has no NaN or infinity, so a
// and b are finite.)
func ReadCalibration(r io.Reader) (Calibration, error) {
	var raw struct {
		A, B, Threshold *float64
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Calibration{}, fmt.Errorf("calibration: %w", err)
	}
	if dec.More() {
		return Calibration{}, errors.New("calibration: more than one JSON value")
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"a", raw.A}, {"b", raw.B}, {"threshold", raw.Threshold}} {
		if f.v == nil {
			return Calibration{}, fmt.Errorf("calibration: no %q", f.name)
		}
	}
	c := Calibration{A: *raw.A, B: *raw.B, Threshold: *raw.Threshold}
	if c.Threshold < 0 || c.Threshold > 1 {
		return Calibration{}, fmt.Errorf("calibration: threshold %v is not a probability in [0, 1]", c.Threshold)
	}
	return c, nil
}

// LoadCalibration reads the calibration file at path (ReadCalibration);
// its errors name the file.
func LoadCalibration(path string) (Calibration, error) {
	f, err := os.Open(path)
	if err != nil {
		return Calibration{}, err
	}
	defer f.Close()
	c, err := ReadCalibration(f)
	if err != nil {
		return Calibration{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
