package nn

import "sync"

// Workers runs data-parallel forward/backward passes, one goroutine per
// worker. Each worker owns a Tape and the Grads it accumulates into; the
// parameters are shared read-only while the workers run, and their
// gradients are summed afterwards, so there are no locks on the hot path.
// Items are assigned statically (item i to worker i mod N) and reduced in a
// fixed order, so results do not depend on scheduling.
type Workers[T Float] struct {
	tapes []*Tape[T]
	grads []*Grads[T]
}

// NewWorkers creates n workers for ps; worker j's dropout RNG is seeded
// with seed+j.
func NewWorkers[T Float](ps *Params[T], n int, seed uint64) *Workers[T] {
	w := &Workers[T]{}
	for j := 0; j < max(n, 1); j++ {
		g := ps.NewGrads()
		w.grads = append(w.grads, g)
		w.tapes = append(w.tapes, NewTape(g, seed+uint64(j)))
	}
	return w
}

// N is the number of workers.
func (w *Workers[T]) N() int { return len(w.tapes) }

// SetTrain switches every worker's tape between training and evaluation.
func (w *Workers[T]) SetTrain(on bool) {
	for _, tp := range w.tapes {
		tp.SetTrain(on)
	}
}

// Run calls fn(tp, i) for every item i in [0, n) on a freshly Reset tape;
// fn runs the forward pass, calls tp.Backward (in training) and returns the
// item's loss. Run returns the summed loss and the summed gradients, which
// belong to w and stay valid until the next Run.
func (w *Workers[T]) Run(n int, fn func(tp *Tape[T], i int) float64) (float64, *Grads[T]) {
	losses := make([]float64, len(w.tapes))
	var wg sync.WaitGroup
	for j := range w.tapes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tp, g := w.tapes[j], w.grads[j]
			g.Zero()
			for i := j; i < n; i += len(w.tapes) {
				tp.Reset()
				losses[j] += fn(tp, i)
			}
			tp.Reset()
		}()
	}
	wg.Wait()
	total := losses[0]
	for j := 1; j < len(w.tapes); j++ {
		w.grads[0].Add(w.grads[j])
		total += losses[j]
	}
	return total, w.grads[0]
}
