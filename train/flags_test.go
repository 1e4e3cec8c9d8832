package train

import (
	"strings"
	"testing"

	"github.com/as2/as2/model"
)

// TestFlagsSource: the objective comes from --listwise or a given
// --objective, flags that contradict each other are refused by name, and
// --set and the settings' flags become Sets in order.
func TestFlagsSource(t *testing.T) {
	settings := []model.Setting{{Flag: "epochs", Field: "training.epochs"}}
	given := func(flags map[string]string) func(string) (string, bool) {
		return func(f string) (string, bool) { v, ok := flags[f]; return v, ok }
	}
	for _, tc := range []struct {
		name      string
		f         Flags
		given     map[string]string
		objective string // Source.Objective
		by        string // Source.ObjectiveBy
		sets      int
		err       string
	}{
		{"defaults", Flags{Arch: "cosinet", Objective: "pointwise"}, nil, "", "", 0, ""},
		{"objective given", Flags{Arch: "cosinet", Objective: "pairwise"}, map[string]string{"objective": "pairwise"}, "pairwise", "--objective", 0, ""},
		{"listwise", Flags{Arch: "cosinet", Listwise: true}, nil, "listwise", "--listwise", 0, ""},
		{"both", Flags{Arch: "cosinet", Listwise: true, Objective: "pairwise"}, map[string]string{"objective": "pairwise"}, "", "", 0, "--listwise and --objective pairwise: give one"},
		{"init and encoder", Flags{Arch: "cosinet", Init: "a.as2", InitEncoder: "b.as2"}, nil, "", "", 0, "--init-encoder: not with --init"},
		{"unknown arch", Flags{Arch: "nosuch"}, nil, "", "", 0, "--arch: "},
		{"unknown arch, recipe file", Flags{Arch: "nosuch", RecipeFile: "r.json"}, nil, "", "", 0, ""},
		{"sets", Flags{Arch: "cosinet", Settings: settings, Sets: []string{"training.clip=2"}}, map[string]string{"epochs": "3"}, "", "", 2, ""},
		{"bad set", Flags{Arch: "cosinet", Sets: []string{"clip"}}, nil, "", "", 0, `--set "clip": want FIELD=VALUE`},
	} {
		src, err := tc.f.Source(given(tc.given))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || src.Objective != tc.objective || src.ObjectiveBy != tc.by || len(src.Sets) != tc.sets {
			t.Errorf("%s: %+v, %v; want objective %q by %q, %d sets", tc.name, src, err, tc.objective, tc.by, tc.sets)
		}
	}
}
