package model_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
)

// TestRecipeRoundTrip: every registered recipe, written as JSON and read
// back, is the same recipe, and writes the same JSON again.
func TestRecipeRoundTrip(t *testing.T) {
	names := model.RecipeNames()
	if !slices.Contains(names, "bag-test") || !slices.Contains(names, "bag-test-paper") {
		t.Fatalf("recipes %v", names)
	}
	for _, name := range names {
		r, err := model.LookupRecipe(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("%s: the registered recipe is invalid: %v", name, err)
		}
		js, err := r.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		back, err := model.ReadRecipe(js)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, js)
		}
		if !reflect.DeepEqual(back, r) {
			t.Errorf("%s: read back as %+v, was %+v", name, back, r)
		}
		if again, _ := back.MarshalIndent(); string(again) != string(js) {
			t.Errorf("%s: written again as\n%s\nwas\n%s", name, again, js)
		}
	}
	// A zero that the hyperparameters' JSON would leave out (omitempty)
	// is written, and read back as zero, not as the registered value.
	r, _ := model.LookupRecipe("bag-test")
	r.Hyper.(*bagHyper).Shift = 0
	js, _ := r.MarshalIndent()
	if back, err := model.ReadRecipe(js); err != nil || back.Hyper.(*bagHyper).Shift != 0 || !strings.Contains(string(js), `"shift": 0`) {
		t.Errorf("shift 0 read back as %+v (%v) from\n%s", back.Hyper, err, js)
	}
	if r, _ := model.LookupRecipe("bag-test-paper"); r.Hyper.(*bagHyper).Scale != 2 {
		t.Errorf("bag-test-paper: %+v, want the paper's scale 2", r.Hyper)
	}
	if _, err := model.LookupRecipe("nope-paper"); err == nil || !strings.Contains(err.Error(), "bag-test-paper") {
		t.Errorf("unknown recipe: %v", err)
	}
}

// TestReadRecipe: fields left out take the registered recipe's values (for
// the objective the file names), and bad files are refused with the field.
func TestReadRecipe(t *testing.T) {
	r, err := model.ReadRecipe([]byte(`{"architecture": "bag-test", "hyperparameters": {"tags": [1]}, "training": {"objective": "listwise", "epochs": 4}}`))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Hyper.(*bagHyper)
	if h.Scale != 1 || !reflect.DeepEqual(h.Tags, []int{1}) || r.Training.Epochs != 4 || r.Training.LR != 0.01 || r.Training.Seed != 1 || r.Encoder != "static" {
		t.Fatalf("partial recipe read as %+v %+v", r, h)
	}
	for _, tc := range []struct{ js, want, field string }{
		{`{"architecture": "bag-test", "hyperparameters": {"scal": 2}}`, `unknown field "scal"`, ""},
		{`{"architecture": "bag-test", "epochs": 2}`, `unknown field "epochs"`, ""},
		{`{"hyperparameters": {}}`, `no "architecture"`, ""},
		{`{"architecture": "bert"}`, `architecture "bert" is unknown`, ""},
		{`{"architecture": "bag-test", "training": {"epochs": "3"}}`, `field "training.epochs"`, ""},
		{`{"architecture": "bag-test",`, "at byte", ""},
		{`{"architecture": "bag-test"} {}`, "after top-level value", ""},
		{`{"architecture": "bag-test", "training": {"objective": "ranknet"}}`, `training.objective "ranknet"`, "training.objective"},
		{`{"architecture": "bag-test", "training": {"epochs": 0}}`, "training.epochs 0: must be at least 1", "training.epochs"},
		{`{"architecture": "bag-test", "training": {"lr": -1}}`, "training.lr -1", "training.lr"},
		{`{"architecture": "bag-test", "training": {"score_scale": 0}}`, "training.score_scale 0", "training.score_scale"},
		{`{"architecture": "bag-test", "training": {"distill": {"teacher": "wo", "weight": 1, "temperature": 1, "candidates": 1}}}`, "training.distill.candidates 1", "training.distill.candidates"},
		{`{"architecture": "bag-test", "encoder": "glove"}`, `encoder "glove"`, "encoder"},
		{`{"architecture": "bag-test", "hyperparameters": {"scale": -1}}`, "hyperparameters: scale -1", ""},
	} {
		_, err := model.ReadRecipe([]byte(tc.js))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.js, err, tc.want)
			continue
		}
		var fe *model.FieldError
		if tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field) {
			t.Errorf("%s: %v is not a FieldError for %s", tc.js, err, tc.field)
		}
	}
	// A file's errors name the file.
	path := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(path, []byte(`{"architecture": "bag-test", "extra": 1}`), 0o644)
	if _, err := model.LoadRecipe(path); err == nil || !strings.Contains(err.Error(), "recipe "+path+": ") || !strings.Contains(err.Error(), `"extra"`) {
		t.Errorf("LoadRecipe: %v", err)
	}
}

