package nn

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// Scheduling: how work is spread over the cores. Training runs one question
// per worker (Workers); inference spreads one question's independent items
// over the cores (Parallel, TapePool.Rows) on pooled tapes; parallelFor
// splits large kernels.

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

// TapePool lends inference tapes (no gradients, no dropout) to concurrent
// scorers, so that each call reuses a tape's arena instead of allocating.
type TapePool[T Float] struct{ pool sync.Pool }

func (p *TapePool[T]) get() *Tape[T] {
	tp, _ := p.pool.Get().(*Tape[T])
	if tp == nil {
		tp = NewTape[T](nil, 0)
		tp.SetTrain(false)
	}
	return tp
}

func (p *TapePool[T]) put(tp *Tape[T]) { tp.Reset(); p.pool.Put(tp) }

// Value runs f on a pooled inference tape and returns a copy of the
// tensor it computes, which outlives the tape.
func (p *TapePool[T]) Value(f func(tp *Tape[T]) *Var[T]) *Tensor[T] {
	tp := p.get()
	defer p.put(tp)
	return f(tp).Value.Clone()
}

// Scores runs f on a pooled inference tape and returns the values of the
// vector it computes as float64s.
func (p *TapePool[T]) Scores(f func(tp *Tape[T]) *Var[T]) []float64 {
	out, _ := p.ScoresContext(context.Background(), f)
	return out
}

// ScoresContext is Scores for a request with a deadline: the tape carries
// ctx, StackRows checks it between candidates, and when ctx is done the
// pass stops there and ScoresContext returns ctx's error. (The pass is
// abandoned by a panic that only ScoresContext recovers, so that forward
// passes need no error plumbing between their layers.)
func (p *TapePool[T]) ScoresContext(ctx context.Context, f func(tp *Tape[T]) *Var[T]) (out []float64, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tp := p.get()
	defer p.put(tp)
	tp.ctx = ctx
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(canceled)
			if !ok {
				panic(r)
			}
			out, err = nil, c.err
		}
	}()
	y := f(tp)
	out = make([]float64, y.Value.Len())
	for i, v := range y.Value.Data {
		out[i] = float64(v)
	}
	return out, nil
}

// canceled is the panic value that abandons an inference pass whose
// context is done; ScoresContext recovers it.
type canceled struct{ err error }

// Context returns the context of the request the tape's pass serves
// (context.Background() when none was given).
func (tp *Tape[T]) Context() context.Context {
	if tp.ctx == nil {
		return context.Background()
	}
	return tp.ctx
}

// CheckContext abandons the pass when the tape's context is done: for
// forward passes between expensive layers. It costs one atomic load.
func (tp *Tape[T]) CheckContext() {
	if tp.ctx == nil {
		return
	}
	if err := tp.ctx.Err(); err != nil {
		panic(canceled{err})
	}
}

// rowsPerWorker is the least number of items worth a goroutine of their own.
const rowsPerWorker = 8

// Parallel calls f(lo, hi) on contiguous chunks that cover [0, n), on up to
// GOMAXPROCS goroutines (fewer when n is small), and returns when all are
// done. It is for the independent items of one request (a question's
// candidates): one request then uses every core, which is what a service's
// latency at one client needs. (In training, where Workers already run one
// question per core, the extra goroutines only share those cores.) A panic
// in a chunk is raised again in the caller's goroutine, where a server's
// recovery can see it, instead of ending the process.
func Parallel(n int, f func(lo, hi int)) {
	_ = ParallelContext(context.Background(), n, f)
}

// ctxChunk is how many items ParallelContext gives f at a time between
// checks of the context: a few milliseconds of candidates.
const ctxChunk = 4 * rowsPerWorker

