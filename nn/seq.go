package nn

import (
	"fmt"
	"slices"
)

// Sequence ops. A sentence is a [T, D] matrix, one row per token, and each
// sentence is processed at its own length: no padding to a batch maximum, so
// no padded positions to mask and no wasted arithmetic.

// Embedding looks up rows of table [V, D] for the token ids, giving
// [len(ids), D]. A negative id yields a zero row (unknown word). The table
// is trainable when it needs a gradient (tp.Param) and frozen otherwise
// (tp.Const); a trainable table gets a dense gradient, so keep its vocabulary
// to the words of the corpus.
func (tp *Tape[T]) Embedding(table *Var[T], ids []int) *Var[T] {
	v, d := mustMatrix("Embedding", table)
	y := tp.out(anyGrad(table), len(ids), d)
	for i, id := range ids {
		if id >= v {
			panic(fmt.Sprintf("nn: Embedding: id %d outside vocabulary of %d", id, v))
		}
		if id >= 0 {
			copy(y.Value.Data[i*d:(i+1)*d], table.Value.Data[id*d:(id+1)*d])
		}
	}
	if y.Grad != nil {
		ids = slices.Clone(ids)
		tp.record(func() {
			for i, id := range ids {
				if id >= 0 {
					addTo(table.Grad.Data[id*d:(id+1)*d], y.Grad.Data[i*d:(i+1)*d])
				}
			}
		})
	}
	return y
}

// Conv1d is a 1-D convolution over time: x [T, D], kernel width k, weights
// w [F, k·D] (filter f's weights for offsets 0..k−1, each over the D input
// features), optional bias b [F], and pad zero rows added at both ends. The
// output is [T+2·pad−k+1, F]; pad = k/2 with odd k keeps the length ("same"
// padding), so every sentence of length ≥ 1 has an output.
//
// It is computed as one GEMM over the unfolded input (im2col) and the
// transposed weights (memoised for the pass, see Tape). The backward
// pass exploits a sparse output gradient: after a global max pool only one
// time step per filter receives gradient, so dW is built from those rows
// alone (F·k·D work instead of T·F·k·D). The sparsity is detected from the
// gradient itself, so no special pairing of ops is needed.
func (tp *Tape[T]) Conv1d(x, w, b *Var[T], k, pad int) *Var[T] {
	steps, d := mustMatrix("Conv1d", x)
	f, kd := mustMatrix("Conv1d weights", w)
	if kd != k*d || (b != nil && b.Value.Len() != f) {
		panic(fmt.Sprintf("nn: Conv1d: x %v, w %v, k %d", x.Value.Shape, w.Value.Shape, k))
	}
	tout := steps + 2*pad - k + 1
	if tout < 1 {
		panic(fmt.Sprintf("nn: Conv1d: %d steps too short for k=%d, pad=%d", steps, k, pad))
	}
	// Unfold: row t holds input rows t−pad … t−pad+k−1 (zeros outside).
	unf := tp.arena.alloc(tout * kd)
	for t := 0; t < tout; t++ {
		lo, hi := max(t-pad, 0), min(t-pad+k, steps)
		if lo < hi {
			copy(unf[t*kd+(lo-(t-pad))*d:], x.Value.Data[lo*d:hi*d])
		}
	}
	y := tp.outDirty(anyGrad(x, w, b), tout, f) // the bias or beta = 0 overwrites it
	beta := T(0)
	if b != nil {
		for t := 0; t < tout; t++ {
			copy(y.Value.Data[t*f:(t+1)*f], b.Value.Data)
		}
		beta = 1
	}
	// unf·Wᵀ with Wᵀ [kd, f] memoised on the tape: the A·B kernel, which
	// vectorises along the f filters, trains CA 1.5x faster than the A·Bᵀ
	// one, whose dot products over kd leave scalar tails.
	gemm(false, false, tout, f, kd, 1, unf, kd, tp.transposed(w.Value), f, beta, y.Value.Data, f)
	if y.Grad == nil {
		return y
	}
	tp.record(func() {
		dy := y.Grad.Data
		var dunf []T
		if x.Grad != nil {
			dunf = tp.arena.alloc(tout * kd)
		}
		nnz := 0
		for _, g := range dy {
			if g != 0 {
				nnz++
			}
		}
		if 2*nnz <= len(dy) {
			for t := 0; t < tout; t++ {
				for j, g := range dy[t*f : (t+1)*f] {
					if g == 0 {
						continue
					}
					if w.Grad != nil {
						axpy(g, unf[t*kd:(t+1)*kd], w.Grad.Data[j*kd:(j+1)*kd])
					}
					if dunf != nil {
						axpy(g, w.Value.Data[j*kd:(j+1)*kd], dunf[t*kd:(t+1)*kd])
					}
				}
			}
		} else {
			if w.Grad != nil { // dW += dyᵀ·unf
				gemm(true, false, f, kd, tout, 1, dy, f, unf, kd, 1, w.Grad.Data, kd)
			}
			if dunf != nil { // dunf = dy·W
				gemm(false, false, tout, kd, f, 1, dy, f, w.Value.Data, kd, 0, dunf, kd)
			}
		}
		if b != nil && b.Grad != nil {
			for t := 0; t < tout; t++ {
				addTo(b.Grad.Data, dy[t*f:(t+1)*f])
			}
		}
		if dunf != nil { // fold the unfolded gradient back onto the input rows
			for t := 0; t < tout; t++ {
				lo, hi := max(t-pad, 0), min(t-pad+k, steps)
				if lo < hi {
					off := t*kd + (lo-(t-pad))*d
					addTo(x.Grad.Data[lo*d:hi*d], dunf[off:off+(hi-lo)*d])
				}
			}
		}
	})
	return y
}

