package nn

import (
	"fmt"
	"slices"
)

// Convolutions over static word embeddings.
//
// Conv1d over the rows of a frozen embedding table can be made much cheaper,
// for two facts of the Cosinet encoder: the table is constant, so no input
// gradient is needed, and words repeat, within a sentence and across the
// candidate sentences of one question (they come from the same document).
// ProjectWords multiplies each distinct word by the k filter slices once
// (one GEMM of [U, D]·[D, F·k]); ConvWords then builds any sentence's
// convolution by summing projections. The backward pass reads only the
// nonzero entries of the output gradient (after global max pooling, one per
// filter) and adds the word's embedding to one filter slice for each.

// WordProjection holds the projections of a set of words through the
// weights of one convolution, for ConvWords.
type WordProjection[T Float] struct {
	table *Tensor[T]
	w     *Var[T]
	k, f  int
	slot  map[int]int // word id -> row of proj
	proj  []T         // [U, F·k]: row u, column j·k+o = filter j's slice o · word u
}

// ProjectWords projects every distinct id (>= 0) of the given sentences
// through w [F, k·D], a Conv1d weight of width k over rows of table [V, D].
func (tp *Tape[T]) ProjectWords(table *Tensor[T], w *Var[T], k int, sentences ...[]int) *WordProjection[T] {
	v, d := table.Dims()
	f, kd := mustMatrix("ProjectWords weights", w)
	if kd != k*d {
		panic(fmt.Sprintf("nn: ProjectWords: table %v, w %v, k %d", table.Shape, w.Value.Shape, k))
	}
	p := &WordProjection[T]{table: table, w: w, k: k, f: f, slot: map[int]int{}}
	var uniq []int
	for _, ids := range sentences {
		for _, id := range ids {
			if id >= v {
				panic(fmt.Sprintf("nn: ProjectWords: id %d outside vocabulary of %d", id, v))
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
	rows := tp.arena.alloc(len(uniq) * d)
	for u, id := range uniq {
		copy(rows[u*d:(u+1)*d], table.Data[id*d:(id+1)*d])
	}
	// w viewed as [F·k, D]: row j·k+o is filter j's slice for offset o.
	p.proj = tp.arena.alloc(len(uniq) * f * k)
	gemm(false, true, len(uniq), f*k, d, 1, rows, d, w.Value.Data, d, 0, p.proj, f*k)
	return p
}

// ConvWords is the convolution (no bias) of the sentence ids, whose words
// must all have been projected by p, with pad zero rows at both ends: the
// output is [len(ids)+2·pad−k+1, F]. A negative id is a zero row.
func (tp *Tape[T]) ConvWords(p *WordProjection[T], ids []int, pad int) *Var[T] {
	k, f := p.k, p.f
	steps := len(ids)
	tout := steps + 2*pad - k + 1
	if tout < 1 {
		panic(fmt.Sprintf("nn: ConvWords: %d steps too short for k=%d, pad=%d", steps, k, pad))
	}
	slot := make([]int, steps)
	for i, id := range ids {
		slot[i] = -1
		if id >= 0 {
			s, ok := p.slot[id]
			if !ok {
				panic(fmt.Sprintf("nn: ConvWords: word %d was not projected", id))
			}
			slot[i] = s
		}
	}
	y := tp.out(anyGrad(p.w), tout, f)
	out := y.Value.Data
	for t := 0; t < tout; t++ {
		yt := out[t*f : (t+1)*f]
		for o := max(0, pad-t); o < min(k, steps+pad-t); o++ {
			if s := slot[t+o-pad]; s >= 0 {
				row := p.proj[s*f*k+o:]
				for j := range yt {
					yt[j] += row[j*k]
				}
			}
		}
	}
	if y.Grad == nil {
		return y
	}
	ids = slices.Clone(ids)
	d := p.table.Cols()
	kd := k * d
	tp.record(func() {
		dy, dw := y.Grad.Data, p.w.Grad.Data
		for t := 0; t < tout; t++ {
			o0, o1 := max(0, pad-t), min(k, steps+pad-t)
			for j, g := range dy[t*f : (t+1)*f] {
				if g == 0 {
					continue
				}
				for o := o0; o < o1; o++ {
					if id := ids[t+o-pad]; id >= 0 {
						axpy(g, p.table.Data[id*d:(id+1)*d], dw[j*kd+o*d:j*kd+(o+1)*d])
					}
				}
			}
		}
	})
	return y
}

// EmbedConv is Conv1d (same weight layout, no bias) of the rows of the
// constant table [V, D] selected by ids, with w [F, k·D]: ProjectWords and
// ConvWords for a single sentence.
func (tp *Tape[T]) EmbedConv(table *Tensor[T], ids []int, w *Var[T], k, pad int) *Var[T] {
	return tp.ConvWords(tp.ProjectWords(table, w, k, ids), ids, pad)
}
