package nn

import (
	"runtime"
	"testing"
)

// TestTapeCache checks that the cache makes inference tapes, hands back
// the ones it was given, and keeps no more than two a core.
func TestTapeCache(t *testing.T) {
	var c TapeCache[float32]
	keep := 2 * runtime.GOMAXPROCS(0)
	tapes := make([]*Tape[float32], keep+3)
	for i := range tapes {
		tapes[i] = c.Get()
		if tapes[i].Training() {
			t.Fatal("a new tape is in training mode")
		}
		tapes[i].Alloc(10)
	}
	for _, tp := range tapes {
		c.Put(tp)
	}
	if len(c.free) != keep {
		t.Fatalf("%d tapes kept, want %d", len(c.free), keep)
	}
	seen := map[*Tape[float32]]bool{}
	for _, tp := range tapes[:keep] {
		seen[tp] = true
	}
	for range keep {
		if tp := c.Get(); !seen[tp] {
			t.Fatal("get made a new tape while the cache held some")
		}
	}
	if len(c.free) != 0 {
		t.Fatalf("%d tapes left after taking all", len(c.free))
	}
}