// MaxPool is the global max over time of x [T, D], giving [D]. Only the
// arg-max step of each column receives gradient.
func (tp *Tape[T]) MaxPool(x *Var[T]) *Var[T] {
	steps, d := mustMatrix("MaxPool", x)
	if steps == 0 {
		panic("nn: MaxPool of an empty sequence")
	}
	y := tp.out(anyGrad(x), d)
	copy(y.Value.Data, x.Value.Data[:d])
	if y.Grad == nil { // inference: no argmax to keep
		for t := 1; t < steps; t++ {
			maxInto(y.Value.Data, x.Value.Data[t*d:(t+1)*d])
		}
		return y
	}
	arg := make([]int32, d) // zero: row 0 is the first candidate
	for t := 1; t < steps; t++ {
		for j, v := range x.Value.Data[t*d : (t+1)*d] {
			if v > y.Value.Data[j] {
				y.Value.Data[j] = v
				arg[j] = int32(t)
			}
		}
	}
	tp.record(func() {
		for j, g := range y.Grad.Data {
			x.Grad.Data[int(arg[j])*d+j] += g
		}
	})
	return y
}

// MeanPool is the mean over time of x [T, D], giving [D].
func (tp *Tape[T]) MeanPool(x *Var[T]) *Var[T] {
	steps, d := mustMatrix("MeanPool", x)
	if steps == 0 {
		panic("nn: MeanPool of an empty sequence")
	}
	y := tp.out(anyGrad(x), d)
	inv := 1 / T(steps)
	for t := 0; t < steps; t++ {
		axpy(inv, x.Value.Data[t*d:(t+1)*d], y.Value.Data)
	}
	if y.Grad != nil {
		tp.record(func() {
			for t := 0; t < steps; t++ {
				axpy(inv, y.Grad.Data, x.Grad.Data[t*d:(t+1)*d])
			}
		})
	}
	return y
}

// KMaxPool keeps, for every column of x [T, D], the k largest values in
// their original temporal order (Kalchbrenner et al. 2014), giving [k, D].
// A sequence shorter than k leaves the remaining rows zero.
func (tp *Tape[T]) KMaxPool(x *Var[T], k int) *Var[T] {
	steps, d := mustMatrix("KMaxPool", x)
	y := tp.out(anyGrad(x), k, d)
	kk := min(k, steps)
	src := make([]int32, kk*d) // src[r*d+j]: time step feeding y[r, j]
	idx := make([]int, steps)
	for j := 0; j < d; j++ {
		for t := range idx {
			idx[t] = t
		}
		// Stable selection of the kk largest, then back into time order.
		slices.SortStableFunc(idx, func(a, b int) int {
			va, vb := x.Value.Data[a*d+j], x.Value.Data[b*d+j]
			switch {
			case va > vb:
				return -1
			case va < vb:
				return 1
			}
			return 0
		})
		top := idx[:kk]
		slices.Sort(top)
		for r, t := range top {
			src[r*d+j] = int32(t)
			y.Value.Data[r*d+j] = x.Value.Data[t*d+j]
		}
	}
	if y.Grad != nil {
		tp.record(func() {
			for r := 0; r < kk; r++ {
				for j := 0; j < d; j++ {
					x.Grad.Data[int(src[r*d+j])*d+j] += y.Grad.Data[r*d+j]
				}
			}
		})
	}
	return y
}
