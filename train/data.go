package train

import (
	"fmt"
	"slices"
	"strings"

	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/model"
)

// Data is where a run's training and dev data come from, as as2 train's
// flags give it. PlanFor's errors name those flags (--dev-split, --also,
// ...), the fields of the same names here.
type Data struct {
	Dataset string // a catalog name, or jsonl or tsv: a file, which has no splits
	// DevSplit is the split evaluated after each epoch ("none" or "": no
	// dev split); DevSplitGiven says whether the user chose it.
	DevSplit      string
	DevSplitGiven bool
	DevPath       string   // the dev file of a jsonl or tsv dataset
	Also          []string // in-batch: more DATASET:SPLIT training pairs
	DevPool       string   // in-batch: a ReQA pool measured after each epoch
	// Given says which recipe fields' flags the user gave:
	// distill-candidates, score-scale and keep-best are checked.
	Given func(flag string) bool
}

// Dev is where the dev questions come from: a split, or for a file
// dataset the file DevPath; ok is false for no dev questions. A file has no
// splits: a dev "split" would be the training file itself, and keeping its
// best epoch would select on training data.
func (d Data) Dev() (split, path string, ok bool) {
	file := catalog.IsFile(d.Dataset)
	switch {
	case file && d.DevPath != "":
		return "", d.DevPath, true
	case file || d.DevSplit == "none" || d.DevSplit == "":
		return "", "", false
	}
	return d.DevSplit, "", true
}

// PlanFor checks d against r, whose objective says which settings apply,
// and resolves r (Resolve) for a run with d's dev set. --dev-split none on
// a file dataset clears DevPath: no dev set at all.
func (d *Data) PlanFor(r model.Recipe) (Plan, error) {
	given := d.Given
	if given == nil {
		given = func(string) bool { return false }
	}
	obj, inBatch := r.Training.Objective, slices.Contains(model.InBatchObjectives, r.Training.Objective)
	switch ib := strings.Join(model.InBatchObjectives, ", "); {
	case !inBatch && (len(d.Also) > 0 || d.DevPool != ""):
		return Plan{}, fmt.Errorf("--also and --dev-pool are for the in-batch objectives (%s), not --objective %s", ib, obj)
	case !inBatch && given("distill-candidates"):
		return Plan{}, fmt.Errorf("--distill-candidates is for the in-batch objectives (%s), not --objective %s", ib, obj)
	case inBatch && given("score-scale"):
		return Plan{}, fmt.Errorf("--score-scale: not with the in-batch objective %s (dual encoders scale with hyperparameters.scale)", obj)
	}
	file, noSplit := catalog.IsFile(d.Dataset), d.DevSplit == "none" || d.DevSplit == ""
	switch {
	case file && d.DevSplitGiven && !noSplit:
		return Plan{}, fmt.Errorf("--dev-split %s: a %s dataset has no splits; give the dev file with --dev-path", d.DevSplit, d.Dataset)
	case file && d.DevSplitGiven:
		d.DevPath = ""
	case !file && d.DevPath != "":
		return Plan{}, fmt.Errorf("--dev-path is for the jsonl and tsv datasets; %s has splits: use --dev-split", d.Dataset)
	}
	_, _, hasDev := d.Dev()
	hasDev = hasDev || d.DevPool != "" // a dev pool measures in-batch training
	if given("keep-best") && r.Training.KeepBest && !hasDev {
		return Plan{}, fmt.Errorf("--keep-best needs a dev split (--dev-split is %q) or, for jsonl and tsv, --dev-path", d.DevSplit)
	}
	return Resolve(r, hasDev)
}
