package cosinet

import (
	"fmt"
	"slices"
	"sync"

	"github.com/as2/as2/nn"
)

// Convolutions over static word embeddings.
//
// Conv1d over the rows of a frozen embedding table can be made much cheaper,
// for two facts of the Cosinet encoder: the table is constant, so no input
// gradient is needed, and words repeat, within a sentence and across the
// candidate sentences of one question (they come from the same document).
// projectWords multiplies each distinct word by the k filter slices once
// (k GEMMs of [U, D]·[D, F]); convWords then builds any sentence's
// convolution by summing projections. The backward pass reads only the
// nonzero entries of the output gradient (after global max pooling, one per
// filter) and adds the word's embedding to one filter slice for each.

// wordProjection holds the projections of a set of words through the
// weights of one convolution, for convWords.
type wordProjection[T nn.Float] struct {
	table *nn.Tensor[T]
	w     *nn.Var[T]
	k, f  int
	slot  map[int]int // word id -> index into rows
	rows  [][]T       // [k·F] each: element o·F+j = filter j's slice o · the word
}

// projectWords projects every distinct id (>= 0) of the given sentences
// through w [F, k·D], a Conv1d weight of width k over rows of table [V, D].
func projectWords[T nn.Float](tp *nn.Tape[T], table *nn.Tensor[T], w *nn.Var[T], k int, sentences ...[]int) *wordProjection[T] {
	v, d := table.Dims()
	f, kd := w.Value.Dims()
	if kd != k*d {
		panic(fmt.Sprintf("cosinet: projectWords: table %v, w %v, k %d", table.Shape, w.Value.Shape, k))
	}
	p := &wordProjection[T]{table: table, w: w, k: k, f: f, slot: map[int]int{}}
	var uniq []int
	for _, ids := range sentences {
		for _, id := range ids {
			if id >= v {
				panic(fmt.Sprintf("cosinet: projectWords: id %d outside vocabulary of %d", id, v))
			}
			if _, ok := p.slot[id]; id >= 0 && !ok {
				p.slot[id] = len(uniq)
				uniq = append(uniq, id)
			}
		}
	}
	if len(uniq) == 0 {
		return p
	}
	p.rows = project(tp.Alloc, table, w.Value, k, uniq)
	return p
}

// project computes, for each word of uniq, its product with every filter's
// slice for every offset, laid out offset-major ([k, F]) so that convWords
// adds contiguous rows: k GEMMs of [U, D]·[D, F], reading w [F, k·D] with a
// stride.
func project[T nn.Float](alloc func(int) []T, table, w *nn.Tensor[T], k int, uniq []int) [][]T {
	d := table.Cols()
	f := w.Rows()
	emb := alloc(len(uniq) * d)
	for u, id := range uniq {
		copy(emb[u*d:(u+1)*d], table.Data[id*d:(id+1)*d])
	}
	kf := k * f
	proj := alloc(len(uniq) * kf)
	for o := 0; o < k; o++ {
		nn.Gemm(false, true, len(uniq), f, d, 1, emb, d, w.Data[o*d:], k*d, 0, proj[o*f:], kf)
	}
	rows := make([][]T, len(uniq))
	for u := range rows {
		rows[u] = proj[u*kf : (u+1)*kf : (u+1)*kf]
	}
	return rows
}

// projectionCache memoises word projections for inference, while the
// weights do not change: a word met before costs no arithmetic at all, which
// makes scoring many times faster than training. It is safe for concurrent
// use. When it holds more than its limit of words it starts afresh.
type projectionCache[T nn.Float] struct {
	table, w *nn.Tensor[T]
	k, f     int
	limit    int
	mu       sync.RWMutex
	rows     map[int][]T
}

// newProjectionCache caches projections of rows of table through w [F, k·D]
// for up to limit words.
func newProjectionCache[T nn.Float](table, w *nn.Tensor[T], k, limit int) *projectionCache[T] {
	f, kd := w.Dims()
	if kd != k*table.Cols() {
		panic(fmt.Sprintf("cosinet: newProjectionCache: table %v, w %v, k %d", table.Shape, w.Shape, k))
	}
	return &projectionCache[T]{table: table, w: w, k: k, f: f, limit: max(limit, 1), rows: map[int][]T{}}
}

