package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: a write that succeeds replaces the file, one that fails or
// whose temporary file RemovePending deletes leaves the old file as it
// was and no temporary file, and "-" writes to stdout.
func TestWrite(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		write func(io.Writer) error
		want  string // the file's content after
		err   bool
	}{
		{"ok", func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }, "new", false},
		{"failed", func(w io.Writer) error { io.WriteString(w, "half"); return boom }, "old", true},
		{"interrupted", func(w io.Writer) error { io.WriteString(w, "half"); RemovePending(); return nil }, "old", true},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.txt")
		os.WriteFile(path, []byte("old"), 0o644)
		err := Write(path, nil, tc.write)
		got, _ := os.ReadFile(path)
		if (err != nil) != tc.err || string(got) != tc.want {
			t.Errorf("%s: %v, file %q; want error %v, file %q", tc.name, err, got, tc.err, tc.want)
		}
		if tc.name == "failed" && !errors.Is(err, boom) {
			t.Errorf("failed: %v, want the write's error", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: %d files left in the folder, want 1", tc.name, len(entries))
		}
	}
	var stdout bytes.Buffer
	if err := Write("-", &stdout, func(w io.Writer) error { _, err := io.WriteString(w, "out"); return err }); err != nil || stdout.String() != "out" {
		t.Errorf(`"-": %v, stdout %q`, err, stdout.String())
	}
}
