package train

import (
	"strings"
	"testing"

	"github.com/as2/as2/model"
)

// TestDataPlanFor: settings that do not apply to the objective or to the
// dataset are refused, naming the flag, and the dev set decides KeepBest.
func TestDataPlanFor(t *testing.T) {
	cands, err := model.DefaultRecipe("cosinet", false, "")
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := model.DefaultRecipe("dual", false, model.InBatchObjectives[0])
	if err != nil {
		t.Fatal(err)
	}
	keep := cands
	keep.Training.KeepBest = true
	given := func(flags ...string) func(string) bool {
		return func(f string) bool { return strings.Contains(strings.Join(flags, " "), f) }
	}
	for _, tc := range []struct {
		name     string
		d        Data
		r        model.Recipe
		want     string // error text; "" for none
		keepBest bool
		devPath  string // DevPath after
	}{
		{"split", Data{Dataset: "wikiqa", DevSplit: "dev"}, keep, "", true, ""},
		{"no dev", Data{Dataset: "wikiqa", DevSplit: "none"}, keep, "", false, ""},
		{"also not in-batch", Data{Dataset: "wikiqa", DevSplit: "dev", Also: []string{"trecqa:train"}}, cands, "--also and --dev-pool are for the in-batch objectives", false, ""},
		{"dev pool not in-batch", Data{Dataset: "wikiqa", DevPool: "p.jsonl"}, cands, "--also and --dev-pool", false, ""},
		{"distill candidates", Data{Dataset: "wikiqa", Given: given("distill-candidates")}, cands, "--distill-candidates is for the in-batch objectives", false, ""},
		{"score scale in-batch", Data{Dataset: "wikiqa", Given: given("score-scale")}, pairs, "--score-scale: not with the in-batch objective", false, ""},
		{"file dev split", Data{Dataset: "jsonl", DevSplit: "dev", DevSplitGiven: true}, cands, "--dev-split dev: a jsonl dataset has no splits", false, ""},
		{"file dev none", Data{Dataset: "jsonl", DevSplit: "none", DevSplitGiven: true, DevPath: "d.jsonl"}, keep, "", false, ""},
		{"file dev path", Data{Dataset: "tsv", DevSplit: "dev", DevPath: "d.tsv"}, keep, "", true, "d.tsv"},
		{"dev path with splits", Data{Dataset: "wikiqa", DevSplit: "dev", DevPath: "d.tsv"}, cands, "--dev-path is for the jsonl and tsv datasets", false, "d.tsv"},
		{"keep best without dev", Data{Dataset: "wikiqa", DevSplit: "none", Given: given("keep-best")}, keep, "--keep-best needs a dev split", false, ""},
		{"dev pool is a dev set", Data{Dataset: "wikiqa", DevSplit: "none", DevPool: "p.jsonl", Given: given("keep-best")}, pairs, "", pairs.Training.KeepBest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			p, err := d.PlanFor(tc.r)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("PlanFor: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("PlanFor: %v, want an error with %q", err, tc.want)
			case tc.want == "" && p.KeepBest != tc.keepBest:
				t.Errorf("KeepBest %v, want %v", p.KeepBest, tc.keepBest)
			}
			if d.DevPath != tc.devPath {
				t.Errorf("DevPath %q, want %q", d.DevPath, tc.devPath)
			}
		})
	}
}

// TestDataDev: a split, a file's dev file, or nothing.
func TestDataDev(t *testing.T) {
	for _, tc := range []struct {
		d           Data
		split, path string
		ok          bool
	}{
		{Data{Dataset: "wikiqa", DevSplit: "dev"}, "dev", "", true},
		{Data{Dataset: "wikiqa", DevSplit: "none"}, "", "", false},
		{Data{Dataset: "wikiqa"}, "", "", false},
		{Data{Dataset: "jsonl", DevSplit: "dev"}, "", "", false},
		{Data{Dataset: "jsonl", DevSplit: "dev", DevPath: "d.jsonl"}, "", "d.jsonl", true},
	} {
		split, path, ok := tc.d.Dev()
		if split != tc.split || path != tc.path || ok != tc.ok {
			t.Errorf("%+v: Dev() = %q, %q, %v, want %q, %q, %v", tc.d, split, path, ok, tc.split, tc.path, tc.ok)
		}
	}
}
