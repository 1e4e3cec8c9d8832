// Package shareddata finds the project's shared files for tests: the real
// benchmarks ($AS2_DATA, or ../shared/data beside the module root) and the
// other files in ../shared ($AS2_SHARED): models, vocabularies. Tests that
// need them call Dir or File, which skip the test with a clear message when
// they are absent, so that `go test ./...` passes on a machine without them;
// their messages start with SkipDataPrefix so that a summary of the run
// (`regress tests`) says how many were skipped. Tier guards the tests of the
// tiers above unit.
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
		t.Skipf(SkipDataPrefix+"AS2_DATA=%s not found: skipping a test on the real benchmarks", d)
	}
	return File(t, "data")
}

// File returns the path of rel (slash-separated) under the shared folder,
// or skips t when it does not exist.
func File(t testing.TB, rel string) string {
	t.Helper()
	root, err := root()
	if err != nil {
		t.Skipf(SkipDataPrefix+"%v: skipping a test on shared files", err)
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf(SkipDataPrefix+"%s not found: skipping a test on shared files (they live in ../shared beside the repository, or $AS2_SHARED; `as2 data get` fetches the benchmarks)", p)
	}
	return p
}

// root is $AS2_SHARED, or ../shared beside the module root.
func root() (string, error) {
	if d := os.Getenv("AS2_SHARED"); d != "" {
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
