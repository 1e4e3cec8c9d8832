package catalog

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestDataDirPrecedence: $AS2_DATA, else the per-user folder, whatever
// the current directory holds.
func TestDataDirPrecedence(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the per-user folder is set through $XDG_CACHE_HOME on Linux only")
	}
	tmp := t.TempDir()
	// A ../shared/data beside the current directory (as beside a checkout
	// of the repository) must not matter.
	shared, cache, env := filepath.Join(tmp, "shared", "data"), filepath.Join(tmp, "cache"), filepath.Join(tmp, "env")
	repo := filepath.Join(tmp, "repo")
	os.MkdirAll(repo, 0o755)
	t.Chdir(repo)
	t.Setenv("XDG_CACHE_HOME", cache)
	user := filepath.Join(cache, "as2", "data")
	for _, tc := range []struct {
		name                string
		as2Data             string
		sharedExists        bool
		wantData, wantFetch string
	}{
		{"nothing", "", false, user, user},
		{"../shared/data exists", "", true, user, user},
		{"AS2_DATA first", env, true, env, env},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AS2_DATA", tc.as2Data)
			os.RemoveAll(shared)
			if tc.sharedExists {
				os.MkdirAll(shared, 0o755)
			}
			if got := DataDir(); got != tc.wantData {
				t.Errorf("DataDir %s, want %s", got, tc.wantData)
			}
			if got, err := DownloadDir(); err != nil || got != tc.wantFetch {
				t.Errorf("DownloadDir %s (%v), want %s", got, err, tc.wantFetch)
			}
		})
	}
}

func TestDefaultEmbeddings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("AS2_DATA", dir)
	emb := filepath.Join(dir, "embeddings")
	if got, want := DefaultEmbeddings(), filepath.Join(emb, Embeddings[0]); got != want {
		t.Errorf("none present: %s, want %s", got, want)
	}
	os.MkdirAll(emb, 0o755)
	os.WriteFile(filepath.Join(emb, Embeddings[1]), []byte("{}"), 0o644)
	if got, want := DefaultEmbeddings(), filepath.Join(emb, Embeddings[1]); got != want {
		t.Errorf("wink JSON only: %s, want %s", got, want)
	}
	os.WriteFile(filepath.Join(emb, Embeddings[0]), nil, 0o644)
	if got, want := DefaultEmbeddings(), filepath.Join(emb, Embeddings[0]); got != want {
		t.Errorf("both: %s, want %s", got, want)
	}
}
