package embed

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/as2/as2/internal/shareddata"
)

const as2Vocab = "embeddings/glove.6B.100d.wink.as2-vocab.txt.gz"

// The as2-vocab subset of GloVe 6B 100d from ../shared: its size, a known
// vector, its gaps, and a compact copy that loads back identical.
func TestRealGloVe(t *testing.T) {
	path := filepath.Join(shareddata.Dir(t), as2Vocab)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found: skipping the real-embeddings test", path)
	}
	start := time.Now()
	v, err := Load(path, "auto")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GloVe text (gzip), %d words x %d: loaded in %v", v.Len(), v.Dim, time.Since(start))
	if v.Len() != 69885 || v.Dim != 100 {
		t.Fatalf("%d words x %d, want 69885 x 100", v.Len(), v.Dim)
	}
	the, ok := v.Lookup("the")
	if !ok || the[0] != -0.038194 || the[1] != -0.24487 || the[2] != 0.72812 {
		t.Fatalf("the = %v...", the[:3])
	}
	// PROVENANCE.md: wink dropped single letters, 's and numbers.
	for _, w := range []string{"a", "i", "'s", "2010"} {
		if _, ok := v.Lookup(w); ok {
			t.Errorf("%q has a vector: PROVENANCE.md says it should not", w)
		}
	}
	if c := Cosine(lookup(t, v, "king"), lookup(t, v, "queen")); c < 0.6 {
		t.Errorf("cos(king, queen) = %v", c)
	}
	t.Logf("identity %s", v.Identity())

	out := filepath.Join(t.TempDir(), "glove.as2emb")
	if err := Save(out, v); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(out)
	start = time.Now()
	back, err := Load(out, "auto")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compact (%d bytes): loaded in %v", fi.Size(), time.Since(start))
	sameTable(t, back, v)
}

func lookup(t *testing.T, v *Vectors, w string) []float32 {
	t.Helper()
	x, ok := v.Lookup(w)
	if !ok {
		t.Fatalf("no vector for %q", w)
	}
	return x
}

// BenchmarkLoadCompact loads the compact form of the real as2-vocab table
// (converted once per run, when ../shared is there; b.Loop runs the
// function once) and of a synthetic table the
// size of the whole wink set, 341,479 x 100.
func BenchmarkLoadCompact(b *testing.B) {
	b.Run("as2-vocab-69885x100", func(b *testing.B) {
		path := filepath.Join(shareddata.Dir(b), as2Vocab)
		if _, err := os.Stat(path); err != nil {
			b.Skipf("%s not found", path)
		}
		v, err := Load(path, "glove")
		if err != nil {
			b.Fatal(err)
		}
		out := filepath.Join(b.TempDir(), "as2-vocab.as2emb")
		if err := Save(out, v); err != nil {
			b.Fatal(err)
		}
		benchLoad(b, out)
	})
	b.Run("synthetic-341479x100", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "big.as2emb")
		if err := Save(path, randomTable(b, 341479, 100, 9)); err != nil {
			b.Fatal(err)
		}
		benchLoad(b, path)
	})
}

func benchLoad(b *testing.B, path string) {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		if _, err := Load(path, "as2"); err != nil {
			b.Fatal(err)
		}
	}
}
