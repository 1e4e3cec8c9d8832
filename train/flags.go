package train

import (
	"fmt"

	"github.com/as2/as2/model"
)

// Flags are as2 train's flags that choose the recipe, as the command line
// gives them; Source turns them into a Source, its errors naming them.
type Flags struct {
	Arch, RecipeFile, Init, InitEncoder string
	Embeddings, EmbeddingsFormat        string
	Objective                           string
	Paper, Listwise                     bool
	Sets                                []string // --set FIELD=VALUE
	// Settings are the recipe fields that have flags of their own
	// (model.Settings).
	Settings []model.Setting
}

// Source is the Source the flags give; given reports a flag's text and
// whether it was given (--arch, --model, --objective and the Settings').
func (f Flags) Source(given func(flag string) (text string, ok bool)) (Source, error) {
	changed := func(flag string) bool { _, ok := given(flag); return ok }
	src := Source{File: f.RecipeFile, Init: f.Init, Arch: f.Arch, ArchGiven: changed("arch") || changed("model"),
		Paper: f.Paper, Embeddings: f.Embeddings, EmbeddingsFormat: f.EmbeddingsFormat}
	if changed("objective") {
		src.Objective, src.ObjectiveBy = f.Objective, "--objective"
	}
	if f.Listwise {
		src.Objective, src.ObjectiveBy = "listwise", "--listwise"
	}
	switch _, err := model.Lookup(f.Arch); {
	case f.Listwise && changed("objective") && f.Objective != "listwise":
		return src, fmt.Errorf("--listwise and --objective %s: give one", f.Objective)
	case f.InitEncoder != "" && f.Init != "":
		return src, fmt.Errorf("--init-encoder: not with --init, whose model keeps its own encoder")
	case err != nil && f.RecipeFile == "" && f.Init == "":
		return src, fmt.Errorf("--arch: %w", err)
	}
	sets, err := FlagSets(f.Settings, given, f.Sets)
	src.Sets = sets
	return src, err
}
