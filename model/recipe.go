package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/text/jsonerr"
)

// Recipe is how to build and train a model, as typed values: the
// architecture, its hyperparameters (a pointer to the architecture's own
// struct, e.g. *cosinet.Hyper, whose fields a Go program sets directly),
// the token encoder and the training settings. It is written and read as
// JSON (as2 train --print-recipe and --recipe), so that a run can be
// repeated from a file rather than from a command line.
type Recipe struct {
	Architecture string `json:"architecture"`
	// Encoder is the token encoder: "static" (word vectors), "use-lite",
	// "use-lite:PATH" or "hf:DIR" (a BERT-family Hugging Face checkpoint).
	Encoder string `json:"encoder"`
	// Hyper is a pointer to the architecture's hyperparameters: the same
	// JSON as a model file's "hyperparameters".
	Hyper    any          `json:"hyperparameters"`
	Training TrainingSpec `json:"training"`
}

// TrainingSpec is a recipe's training settings, as JSON can hold them: the
// objective by name rather than as a value (see Training for the values
// that train.Train takes).
type TrainingSpec struct {
	// Objective is one of Objectives or InBatchObjectives.
	Objective string `json:"objective"`
	// ScoreScale multiplies the scores before a candidate objective (1:
	// none); cosine scorers want 10 to 20 under listwise.
	ScoreScale float64 `json:"score_scale"`
	Epochs     int     `json:"epochs"`
	LR         float64 `json:"lr"`
	Batch      int     `json:"batch"`
	Clip       float64 `json:"clip"` // global gradient-norm clip; 0: none
	Negatives  int     `json:"negatives"`
	// KeepBest keeps the epoch with the best dev measure when the run has
	// a dev set; without one the last epoch is kept.
	KeepBest bool   `json:"keep_best"`
	Seed     uint64 `json:"seed"`
	// Distill, when set, adds a teacher's scores to the objective.
	Distill *Distillation `json:"distill,omitempty"`
}

// Distillation is a teacher whose scores the model also learns, by the KL
// divergence of their softmaxes (Hinton et al. 2015).
type Distillation struct {
	// Teacher is a ranker spec: a model file, builtin or a rule name.
	Teacher     string  `json:"teacher"`
	Weight      float64 `json:"weight"`
	Temperature float64 `json:"temperature"`
	// Candidates is, under an in-batch objective, how many answers the
	// teacher scores per question (0: the whole batch).
	Candidates int `json:"candidates"`
}

// DefaultDistillation is a distillation's settings when only the teacher
// is given.
func DefaultDistillation(teacher string) *Distillation {
	return &Distillation{Teacher: teacher, Weight: 1, Temperature: 1, Candidates: 8}
}

