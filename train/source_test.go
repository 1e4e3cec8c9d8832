package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/model"
	"github.com/as2/as2/model/cosinet"
)

// TestSourceRecipe: a run's recipe from a registered one, a recipe file or
// a model to train further, with fields set over it, and the errors of
// sources that contradict each other.
func TestSourceRecipe(t *testing.T) {
	dir := t.TempDir()
	vectors, other := filepath.Join(dir, "v.txt"), filepath.Join(dir, "other.txt")
	os.WriteFile(vectors, []byte("who 1 0 0 1\nwrote 0 1 0 1\nit 0 0 1 1\n"), 0o644)
	os.WriteFile(other, []byte("who 1 0 0 1\nsang 0 1 0 1\n"), 0o644)
	ca, _ := model.DefaultRecipe("ca", false, "")
	js, _ := ca.MarshalIndent()
	file := filepath.Join(dir, "ca.json")
	os.WriteFile(file, js, 0o644)
	small := recipe(t, "cosinet", "", func(r *model.Recipe) { r.Hyper.(*cosinet.Hyper).Filters, r.Hyper.(*cosinet.Hyper).Kernel = 3, 2 })
	m, err := NewModel(small, vectors, "glove", nil)
	if err != nil {
		t.Fatal(err)
	}
	init := filepath.Join(dir, "m.as2")
	if err := model.Save(init, m); err != nil {
		t.Fatal(err)
	}
	filters := func(n int) Set {
		return Set{By: "--filters", Field: "hyperparameters.filters", Value: strconv.Itoa(n), Archs: []string{"cosinet", "ca"}}
	}
	for _, tc := range []struct {
		name string
		src  Source
		want string // an error's text, or "" for a recipe that check accepts
		ok   func(r model.Recipe, m model.Trainable) bool
	}{
		{"registered", Source{Arch: "cosinet", Objective: "listwise", Sets: []Set{{By: "--epochs", Field: "training.epochs", Value: "2"}, filters(5)}}, "",
			func(r model.Recipe, m model.Trainable) bool {
				return m == nil && r.Training.Epochs == 2 && r.Training.Objective == "listwise" && r.Hyper.(*cosinet.Hyper).Filters == 5
			}},
		{"file", Source{File: file, Arch: "ca", ArchGiven: true, Objective: "listwise"}, "",
			func(r model.Recipe, _ model.Trainable) bool {
				return r.Architecture == "ca" && r.Training.Objective == "listwise"
			}},
		{"init", Source{Init: init, Embeddings: vectors, EmbeddingsFormat: "glove", Sets: []Set{{By: "--epochs", Field: "training.epochs", Value: "4"}}}, "",
			func(r model.Recipe, m model.Trainable) bool {
				return m != nil && r.Architecture == "cosinet" && r.Hyper.(*cosinet.Hyper).Filters == 3 && r.Training.Epochs == 4
			}},
		{"file and paper", Source{File: file, Paper: true}, "the paper's settings and the recipe", nil},
		{"file of another arch", Source{File: file, Arch: "cosinet", ArchGiven: true}, "is for ca", nil},
		{"unknown arch", Source{Arch: "bert"}, `architecture "bert" is unknown`, nil},
		{"not this arch", Source{Arch: "dual", Sets: []Set{filters(5)}}, "--filters does not apply to architecture dual (only to cosinet, ca)", nil},
		{"no teacher", Source{Arch: "cosinet", Sets: []Set{{By: "--set", Field: "training.distill.weight", Value: "2"}}}, ErrNoTeacher.Error(), nil},
		{"bad value", Source{Arch: "cosinet", Sets: []Set{{By: "--epochs", Field: "training.epochs", Value: "x"}}}, `--epochs "x": want an integer`, nil},
		{"init of another arch", Source{Init: init, Arch: "ca", ArchGiven: true}, "is a cosinet model, not a ca one", nil},
		{"init and hyperparameters", Source{Init: init, Sets: []Set{filters(5)}}, "keeps its architecture's settings", nil},
		{"init and paper", Source{Init: init, Paper: true}, "the paper's settings", nil},
		{"init with other vectors", Source{Init: init, Embeddings: other, EmbeddingsFormat: "glove"}, "a different vocabulary", nil},
		{"init not a model", Source{Init: vectors}, "model to train further: ", nil},
	} {
		r, m, err := tc.src.Recipe()
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil || !tc.ok(r, m) {
			t.Errorf("%s: %v: %+v", tc.name, err, r)
		}
	}
	_, _, err = Source{Arch: "cosinet", Sets: []Set{{By: "--x", Field: "training.distill.temperature", Value: "2"}}}.Recipe()
	if !errors.Is(err, ErrNoTeacher) {
		t.Errorf("no teacher: %v, want ErrNoTeacher", err)
	}
}

