package model_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/as2/as2/model"
	_ "github.com/as2/as2/model/all"
)

// TestCommittedFilesLoad: the model files in the repository (the built-in
// models, any testdata) still load, and each one's hyperparameters read
// strictly into its architecture's recipe, so that a recipe can describe
// every model written before recipes were.
func TestCommittedFilesLoad(t *testing.T) {
	var files []string
	for _, pattern := range []string{"builtin/*.as2", "*/testdata/*.as2", "testdata/*.as2", "../*/testdata/*.as2"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 2 {
		t.Fatalf("model files %v: want at least the two built-in ones", files)
	}
	for _, f := range files {
		m, err := model.Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		cfg := m.Config()
		if _, err := model.Lookup(cfg.Architecture); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		r, err := model.DefaultRecipe(cfg.Architecture, false, "")
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(cfg.Hyper))
		dec.DisallowUnknownFields()
		if err := dec.Decode(r.Hyper); err != nil {
			t.Errorf("%s: hyperparameters %s do not read into the %s recipe: %v", f, cfg.Hyper, cfg.Architecture, err)
		}
		of, err := model.RecipeOf(m, "")
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		// The recipe's hyperparameters write back as the file has them.
		js, _ := json.Marshal(of.Hyper)
		var a, b map[string]any
		json.Unmarshal(js, &a)
		json.Unmarshal(cfg.Hyper, &b)
		// The encoder's kind, which the file records in its
		// hyperparameters, the recipe names once, at its top.
		if kind, ok := b["encoder"].(string); ok {
			if kind != cfg.Encoder.Kind || of.Encoder != kind && (kind == "static" || kind == "use-lite") {
				t.Errorf("%s: the hyperparameters' encoder %q, the file's encoder %s, the recipe's %s", f, kind, cfg.Encoder.Kind, of.Encoder)
			}
			delete(a, "encoder")
			delete(b, "encoder")
		}
		if ja, _ := json.Marshal(a); string(ja) != mustCanon(t, b) {
			t.Errorf("%s: recipe hyperparameters %s, the file's %s", f, js, cfg.Hyper)
		}
	}
	if _, err := os.Stat("builtin/default.as2"); err != nil {
		t.Fatal(err)
	}
}

func mustCanon(t *testing.T, v any) string {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}