// FieldError is a recipe field with a value it cannot have. Field is the
// JSON path, e.g. "training.epochs", so that a command can name the flag
// or the file that set it.
type FieldError struct {
	Field string
	Value any
	Want  string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s %v: %s", e.Field, e.Value, e.Want) }

// DefaultObjective is the objective of a recipe that names none.
const DefaultObjective = "pointwise"

// DefaultRecipe is the registered recipe of architecture arch, as2's or
// (paper) the paper's, under the named objective ("" for
// DefaultObjective): the training settings depend on it (Cosinet's
// learning rate does).
func DefaultRecipe(arch string, paper bool, objective string) (Recipe, error) {
	a, err := Lookup(arch)
	if err != nil {
		return Recipe{}, err
	}
	if objective == "" {
		objective = DefaultObjective
	}
	var obj Objective
	if !slices.Contains(InBatchObjectives, objective) {
		if obj, err = ParseObjective(objective); err != nil {
			return Recipe{}, objectiveError(objective)
		}
	}
	r := a.Recipe(paper, obj)
	r.Training.Objective = objective
	return r, nil
}

// objectiveError is the error of an objective that is neither a candidate
// objective nor an in-batch one.
func objectiveError(name string) error {
	return &FieldError{Field: "training.objective", Value: strconv.Quote(name),
		Want: "want one of " + strings.Join(slices.Concat(Objectives, InBatchObjectives), ", ")}
}

// paperSuffix names a registered recipe's paper form: "cosinet-paper".
const paperSuffix = "-paper"

// LookupRecipe returns the registered recipe called name: an
// architecture's name for as2's recipe, or the name with "-paper" for the
// paper's, under DefaultObjective.
func LookupRecipe(name string) (Recipe, error) {
	arch, paper := strings.CutSuffix(name, paperSuffix)
	r, err := DefaultRecipe(arch, paper, "") // fails only on an unknown architecture
	if err != nil {
		return Recipe{}, fmt.Errorf("recipe %q is unknown to this as2 (it knows %s)", name, strings.Join(RecipeNames(), ", "))
	}
	return r, nil
}

// RecipeNames lists the registered recipes.
func RecipeNames() []string {
	var out []string
	for _, n := range Names() {
		out = append(out, n, n+paperSuffix)
	}
	return out
}

// Validate checks r: the architecture, the hyperparameters (by the
// architecture's own checks), the encoder and the training settings. Its
// errors are *FieldError where a field is at fault.
func (r Recipe) Validate() error {
	a, err := Lookup(r.Architecture)
	if err != nil {
		return &FieldError{Field: "architecture", Value: fmt.Sprintf("%q", r.Architecture), Want: err.Error()}
	}
	if err := notInRecipe(r.Hyper, false); err != nil {
		return err
	}
	if err := a.validate(r.Hyper); err != nil {
		return fmt.Errorf("hyperparameters: %w", err)
	}
	if !validEncoder(r.Encoder) {
		return &FieldError{Field: "encoder", Value: fmt.Sprintf("%q", r.Encoder), Want: "want static, use-lite[:PATH] or hf:DIR"}
	}
	return r.Training.Validate()
}

func validEncoder(s string) bool {
	return s == encoder.StaticKind || s == "use-lite" || strings.HasPrefix(s, "use-lite:") || (strings.HasPrefix(s, "hf:") && len(s) > 3)
}

// Validate checks the training settings' ranges; which combinations a run
// allows (an objective with a teacher, a dev set with KeepBest) is the
// business of package train.
func (t TrainingSpec) Validate() error {
	f := func(field string, v any, want string) error {
		return &FieldError{Field: "training." + field, Value: v, Want: want}
	}
	switch {
	case !slices.Contains(Objectives, t.Objective) && !slices.Contains(InBatchObjectives, t.Objective):
		return objectiveError(t.Objective)
	case !(t.ScoreScale > 0 && t.ScoreScale <= 1e3):
		return f("score_scale", t.ScoreScale, "want more than 0, at most 1000")
	case t.Epochs < 1:
		return f("epochs", t.Epochs, "must be at least 1")
	case t.Batch < 1:
		return f("batch", t.Batch, "must be at least 1")
	case !(t.LR > 0 && t.LR <= 1e3):
		return f("lr", t.LR, "must be positive, at most 1000")
	case !(t.Clip >= 0):
		return f("clip", t.Clip, "must be 0 (none) or positive")
	case t.Negatives < 0:
		return f("negatives", t.Negatives, "must be 0 (all) or positive")
	}
	if d := t.Distill; d != nil {
		switch {
		case d.Teacher == "":
			return f("distill.teacher", `""`, "want a ranker: a model file, builtin or a rule name")
		case d.Candidates == 1 || d.Candidates < 0:
			return f("distill.candidates", d.Candidates, "want 0 (the whole batch) or at least 2 (a question's own answer and one other)")
		case !(d.Weight > 0 && d.Weight <= 1e3):
			return f("distill.weight", d.Weight, "want more than 0, at most 1000")
		case !(d.Temperature > 0 && d.Temperature <= 1e3):
			return f("distill.temperature", d.Temperature, "want more than 0, at most 1000")
		}
	}
	return nil
}

// MarshalJSON writes every hyperparameter, those whose JSON tag says
// omitempty included: a recipe read back starts from the registered
// values, so a zero value left out would come back as the registered one.
func (r Recipe) MarshalJSON() ([]byte, error) {
	type plain Recipe // without this method
	p := plain(r)
	p.Hyper = complete(r.Hyper)
	return json.Marshal(p)
}

// complete returns v, a struct or a pointer to one, as a struct of a type
// whose JSON tags have no omitempty or omitzero, without the fields tagged
// `recipe:"-"` (see notInRecipe); v itself where it cannot.
func complete(v any) any {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return v
	}
	t := rv.Type()
	var fields []reflect.StructField
	var from []int
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			return v
		}
		if f.Tag.Get("recipe") == "-" {
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		if !ok {
			tag = f.Name
		}
		parts := strings.Split(tag, ",")
		keep := parts[:1]
		for _, o := range parts[1:] {
			if o != "omitempty" && o != "omitzero" {
				keep = append(keep, o)
			}
		}
		f.Tag = reflect.StructTag(fmt.Sprintf("json:%q", strings.Join(keep, ",")))
		fields, from = append(fields, f), append(from, i)
	}
	out := reflect.New(reflect.StructOf(fields)).Elem()
	for i, j := range from {
		out.Field(i).Set(rv.Field(j))
	}
	return out.Interface()
}

