package as2_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2"
)

// TestImportModelErrors: an unknown kind, hf without a folder and a
// checkpoint or package that is not there are errors naming what is
// wrong. (A real checkpoint is imported by cmd/as2's import test.)
func TestImportModelErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct{ kind, path, want string }{
		{"onnx", "", `import "onnx": want hf or use-lite`},
		{"hf", "", "hf: no checkpoint folder"},
		{"hf", missing, "missing"},
		{"use-lite", missing, "missing"},
	} {
		m, err := as2.ImportModel(tc.kind, tc.path)
		if err == nil || m != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, %v; want an error saying %q", tc.kind, tc.path, m, err, tc.want)
		}
	}
}
