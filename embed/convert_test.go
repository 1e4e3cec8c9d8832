package embed

import (
	"os"
	"path/filepath"
	"testing"
)

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	glove := filepath.Join(dir, "v.txt")
	if err := os.WriteFile(glove, []byte("the 0.5 -1 2\nzürich 1e-3 0 -0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "v.emb")
	c, err := Convert(glove, "auto", out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Load(glove, "glove")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(out, "as2")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Words != 2 || c.Dim != 3 || c.Size != st.Size() || c.Identity != want.Identity() || got.Identity() != want.Identity() {
		t.Errorf("Convert = %+v; file %d bytes, identity %s (read back %s)", c, st.Size(), want.Identity(), got.Identity())
	}

	for _, tc := range []struct {
		name, from, format, out string
		read                    bool // the source was read
	}{
		{"missing source", filepath.Join(dir, "none.txt"), "auto", filepath.Join(dir, "a.emb"), false},
		{"missing output folder", glove, "auto", filepath.Join(dir, "no", "such", "dir", "b.emb"), true},
		{"wrong format", glove, "as2", filepath.Join(dir, "c.emb"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Convert(tc.from, tc.format, tc.out)
			if err == nil || (c.Identity != "") != tc.read {
				t.Errorf("Convert(%s, %s, %s) = %+v, %v; want an error, source read %v", tc.from, tc.format, tc.out, c, err, tc.read)
			}
			if _, statErr := os.Stat(tc.out); statErr == nil {
				t.Errorf("%s was written", tc.out)
			}
		})
	}
}
