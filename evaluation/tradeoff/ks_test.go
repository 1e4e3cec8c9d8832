package tradeoff

import (
	"slices"
	"strings"
	"testing"
)

func TestParseKs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int // nil: an error
	}{
		{"1,5,10", []int{1, 5, 10}},
		{" 25 , 50", []int{25, 50}},
		{"7", []int{7}},
		{"", nil},
		{"1,,5", nil},
		{"0,5", nil},
		{"-3", nil},
		{"five", nil},
	} {
		got, err := ParseKs(tc.in)
		if tc.want == nil {
			if err == nil || !strings.Contains(err.Error(), "want positive integers") {
				t.Errorf("%q: %v, %v; want an error", tc.in, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// FuzzParseKs: any text gives positive ks or an error, never a panic.
func FuzzParseKs(f *testing.F) {
	for _, s := range []string{"1,5,10,25,50,100", "", " 3", "1,,2", "-1", "9999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ks, err := ParseKs(s)
		if err == nil && len(ks) == 0 {
			t.Fatalf("%q: no ks and no error", s)
		}
		for _, k := range ks {
			if k < 1 {
				t.Fatalf("%q: k %d", s, k)
			}
		}
	})
}
