package termbar

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestNoBarOffTerminal: buffers and plain files are not terminals, so a
// loop over them has no bar and its nil methods do nothing.
func TestNoBarOffTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, w := range map[string]interface{ Write([]byte) (int, error) }{"buffer": &bytes.Buffer{}, "file": f} {
		if Terminal(w) {
			t.Errorf("%s: a terminal", name)
		}
		l := NewLoop(w, 10, "items")
		if l != nil {
			t.Errorf("%s: a bar off a terminal", name)
		}
		l.Step(5)
		l.StepDone(10)
		l.Done()
		st := NewSteps(w)
		if st != nil {
			t.Errorf("%s: a steps bar off a terminal", name)
		}
		st.Set(1, 10, "epoch 1")
		st.Clear()
		st.Finish()
	}
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Errorf("%d bytes written to a log file", fi.Size())
	}
}
