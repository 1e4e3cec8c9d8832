package train

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/as2/as2/embed"
	"github.com/as2/as2/model"
)

// Source is where a run's recipe comes from, as a command line gives it:
// a recipe file, a model to train further, or else the registered recipe
// of an architecture; then the objective and the fields set over it.
type Source struct {
	File string // a recipe file (see model.LoadRecipe), or ""
	// Init is a model file to train further (transfer learning): its
	// architecture, hyperparameters and encoder are the recipe's.
	Init string
	// Arch is the architecture: the registered recipe's where neither
	// File nor Init gives one, else (when ArchGiven) a check on theirs.
	Arch      string
	ArchGiven bool
	Paper     bool   // the paper's registered recipe rather than as2's
	Objective string // "" for the recipe's own (DefaultObjective for a registered one)
	// ObjectiveBy is what asked for Objective, which errors name.
	ObjectiveBy string
	// Embeddings, with Init, is a word-vector file (of EmbeddingsFormat)
	// that must be the one the model was trained with.
	Embeddings, EmbeddingsFormat string
	Sets                         []Set // set over the recipe, in order
}

// Set is a recipe field to set from text (see model.Recipe.Set), with
// what asked for it, which its errors name (e.g. "--epochs"; "--set" names
// the field too).
type Set struct {
	By, Field, Value string
	// Archs are the architectures that have the field; nil: all.
	Archs []string
}

// ErrNoTeacher is the error of setting a distillation's field on a recipe
// without a teacher.
var ErrNoTeacher = errors.New("the recipe has no teacher (training.distill.teacher) for its distillation settings")

// Recipe is the run's recipe, and with Init the model to train further.
// Errors where a field is at fault are *model.FieldError.
func (s Source) Recipe() (r model.Recipe, m model.Trainable, err error) {
	switch {
	case s.File != "" && s.Paper:
		return r, nil, fmt.Errorf("the paper's settings and the recipe %s: the settings come from the recipe", s.File)
	case s.File != "":
		if r, err = model.LoadRecipe(s.File); err != nil {
			return r, nil, err
		}
		if s.ArchGiven && s.Arch != r.Architecture {
			return r, nil, fmt.Errorf("architecture %s: the recipe %s is for %s", s.Arch, s.File, r.Architecture)
		}
		if s.Objective != "" {
			r.Training.Objective = s.Objective
		}
	case s.Init == "":
		if r, err = model.DefaultRecipe(s.Arch, s.Paper, s.Objective); err != nil {
			return r, nil, s.Explain(err)
		}
	}
	if s.Init != "" {
		if m, err = s.initModel(); err != nil {
			return r, nil, err
		}
		of, err := model.RecipeOf(m, s.Objective)
		switch {
		case err != nil:
			return r, nil, fmt.Errorf("%s: %w", s.Init, err)
		case s.File == "":
			r = of
		case r.Architecture != of.Architecture:
			return r, nil, fmt.Errorf("the recipe %s is for %s, the model %s is a %s model", s.File, r.Architecture, s.Init, of.Architecture)
		default:
			r.Hyper, r.Encoder = of.Hyper, of.Encoder // the model's own
		}
	}
	for _, set := range s.Sets {
		switch {
		case set.Archs != nil && !slices.Contains(set.Archs, r.Architecture):
			return r, nil, fmt.Errorf("%s does not apply to architecture %s (only to %s)", set.By, r.Architecture, strings.Join(set.Archs, ", "))
		case s.Init != "" && (set.Field == "encoder" || strings.HasPrefix(set.Field, "hyperparameters.")):
			return r, nil, fmt.Errorf("%s: the model %s keeps its architecture's settings and its encoder; leave it out", set.By, s.Init)
		case set.Field != "training.distill.teacher" && strings.HasPrefix(set.Field, "training.distill.") && r.Training.Distill == nil:
			return r, nil, fmt.Errorf("%s: %w", set.By, ErrNoTeacher)
		}
		if err := r.Set(set.Field, set.Value); err != nil {
			var fe *model.FieldError
			if errors.As(err, &fe) {
				return r, nil, explain(set.By, fe)
			}
			return r, nil, fmt.Errorf("%s: %w", set.By, err)
		}
	}
	return r, m, nil
}

// initModel loads Init and checks it against the source.
func (s Source) initModel() (model.Trainable, error) {
	loaded, err := model.Load(s.Init)
	if err != nil {
		return nil, fmt.Errorf("model to train further: %w", err)
	}
	m, ok := loaded.(model.Trainable)
	cfg := loaded.Config()
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: a %s model cannot be trained further", s.Init, cfg.Architecture)
	case s.ArchGiven && s.Arch != cfg.Architecture:
		return nil, fmt.Errorf("%s is a %s model, not a %s one", s.Init, cfg.Architecture, s.Arch)
	case s.Paper:
		return nil, fmt.Errorf("the paper's settings: the settings of a model trained further are its own (%s)", s.Init)
	case s.Embeddings == "":
		return m, nil
	}
	vecs, err := embed.Load(s.Embeddings, s.EmbeddingsFormat)
	if err != nil {
		return nil, err
	}
	if id := vecs.Identity(); id != cfg.Encoder.Identity {
		return nil, fmt.Errorf("word vectors %s (%s) are not those %s was trained with (%s): a different vocabulary; leave them out to use the model's", s.Embeddings, id, s.Init, cfg.Encoder.Identity)
	}
	return m, nil
}

// Explain names, in err, what set the recipe's field at fault: the last
// Set of it, ObjectiveBy, or else the recipe file.
func (s Source) Explain(err error) error {
	var fe *model.FieldError
	if err == nil || !errors.As(err, &fe) {
		return err
	}
	by := ""
	if fe.Field == "training.objective" {
		by = s.ObjectiveBy
	}
	for _, set := range s.Sets {
		if set.Field == fe.Field {
			by = set.By
		}
	}
	switch {
	case by != "":
		return explain(by, fe)
	case s.File != "" && !strings.Contains(err.Error(), s.File):
		return fmt.Errorf("recipe %s: %w", s.File, err)
	}
	return err
}

func explain(by string, fe *model.FieldError) error {
	if by == "--set" {
		by += " " + fe.Field
	}
	return fmt.Errorf("%s %v: %s", by, fe.Value, fe.Want)
}

// FlagSets are the Sets a command line gives: those of the settings whose
// flag given reports (with the flag's text), then the FIELD=VALUE texts of
// --set, in order.
func FlagSets(settings []model.Setting, given func(flag string) (text string, ok bool), sets []string) ([]Set, error) {
	var out []Set
	for _, s := range settings {
		if text, ok := given(s.Flag); ok {
			out = append(out, Set{By: "--" + s.Flag, Field: s.Field, Value: text, Archs: s.Archs})
		}
	}
	for _, kv := range sets {
		field, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("--set %q: want FIELD=VALUE, FIELD a JSON path of --print-recipe's", kv)
		}
		out = append(out, Set{By: "--set", Field: field, Value: value})
	}
	return out, nil
}