// ParallelContext is Parallel for a request with a deadline: each
// goroutine's range is handed to f in pieces of at most ctxChunk items,
// and when ctx is done no further piece starts and ParallelContext
// returns ctx's error. The pieces cover the same items as Parallel's, so
// for independent items the results are the same.
func ParallelContext(ctx context.Context, n int, f func(lo, hi int)) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), n/rowsPerWorker))
	chunks := make([]func(), workers)
	done := ctx.Done() // nil for context.Background(): one piece per worker
	for w := range chunks {
		lo, hi := w*n/workers, (w+1)*n/workers
		if done == nil {
			chunks[w] = func() { f(lo, hi) }
			continue
		}
		chunks[w] = func() {
			for a := lo; a < hi; a += ctxChunk {
				if ctx.Err() != nil {
					return
				}
				f(a, min(a+ctxChunk, hi))
			}
		}
	}
	together(chunks...)
	return ctx.Err()
}

// together runs the functions at once, the first in the caller's goroutine,
// and returns when all are done; a panic in any is raised again in the
// caller's goroutine.
func together(fs ...func()) {
	panics := make([]any, len(fs))
	run := func(i int) {
		defer func() { panics[i] = recover() }()
		fs[i]()
	}
	var wg sync.WaitGroup
	for i := 1; i < len(fs); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(i)
		}()
	}
	if len(fs) > 0 {
		run(0)
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// StackRows returns the n vectors f(·, i) stacked as [n, d]. For inference
// (infer) they are computed as Rows computes them, in parallel on pooled
// tapes, without gradients; otherwise one after another on tp, so that
// gradients flow (training already runs one question per core).
func (p *TapePool[T]) StackRows(tp *Tape[T], n int, infer bool, f func(tp *Tape[T], i int) *Var[T]) *Var[T] {
	if infer {
		rows, err := p.RowsContext(tp.Context(), n, f)
		if err != nil {
			panic(canceled{err}) // recovered by ScoresContext
		}
		return tp.Const(rows)
	}
	rows := make([]*Var[T], n)
	for i := range rows {
		rows[i] = f(tp, i)
	}
	return tp.Stack(rows...)
}

// Rows computes n vectors of one length, f(tp, i) for i in [0, n), and
// returns them stacked as an [n, d] tensor. The rows are independent, so
// they are computed in Parallel, each chunk on a pooled tape. It is for
// inference: f's vars may read (never write) vars of the caller's tape, and
// carry no gradient.
func (p *TapePool[T]) Rows(n int, f func(tp *Tape[T], i int) *Var[T]) *Tensor[T] {
	out, _ := p.RowsContext(context.Background(), n, f)
	return out
}

// RowsContext is Rows for a request with a deadline: it checks ctx between
// candidates and returns ctx's error, and no rows, once ctx is done. Each
// pooled tape carries ctx, so f's own passes may check it too.
func (p *TapePool[T]) RowsContext(ctx context.Context, n int, f func(tp *Tape[T], i int) *Var[T]) (*Tensor[T], error) {
	rows := make([][]T, n)
	err := ParallelContext(ctx, n, func(lo, hi int) {
		tp := p.get()
		defer p.put(tp)
		if ctx.Done() != nil {
			tp.ctx = ctx
		}
		for i := lo; i < hi; i++ {
			if ctx.Err() != nil {
				return
			}
			rows[i] = append([]T(nil), f(tp, i).Value.Data...)
		}
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return NewTensor[T](0, 0), nil
	}
	d := len(rows[0])
	out := NewTensor[T](n, d)
	for i, r := range rows {
		if len(r) != d {
			panic(fmt.Sprintf("nn: Rows: row %d has %d values, row 0 has %d", i, len(r), d))
		}
		copy(out.Data[i*d:], r)
	}
	return out, nil
}

// parallelFor runs fn over [0,n) in up to `workers` contiguous chunks.
func parallelFor(n, workers int, fn func(lo, hi int)) {
	if workers <= 1 || n < 2*workers {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() { defer wg.Done(); fn(lo, hi) }()
	}
	wg.Wait()
}
