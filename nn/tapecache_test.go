package nn

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
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

// TestTapeCacheRun checks that Run calls work once for every k, that a
// worker's panic reaches the caller with the worker's stack, and that a
// context's stop reaches ScoresContext as the context's error.
func TestTapeCacheRun(t *testing.T) {
	var c TapeCache[float32]
	caller := NewTape[float32](nil, 0)
	var mu sync.Mutex
	seen := map[int]int{}
	c.Run(caller, 37, func(tp *Tape[float32], k int) {
		tp.Alloc(4)
		mu.Lock()
		seen[k]++
		mu.Unlock()
	})
	for k := range 37 {
		if seen[k] != 1 {
			t.Fatalf("work(%d) called %d times", k, seen[k])
		}
	}
	func() {
		defer func() {
			r := recover()
			if s := fmt.Sprint(r); !strings.Contains(s, "boom") || !strings.Contains(s, "in a worker") {
				t.Errorf("panic %q, want the worker's, with its stack", s)
			}
		}()
		c.Run(caller, 5, func(tp *Tape[float32], k int) {
			if k == 3 {
				panic("boom")
			}
		})
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var p TapePool[float32]
	_, err := p.ScoresContext(context.Background(), func(tp *Tape[float32]) *Var[float32] {
		tp.ctx = ctx
		c.Run(tp, 4, func(*Tape[float32], int) {})
		return tp.Const(FromSlice([]float32{1}, 1))
	})
	if err != context.Canceled {
		t.Errorf("error %v, want %v", err, context.Canceled)
	}
}
