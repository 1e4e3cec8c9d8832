package jsonerr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	var v struct{ N int }
	for in, want := range map[string]string{`{"N": 1,}`: "at byte 9", `{"N": "x"}`: `field "N" at byte 9`} {
		err := Locate(json.Unmarshal([]byte(in), &v))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	other := errors.New("other")
	if Locate(other) != other {
		t.Error("other errors must pass through")
	}
}
