package bench

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/index"
)

func flat(t *testing.T, ids []string, vecs [][]float32) *index.Flat {
	t.Helper()
	x, err := index.NewFlat(len(vecs[0]))
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	return x
}

func norm32(v []float32) float64 {
	s := 0.0
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return math.Sqrt(s)
}

// TestPadVectors: the stored vectors first, under their ids, then
// mixtures with the norm of their first parent and noise off the parents'
// plane, the same for a seed and different for another.
func TestPadVectors(t *testing.T) {
	x := flat(t, []string{"a", "b"}, [][]float32{{1, 0, 0}, {0, 2, 0}})
	ids, vecs, real, err := PadVectors(x, []string{"a", "b"}, 40, 7, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if real != 2 || len(ids) != 40 || len(vecs) != 40 || ids[0] != "a" || ids[1] != "b" || ids[2] != "pad-1" || ids[39] != "pad-38" {
		t.Fatalf("ids %v (%d real)", ids, real)
	}
	if !slices.Equal(vecs[1], []float32{0, 2, 0}) {
		t.Errorf("stored vector changed: %v", vecs[1])
	}
	norms := map[float64]bool{}
	for _, v := range vecs[2:] {
		norms[math.Round(norm32(v)*1e4)/1e4] = true
		if v[2] == 0 {
			t.Errorf("no noise in %v", v)
		}
	}
	if len(norms) != 2 || !norms[1] || !norms[2] {
		t.Errorf("padded norms %v, want those of the parents (1 and 2)", norms)
	}
	_, again, _, _ := PadVectors(x, []string{"a", "b"}, 40, 7, 0.01)
	_, other, _, _ := PadVectors(x, []string{"a", "b"}, 40, 8, 0.01)
	if !slices.Equal(again[20], vecs[20]) || slices.Equal(other[20], vecs[20]) {
		t.Errorf("seed 7 twice: %v and %v; seed 8: %v", vecs[20], again[20], other[20])
	}
	_, quiet, _, _ := PadVectors(x, []string{"a", "b"}, 40, 7, 0)
	for _, v := range quiet[2:] {
		if v[2] != 0 || v[0] < 0 || v[1] < 0 {
			t.Errorf("without noise %v leaves the parents' segment", v)
		}
	}
}

// TestPadVectorsSizes: a pool smaller than the file takes its first
// vectors; bad arguments are errors, not panics.
func TestPadVectorsSizes(t *testing.T) {
	x := flat(t, []string{"a", "b", "c"}, [][]float32{{1, 0}, {0, 1}, {1, 1}})
	for _, tc := range []struct {
		name    string
		ids     []string
		size    int
		noise   float64
		wantIDs []string
		wantErr string
	}{
		{"first one", []string{"a", "b", "c"}, 1, 0.01, []string{"a"}, ""},
		{"all", []string{"a", "b", "c"}, 3, 0.01, []string{"a", "b", "c"}, ""},
		{"one padded", []string{"a", "b", "c"}, 4, 0.01, []string{"a", "b", "c", "pad-1"}, ""},
		{"size 0", []string{"a", "b", "c"}, 0, 0.01, nil, "size 0"},
		{"ids short", []string{"a"}, 3, 0.01, nil, "1 ids for 3 vectors"},
		{"negative noise", []string{"a", "b", "c"}, 3, -1, nil, "noise -1"},
		{"NaN noise", []string{"a", "b", "c"}, 3, math.NaN(), nil, "noise NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, vecs, real, err := PadVectors(x, tc.ids, tc.size, 1, tc.noise)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(ids, tc.wantIDs) || len(vecs) != tc.size || real != min(tc.size, 3) {
				t.Errorf("ids %v, %d vectors, %d real, %v; want %v", ids, len(vecs), real, err, tc.wantIDs)
			}
		})
	}
	empty, _ := index.NewFlat(2)
	if _, _, _, err := PadVectors(empty, nil, 5, 1, 0); err == nil {
		t.Error("padded from no vectors")
	}
}
