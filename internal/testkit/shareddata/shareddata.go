// Package shareddata finds the real benchmarks for tests: $AS2_DATA, or
// ../shared/data beside the module root. Tests that need them call Dir,
// which skips the test with a clear message when they are absent, so that
// `go test ./...` passes on a machine without them.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the data folder, or skips t.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("AS2_DATA"); d != "" {
		if _, err := os.Stat(d); err == nil {
			return d
		}
		t.Skipf("AS2_DATA=%s not found: skipping a test on the real benchmarks", d)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Skipf("no working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if _, err := os.Stat(d); err != nil {
				t.Skipf("%s not found: skipping a test on the real benchmarks (they live in ../shared beside the repository)", d)
			}
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found: skipping a test on the real benchmarks")
		}
		dir = parent
	}
}