// notInRecipe checks that hyper's fields tagged `recipe:"-"` are zero.
// Such a field is one a model records of what it was built over (its
// encoder's kind), which a recipe names once, at its top: clear zeroes
// them, and a recipe that sets one is refused rather than left to
// disagree with the top.
func notInRecipe(hyper any, clear bool) error {
	rv := reflect.ValueOf(hyper)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil
	}
	rv = rv.Elem()
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		if f.Tag.Get("recipe") != "-" || rv.Field(i).IsZero() {
			continue
		}
		if clear {
			rv.Field(i).SetZero()
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return &FieldError{Field: "hyperparameters." + name, Value: fmt.Sprintf("%q", rv.Field(i).Interface()),
			Want: "not a recipe's field: the recipe's top-level \"" + name + "\" names it"}
	}
	return nil
}

// MarshalIndent is r as a recipe file holds it.
func (r Recipe) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ReadRecipe reads a recipe's JSON. Fields left out take the values of the
// registered recipe for the architecture and objective the JSON names (as2's
// recipe, under DefaultObjective when it names none); an unknown field is
// an error naming it. The recipe is validated.
func ReadRecipe(js []byte) (Recipe, error) {
	var head struct {
		Architecture *string `json:"architecture"`
		Training     struct {
			Objective string `json:"objective"`
		} `json:"training"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return Recipe{}, jsonerr.Locate(err)
	}
	if head.Architecture == nil {
		return Recipe{}, errors.New(`no "architecture": a recipe names one (` + strings.Join(Names(), ", ") + ")")
	}
	r, err := DefaultRecipe(*head.Architecture, false, head.Training.Objective)
	if err != nil {
		return Recipe{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	// Hyper holds a non-nil *H: encoding/json decodes into what it points to.
	if err := dec.Decode(&r); err != nil {
		return Recipe{}, jsonerr.Locate(err)
	}
	if err := r.Validate(); err != nil {
		return Recipe{}, err
	}
	return r, nil
}

// LoadRecipe reads the recipe file at path (see ReadRecipe).
func LoadRecipe(path string) (Recipe, error) {
	js, err := os.ReadFile(path)
	if err != nil {
		return Recipe{}, err
	}
	r, err := ReadRecipe(js)
	if err != nil {
		return Recipe{}, fmt.Errorf("recipe %s: %w", path, err)
	}
	return r, nil
}

// RecipeOf is the registered recipe of m's architecture under the named
// objective, with m's own hyperparameters: the recipe for training m
// further (transfer learning).
func RecipeOf(m Model, objective string) (Recipe, error) {
	cfg := m.Config()
	r, err := DefaultRecipe(cfg.Architecture, false, objective)
	if err != nil {
		return Recipe{}, err
	}
	// A file leaves zero values out (omitempty): read it over zeros, not
	// over the registered values.
	h := reflect.New(reflect.TypeOf(r.Hyper).Elem()).Interface()
	if err := json.Unmarshal(cfg.Hyper, h); err != nil {
		return Recipe{}, fmt.Errorf("%s model's hyperparameters: %w", cfg.Architecture, err)
	}
	notInRecipe(h, true) // the top-level encoder names it
	r.Hyper = h
	// The model keeps its encoder; the recipe names it where a name can
	// (a checkpoint's folder is not recorded).
	if k := cfg.Encoder.Kind; k == encoder.StaticKind || k == "use-lite" {
		r.Encoder = k
	}
	return r, nil
}