// Project returns the projection of the sentences' words, computing only
// the words not cached yet. The result carries no gradient.
func (c *projectionCache[T]) Project(sentences ...[]int) *wordProjection[T] {
	p := &wordProjection[T]{table: c.table, w: &nn.Var[T]{Value: c.w}, k: c.k, f: c.f, slot: map[int]int{}}
	var missing []int
	c.mu.RLock()
	for _, ids := range sentences {
		for _, id := range ids {
			if _, ok := p.slot[id]; id < 0 || ok {
				continue
			}
			if id >= c.table.Rows() {
				c.mu.RUnlock()
				panic(fmt.Sprintf("cosinet: projectionCache: id %d outside vocabulary of %d", id, c.table.Rows()))
			}
			p.slot[id] = len(p.rows)
			row, ok := c.rows[id]
			if !ok {
				missing = append(missing, id)
			}
			p.rows = append(p.rows, row)
		}
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return p
	}
	computed := project(func(n int) []T { return make([]T, n) }, c.table, c.w, c.k, missing)
	c.mu.Lock()
	if len(c.rows)+len(missing) > c.limit {
		clear(c.rows)
	}
	for i, id := range missing {
		c.rows[id] = computed[i]
		p.rows[p.slot[id]] = computed[i]
	}
	c.mu.Unlock()
	return p
}

// convWords is the convolution (no bias) of the sentence ids, whose words
// must all have been projected by p, with pad zero rows at both ends: the
// output is [len(ids)+2·pad−k+1, F]. A negative id is a zero row.
func convWords[T nn.Float](tp *nn.Tape[T], p *wordProjection[T], ids []int, pad int) *nn.Var[T] {
	k, f := p.k, p.f
	steps := len(ids)
	tout := steps + 2*pad - k + 1
	if tout < 1 {
		panic(fmt.Sprintf("cosinet: convWords: %d steps too short for k=%d, pad=%d", steps, k, pad))
	}
	slot := make([]int, steps)
	for i, id := range ids {
		slot[i] = -1
		if id >= 0 {
			s, ok := p.slot[id]
			if !ok {
				panic(fmt.Sprintf("cosinet: convWords: word %d was not projected", id))
			}
			slot[i] = s
		}
	}
	y := tp.OutputDirty(nn.AnyGrad(p.w), tout, f)
	out := y.Value.Data
	for t := 0; t < tout; t++ {
		yt := out[t*f : (t+1)*f]
		first := true // the first word's row is copied, not added to zeros
		for o := max(0, pad-t); o < min(k, steps+pad-t); o++ {
			if s := slot[t+o-pad]; s >= 0 {
				if first {
					copy(yt, p.rows[s][o*f:(o+1)*f])
					first = false
				} else {
					nn.Axpy(1, p.rows[s][o*f:(o+1)*f], yt)
				}
			}
		}
		if first {
			clear(yt)
		}
	}
	if y.Grad == nil {
		return y
	}
	ids = slices.Clone(ids)
	d := p.table.Cols()
	kd := k * d
	tp.OnBackward(func() {
		dy, dw := y.Grad.Data, p.w.Grad.Data
		for t := 0; t < tout; t++ {
			o0, o1 := max(0, pad-t), min(k, steps+pad-t)
			for j, g := range dy[t*f : (t+1)*f] {
				if g == 0 {
					continue
				}
				for o := o0; o < o1; o++ {
					if id := ids[t+o-pad]; id >= 0 {
						nn.Axpy(g, p.table.Data[id*d:(id+1)*d], dw[j*kd+o*d:j*kd+(o+1)*d])
					}
				}
			}
		}
	})
	return y
}

// embedConv is Conv1d (same weight layout, no bias) of the rows of the
// constant table [V, D] selected by ids, with w [F, k·D]: projectWords and
// convWords for a single sentence.
func embedConv[T nn.Float](tp *nn.Tape[T], table *nn.Tensor[T], ids []int, w *nn.Var[T], k, pad int) *nn.Var[T] {
	return convWords(tp, projectWords(tp, table, w, k, ids), ids, pad)
}