// TestExplain: a field's error names what set it.
func TestExplain(t *testing.T) {
	fe := func(field string) error {
		return fmt.Errorf("resolving: %w", &model.FieldError{Field: field, Value: 0, Want: "must be at least 1"})
	}
	src := Source{File: "r.json", ObjectiveBy: "--listwise", Sets: []Set{
		{By: "--epochs", Field: "training.epochs"}, {By: "--set", Field: "training.batch"}}}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fe("training.epochs"), "--epochs 0: must be at least 1"},
		{fe("training.batch"), "--set training.batch 0: must be at least 1"},
		{fe("training.objective"), "--listwise 0: must be at least 1"},
		{fe("training.lr"), "recipe r.json: resolving: training.lr 0: must be at least 1"},
		{errors.New("plain"), "plain"},
	} {
		if got := src.Explain(tc.err); got == nil || got.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.err, got, tc.want)
		}
	}
	if src.Explain(nil) != nil {
		t.Error("Explain(nil) is an error")
	}
}

// TestDevText: the dev measures of an epoch, and of the epoch a run kept.
func TestDevText(t *testing.T) {
	e1 := EpochResult{Epoch: 1, Dev: true, DevMAP: 0.5, DevMRR: 0.625}
	e2 := EpochResult{Epoch: 2, Dev: true, DevMAP: 0.25, DevMRR: 0.375, DevRetrievalMRR: 0.125}
	for _, tc := range []struct {
		sum  Summary
		want string
	}{
		{Summary{Epochs: []EpochResult{e1, e2}, Kept: 1}, "kept epoch 1 (dev MAP 0.5000  MRR 0.6250)"},
		{Summary{Epochs: []EpochResult{e1, e2}}, "dev MAP 0.2500  MRR 0.3750  dev-pool MRR 0.1250"},
		{Summary{Epochs: []EpochResult{{Epoch: 1}}}, ""},
	} {
		if got := tc.sum.DevText(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.sum, got, tc.want)
		}
	}
}

// TestFlagSets: given settings' flags come first, with their text and
// architectures, then --set's fields; a --set without "=" is refused.
func TestFlagSets(t *testing.T) {
	settings := []model.Setting{{Flag: "epochs", Field: "training.epochs"}, {Flag: "rnn", Field: "hyperparameters.rnn", Archs: []string{"cosinet"}}, {Flag: "lr", Field: "training.lr"}}
	flags := map[string]string{"rnn": "birnn", "epochs": "3"}
	given := func(f string) (string, bool) { v, ok := flags[f]; return v, ok }
	for _, tc := range []struct {
		sets []string
		want string // the Sets as By=Field:Value, or the error
	}{
		{nil, "--epochs=training.epochs:3 --rnn=hyperparameters.rnn:birnn"},
		{[]string{"training.clip=2", "encoder=a=b"}, "--epochs=training.epochs:3 --rnn=hyperparameters.rnn:birnn --set=training.clip:2 --set=encoder:a=b"},
		{[]string{"training.clip"}, `--set "training.clip": want FIELD=VALUE, FIELD a JSON path of --print-recipe's`},
	} {
		got, err := FlagSets(settings, given, tc.sets)
		var s []string
		for _, set := range got {
			s = append(s, set.By+"="+set.Field+":"+set.Value)
		}
		text := strings.Join(s, " ")
		if err != nil {
			text = err.Error()
		}
		if text != tc.want {
			t.Errorf("FlagSets(%q) = %s, want %s", tc.sets, text, tc.want)
		}
	}
	if got, _ := FlagSets(settings, given, nil); len(got) < 2 || !slices.Equal(got[1].Archs, []string{"cosinet"}) {
		t.Errorf("FlagSets: %+v, want the rnn flag's architectures kept", got)
	}
}
