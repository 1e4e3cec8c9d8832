package nn

import (
	"runtime"
	"sync"
)

// TapeCache keeps inference tapes between calls. A sync.Pool is emptied
// by every garbage collection, and each tape it drops takes its arena with
// it, so that the next request allocates its activations again: with the
// built-in model's two models serving 100-sentence requests that was
// hundreds of MB of garbage a second, and the service's peak RSS was set
// by the collector's headroom over it (notes/2026-11-28-builtin-speed.md).
// It keeps at most two tapes a core (two requests at a time, each on
// every core, as serve's default limits admit), so what it holds is
// bounded by that many of the largest batch's activations. The zero value
// is ready to use.
type TapeCache[T Float] struct {
	mu   sync.Mutex
	free []*Tape[T]
}

// Get returns a reset inference tape: a kept one, or a new one.
func (c *TapeCache[T]) Get() *Tape[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := len(c.free); k > 0 {
		tp := c.free[k-1]
		c.free[k-1] = nil
		c.free = c.free[:k-1]
		return tp
	}
	tp := NewTape[T](nil, 0)
	tp.SetTrain(false)
	return tp
}

// Put resets tp and keeps it, unless enough are kept already.
func (c *TapeCache[T]) Put(tp *Tape[T]) {
	tp.Reset()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.free) < 2*runtime.GOMAXPROCS(0) {
		c.free = append(c.free, tp)
	}
}

// Len is how many tapes are kept.
func (c *TapeCache[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.free)
}