// TestRecipeOf: the recipe for training a model further holds the model's
// own hyperparameters.
func TestRecipeOf(t *testing.T) {
	r, _ := model.DefaultRecipe("bag-test", false, "")
	r.Hyper.(*bagHyper).Scale, r.Hyper.(*bagHyper).Tags, r.Hyper.(*bagHyper).Shift = 5, []int{7}, 0
	a, _ := model.Lookup("bag-test")
	m, err := a.New(r, encodertest.Static[float32](t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.RecipeOf(m, "listwise")
	if err != nil {
		t.Fatal(err)
	}
	if h := got.Hyper.(*bagHyper); h.Scale != 5 || !reflect.DeepEqual(h.Tags, []int{7}) || h.Shift != 0 || got.Training.Objective != "listwise" || got.Training.LR != 0.01 {
		t.Fatalf("RecipeOf: %+v %+v", got, h)
	}
}

// TestSettings: the flags' table has each recipe field once, with its
// type, and the architectures whose hyperparameter it is.
func TestSettings(t *testing.T) {
	byFlag := map[string]model.Setting{}
	for _, s := range model.Settings() {
		if _, dup := byFlag[s.Flag]; dup {
			t.Errorf("--%s twice", s.Flag)
		}
		byFlag[s.Flag] = s
		r, _ := model.LookupRecipe("bag-test")
		r.Training.Distill = model.DefaultDistillation("wo")
		if s.Archs == nil || slices.Contains(s.Archs, "bag-test") {
			if err := r.Set(s.Field, map[string]string{"bool": "true", "string": "static", "intSlice": "1"}[s.Type]); err != nil && !strings.Contains(err.Error(), "want") {
				t.Errorf("--%s: %v", s.Flag, err)
			}
		}
	}
	for flag, want := range map[string]model.Setting{
		"epochs": {Flag: "epochs", Field: "training.epochs", Type: "int", Common: true},
		"seed":   {Flag: "seed", Field: "training.seed", Type: "uint64", Common: true},
		"clip":   {Flag: "clip", Field: "training.clip", Type: "float64"},
		"scale":  {Flag: "scale", Field: "hyperparameters.scale", Type: "float64", Archs: []string{"bag-test"}},
		"tags":   {Flag: "tags", Field: "hyperparameters.tags", Type: "intSlice", Archs: []string{"bag-test"}},
	} {
		got := byFlag[flag]
		if want.Archs != nil && slices.Contains(got.Archs, "bag-test") {
			got.Archs = want.Archs // and those of the other architectures registered
		}
		got.Usage = ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--%s: %+v, want %+v", flag, got, want)
		}
	}
	if _, ok := byFlag["kind"]; ok {
		t.Error(`a field tagged recipe:"-" has a flag`)
	}
}

// TestSet: a field set by its JSON path from a flag's text.
func TestSet(t *testing.T) {
	for _, tc := range []struct {
		field, value, want string // want: an error's text, or "" and then check
		check              func(r model.Recipe) bool
	}{
		{"training.epochs", "7", "", func(r model.Recipe) bool { return r.Training.Epochs == 7 }},
		{"training.seed", "9", "", func(r model.Recipe) bool { return r.Training.Seed == 9 }},
		{"training.keep_best", "true", "", func(r model.Recipe) bool { return r.Training.KeepBest }},
		{"encoder", "use-lite", "", func(r model.Recipe) bool { return r.Encoder == "use-lite" }},
		{"hyperparameters.scale", "2.5", "", func(r model.Recipe) bool { return r.Hyper.(*bagHyper).Scale == 2.5 }},
		{"hyperparameters.tags", "3, 4", "", func(r model.Recipe) bool { return reflect.DeepEqual(r.Hyper.(*bagHyper).Tags, []int{3, 4}) }},
		{"training.distill.teacher", "wo", "", func(r model.Recipe) bool { return *r.Training.Distill == *model.DefaultDistillation("wo") }},
		{"training.epochs", "x", `training.epochs "x": want an integer`, nil},
		{"training.seed", "-1", "want an integer, 0 or more", nil},
		{"hyperparameters.tags", "1,x", "want integers, comma-separated", nil},
		{"hyperparameters.nope", "1", `no field "nope" here (there are scale, shift, tags)`, nil},
		{"hyperparameters.kind", "x", `no field "kind"`, nil},
		{"training", "1", "a group of fields", nil},
		{"architecture", "ca", "start from another architecture's recipe", nil},
		{"training.distill.weight", "2", "no teacher", nil},
	} {
		r, _ := model.LookupRecipe("bag-test")
		err := r.Set(tc.field, tc.value)
		switch {
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s=%s: error %v, want %q", tc.field, tc.value, err, tc.want)
		case tc.want == "" && (err != nil || !tc.check(r)):
			t.Errorf("%s=%s: %v, recipe %+v %+v", tc.field, tc.value, err, r.Training, r.Hyper)
		}
	}
	r, _ := model.LookupRecipe("bag-test")
	r.Set("training.distill.teacher", "wo")
	if r.Set("training.distill.weight", "3"); r.Training.Distill.Weight != 3 {
		t.Errorf("distill weight %+v", r.Training.Distill)
	}
	if r.Set("training.distill.teacher", ""); r.Training.Distill != nil {
		t.Errorf("an empty teacher left the distillation %+v", r.Training.Distill)
	}
}

// TestNotInRecipe: a field tagged recipe:"-" is left out of recipes,
// refused in one, and cleared from a model's.
func TestNotInRecipe(t *testing.T) {
	r, _ := model.LookupRecipe("bag-test")
	r.Hyper.(*bagHyper).Kind = "static"
	js, _ := r.MarshalIndent()
	if strings.Contains(string(js), "kind") {
		t.Errorf("the recipe writes kind:\n%s", js)
	}
	var fe *model.FieldError
	if err := r.Validate(); !errors.As(err, &fe) || fe.Field != "hyperparameters.kind" {
		t.Errorf("a recipe with kind set: %v", err)
	}
	if _, err := model.ReadRecipe([]byte(`{"architecture": "bag-test", "hyperparameters": {"kind": "x"}}`)); err == nil || !strings.Contains(err.Error(), "top-level") {
		t.Errorf("a recipe file with kind: %v", err)
	}
}
