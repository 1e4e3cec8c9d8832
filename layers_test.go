package as2_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers is the pipeline, bottom first: a package may import packages of
// its own top-level folder and of the folders before it, never after. The
// root package (the front door, "") and the command sit above everything.
// A new top-level folder must be placed here, or this test fails.
var layers = []string{
	"version", "internal", "kernel", "safetensors", // no as2 imports
	"text",
	"dataset", "metric", "trec",
	"rank", "trigger", "embed", "index", "evaluation",
	"nn", "encoder", "model",
	"train", "serve", "bench", "regression",
	"", // the front door: package as2
	"cmd",
}

const module = "github.com/as2/as2"

// TestImportsRunDown fails on an import that runs up the layers, naming the
// file, so that the layout stays the architecture.
func TestImportsRunDown(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		// Test files may import test helpers above their package (an
		// external test of encoder imports encoder/encodertest): only what
		// is built into a program is layered.
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		from := top(filepath.ToSlash(filepath.Dir(path)))
		fromLayer := slices.Index(layers, from)
		if fromLayer < 0 {
			t.Errorf("%s: top-level folder %q is not in layers: place it in the pipeline", path, from)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			checked++
			to := top(strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
			toLayer := slices.Index(layers, to)
			if to != from && (toLayer < 0 || toLayer > fromLayer) {
				t.Errorf("%s imports %s: %q sits above %q in the layers", path, p, to, from)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d imports: the walk missed the tree", checked)
	}
}

// top is the top-level folder of a module-relative directory ("" for the
// root).
func top(dir string) string {
	if dir == "." {
		return ""
	}
	first, _, _ := strings.Cut(dir, "/")
	return first
}

// TestLayersCatchAnUpwardImport shows the test can fail: nn importing model
// is refused.
func TestLayersCatchAnUpwardImport(t *testing.T) {
	if from, to := slices.Index(layers, "nn"), slices.Index(layers, "model"); to <= from {
		t.Fatalf("model (%d) should sit above nn (%d)", to, from)
	}
	if top("model/builtin") != "model" || top(".") != "" {
		t.Fatal("top")
	}
}
