package nn

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// softmaxRow writes softmax(x) into y, subtracting the max for stability.
func softmaxRow[T Float](y, x []T) {
	mx := x[0]
	for _, v := range x {
		mx = max(mx, v)
	}
	var s T
	for i, v := range x {
		e := exp(v - mx)
		y[i] = e
		s += e
	}
	for i := range y {
		y[i] /= s
	}
}

// logSumExp of a row, stable.
func logSumExp[T Float](x []T) T {
	mx := x[0]
	for _, v := range x {
		mx = max(mx, v)
	}
	var s T
	for _, v := range x {
		s += exp(v - mx)
	}
	return mx + log(s)
}

// Softmax normalises each row (a vector is one row) into a distribution.
func (tp *Tape[T]) Softmax(x *Var[T]) *Var[T] {
	m, n := x.Value.Dims()
	y := tp.out(anyGrad(x), x.Value.Shape...)
	for i := 0; i < m; i++ {
		softmaxRow(y.Value.Data[i*n:(i+1)*n], x.Value.Data[i*n:(i+1)*n])
	}
	if y.Grad != nil {
		tp.record(func() { softmaxBackward(x.Grad.Data, y.Value.Data, y.Grad.Data, m, n) })
	}
	return y
}

// ClipSoftmax is softmax restricted to part of each row: the rest of the
// row gets weight zero and the kept entries are renormalised. It implements
// the dynamic-clip attention of Bian et al. (2017):
//
//   - k > 0 (k-max attention) keeps each row's k largest entries;
//   - threshold > 0 (k-threshold attention) keeps the entries whose full
//     softmax weight is at least threshold (always the largest one, so a row
//     never becomes empty).
//
// With neither, it is Softmax. It also serves the k-max pooling followed by
// softmax of latent clustering (equation 5). Softmax over a subset, renormalised,
// equals the full softmax masked and renormalised, and the backward pass is
// Softmax's with the dropped entries' weights zero: the kept set is piecewise
// constant in x.
func (tp *Tape[T]) ClipSoftmax(x *Var[T], k int, threshold float64) *Var[T] {
	if k <= 0 && threshold <= 0 {
		return tp.Softmax(x)
	}
	m, n := x.Value.Dims()
	y := tp.out(anyGrad(x), x.Value.Shape...)
	keep := make([]bool, n)
	order := make([]int, n)
	for i := 0; i < m; i++ {
		xr, yr := x.Value.Data[i*n:(i+1)*n], y.Value.Data[i*n:(i+1)*n]
		clear(keep)
		if k > 0 && k < n {
			for j := range order {
				order[j] = j
			}
			// Largest first; ties by position, so the choice is deterministic.
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(xr[b], xr[a]) })
			for _, j := range order[:k] {
				keep[j] = true
			}
		} else if k > 0 {
			for j := range keep {
				keep[j] = true
			}
		}
		if threshold > 0 {
			softmaxRow(yr, xr)
			best := 0
			for j, w := range yr {
				if float64(w) >= threshold {
					keep[j] = true
				}
				if w > yr[best] {
					best = j
				}
			}
			keep[best] = true
		}
		mx := T(math.Inf(-1))
		for j, v := range xr {
			if keep[j] {
				mx = max(mx, v)
			}
		}
		var s T
		for j, v := range xr {
			yr[j] = 0
			if keep[j] {
				yr[j] = exp(v - mx)
				s += yr[j]
			}
		}
		for j := range yr {
			yr[j] /= s
		}
	}
	if y.Grad != nil {
		tp.record(func() { softmaxBackward(x.Grad.Data, y.Value.Data, y.Grad.Data, m, n) })
	}
	return y
}

// softmaxBackward adds to dx the gradient of y = softmax(x) row by row:
// dx = y ⊙ (dy − ⟨dy, y⟩).
func softmaxBackward[T Float](dx, y, dy []T, m, n int) {
	for i := 0; i < m; i++ {
		yr, gr := y[i*n:(i+1)*n], dy[i*n:(i+1)*n]
		d := dot(gr, yr)
		xr := dx[i*n : (i+1)*n]
		for j := range xr {
			xr[j] += yr[j] * (gr[j] - d)
		}
	}
}

