package trigger

import (
	"math"
	"reflect"
	"testing"

	"github.com/as2/as2/rank"
)

func TestSelectionRanked(t *testing.T) {
	for _, tc := range []struct {
		name string
		sel  Selection
		want []rank.Scored
	}{
		{"none", Selection{}, []rank.Scored{}},
		{"best first, empty last", Selection{Sentences: []Selected{{Index: 2, Score: 1.5}, {Index: 0, Score: -0.25}, {Index: 1, Score: math.Inf(-1)}}},
			[]rank.Scored{{Index: 2, Score: 1.5}, {Index: 0, Score: -0.25}, {Index: 1, Score: math.Inf(-1)}}},
	} {
		if got := tc.sel.Ranked(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Ranked() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
