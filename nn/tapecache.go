package nn

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
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

// Run calls work(tp, k) for every k < n on up to GOMAXPROCS goroutines,
// each with a tape of the cache, reset before each call. Before each call
// it checks caller's context (CheckContext), so that a request past its
// deadline stops within one call. A panic in a worker is raised again in
// the caller, with the worker's stack.
func (c *TapeCache[T]) Run(caller *Tape[T], n int, work func(tp *Tape[T], k int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failure any
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					switch _, stop := r.(canceled); {
					case stop: // the context's stop, which upstream recovers as the request's error
						failure = r
					case failure == nil:
						failure = workerPanic{r, debug.Stack()}
					}
					mu.Unlock()
				}
			}()
			tp := c.Get()
			defer c.Put(tp)
			for {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				caller.CheckContext()
				tp.Reset()
				work(tp, k)
			}
		}()
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
}

// workerPanic is a worker's panic and where it happened.
type workerPanic struct {
	value any
	stack []byte
}

func (p workerPanic) String() string { return fmt.Sprintf("%v\n\nin a worker:\n%s", p.value, p.stack) }