// LogSoftmax returns x − logsumexp(x) for each row.
func (tp *Tape[T]) LogSoftmax(x *Var[T]) *Var[T] {
	m, n := x.Value.Dims()
	y := tp.out(anyGrad(x), x.Value.Shape...)
	for i := 0; i < m; i++ {
		xr, yr := x.Value.Data[i*n:(i+1)*n], y.Value.Data[i*n:(i+1)*n]
		lse := logSumExp(xr)
		for j, v := range xr {
			yr[j] = v - lse
		}
	}
	if y.Grad != nil {
		tp.record(func() {
			// dx = dy − softmax(x)·Σdy.
			for i := 0; i < m; i++ {
				yr, gr := y.Value.Data[i*n:(i+1)*n], y.Grad.Data[i*n:(i+1)*n]
				var s T
				for _, g := range gr {
					s += g
				}
				xr := x.Grad.Data[i*n : (i+1)*n]
				for j := range xr {
					xr[j] += gr[j] - exp(yr[j])*s
				}
			}
		})
	}
	return y
}

// KLDiv is the listwise loss KL(p ‖ softmax(scores)) for one list of
// candidate scores, where p is the target normalised to sum to 1 (e.g. gold
// 0/1 labels; ListNet-style top-one probabilities, Cao et al. 2007). Its
// gradient with respect to the scores is softmax(scores) − p. The target
// must have a positive sum.
func (tp *Tape[T]) KLDiv(scores *Var[T], target []T) *Var[T] {
	n := scores.Value.Len()
	if len(target) != n {
		panic(fmt.Sprintf("nn: KLDiv: %d scores, %d targets", n, len(target)))
	}
	var z T
	for _, t := range target {
		if t < 0 {
			panic("nn: KLDiv: negative target")
		}
		z += t
	}
	if z <= 0 {
		panic("nn: KLDiv: target sums to 0 (a list without positives)")
	}
	p := tp.arena.alloc(n)
	for i, t := range target {
		p[i] = t / z
	}
	s := scores.Value.Data
	lse := logSumExp(s)
	var loss T
	for i, pi := range p {
		if pi > 0 {
			loss += pi * (log(pi) - (s[i] - lse))
		}
	}
	y := tp.out(anyGrad(scores), 1)
	y.Value.Data[0] = loss
	if y.Grad != nil {
		tp.record(func() {
			g := y.Grad.Data[0]
			for i, v := range s {
				scores.Grad.Data[i] += g * (exp(v-lse) - p[i])
			}
		})
	}
	return y
}

// BCEWithLogits is the mean binary cross-entropy between sigmoid(logits) and
// targets in [0,1] (pointwise training), in the overflow-free form
// max(x,0) − x·y + log(1+e^−|x|).
func (tp *Tape[T]) BCEWithLogits(logits *Var[T], targets []T) *Var[T] {
	n := logits.Value.Len()
	if len(targets) != n {
		panic(fmt.Sprintf("nn: BCEWithLogits: %d logits, %d targets", n, len(targets)))
	}
	var loss T
	for i, x := range logits.Value.Data {
		loss += max(x, 0) - x*targets[i] + T(math.Log1p(math.Exp(-math.Abs(float64(x)))))
	}
	y := tp.out(anyGrad(logits), 1)
	y.Value.Data[0] = loss / T(n)
	if y.Grad != nil {
		tp.record(func() {
			g := y.Grad.Data[0] / T(n)
			for i, x := range logits.Value.Data {
				logits.Grad.Data[i] += g * (sigmoid(x) - targets[i])
			}
		})
	}
	return y
}

// Hinge is the pairwise ranking loss within one list: the mean over every
// (positive, negative) pair of max(0, margin − s_pos + s_neg), with
// positives being labels > 0. A list without both kinds gives 0.
func (tp *Tape[T]) Hinge(scores *Var[T], labels []T, margin float64) *Var[T] {
	n := scores.Value.Len()
	if len(labels) != n {
		panic(fmt.Sprintf("nn: Hinge: %d scores, %d labels", n, len(labels)))
	}
	s := scores.Value.Data
	var loss T
	pairs := 0
	for i := range n {
		for j := range n {
			if labels[i] > 0 && labels[j] <= 0 {
				pairs++
				loss += max(0, T(margin)-s[i]+s[j])
			}
		}
	}
	y := tp.out(anyGrad(scores), 1)
	if pairs == 0 {
		return y
	}
	y.Value.Data[0] = loss / T(pairs)
	if y.Grad != nil {
		tp.record(func() {
			g := y.Grad.Data[0] / T(pairs)
			for i := range n {
				for j := range n {
					if labels[i] > 0 && labels[j] <= 0 && T(margin)-s[i]+s[j] > 0 {
						scores.Grad.Data[i] -= g
						scores.Grad.Data[j] += g
					}
				}
			}
		})
	}
	return y
}
