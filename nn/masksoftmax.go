package nn

import (
	"fmt"
	"math"

	"github.com/as2/as2/kernel"
)

// Masked softmaxes, the normalisation step of attention over padded
// batches. A masked entry gets weight exactly 0 (not merely a tiny one), so
// padding cannot leak into the result, and a row whose every entry is
// masked gives all zeros rather than the NaNs of 0/0.

// SoftmaxMasked returns softmax(x + mask) row by row: mask is additive,
// [n] (one mask for every row) or the shape of x, and −Inf entries (or
// any large negative value, as Hugging Face's extended attention mask)
// exclude a column. Its gradient flows to x only.
func (tp *Tape[T]) SoftmaxMasked(x *Var[T], mask *Tensor[T]) *Var[T] {
	m, n := x.Value.Dims()
	if mask.Len() != n && mask.Len() != m*n {
		panic(fmt.Sprintf("nn: SoftmaxMasked: x %v, mask %v", x.Value.Shape, mask.Shape))
	}
	y := tp.outDirty(anyGrad(x), x.Value.Shape...)
	for i := 0; i < m; i++ {
		mr := mask.Data
		if len(mr) != n {
			mr = mr[i*n : (i+1)*n]
		}
		xr, yr := x.Value.Data[i*n:(i+1)*n], y.Value.Data[i*n:(i+1)*n]
		mx := T(math.Inf(-1))
		for j, v := range xr {
			yr[j] = v + mr[j]
			mx = max(mx, yr[j])
		}
		if math.IsInf(float64(mx), -1) {
			clear(yr) // every column masked
			continue
		}
		var s T
		for j, v := range yr {
			e := exp(v - mx)
			yr[j] = e
			s += e
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

// SoftmaxKeyPadding is softmax over the first keyLens[g] columns of each
// row of group g, the remaining (padded) columns getting weight 0. The m
// rows of x form len(keyLens) equal groups, one per sequence of a padded
// batch: the scores of sequence g's queries against its keys.
func (tp *Tape[T]) SoftmaxKeyPadding(x *Var[T], keyLens []int) *Var[T] {
	m, n := x.Value.Dims()
	if len(keyLens) == 0 || m%len(keyLens) != 0 {
		panic(fmt.Sprintf("nn: SoftmaxKeyPadding: %d rows in %d groups", m, len(keyLens)))
	}
	per := m / len(keyLens)
	y := tp.outDirty(anyGrad(x), x.Value.Shape...)
	for i := 0; i < m; i++ {
		kl := keyLens[i/per]
		if kl < 0 || kl > n {
			panic(fmt.Sprintf("nn: SoftmaxKeyPadding: key length %d of %d columns", kl, n))
		}
		softmaxPrefix(y.Value.Data[i*n:(i+1)*n], x.Value.Data[i*n:(i+1)*n], kl, 1)
	}
	if y.Grad != nil {
		tp.record(func() { softmaxBackward(x.Grad.Data, y.Value.Data, y.Grad.Data, m, n) })
	}
	return y
}

// softmaxPrefix writes softmax(scale·x[:k]) into y[:k] and zeros into
// y[k:]; x and y may be the same slice.
func softmaxPrefix[T Float](y, x []T, k int, scale T) {
	if k == 0 {
		clear(y)
		return
	}
	xs := x[:k]
	if is32[T]() {
		// The maximum and the normalisation 16 at a time on the AVX-512
		// path; the exponentials eight at a time where the CPU has AVX2
		// and FMA, the rest here.
		ys, sc := asF32(y[:k]), float32(scale)
		m := kernel.MaxOf(asF32(xs))
		n, s32 := kernel.ExpScaled(ys, asF32(xs), sc, m)
		for j, v := range asF32(xs)[n:] {
			e := exp32(sc * (v - m))
			ys[n+j] = e
			s32 += e
		}
		kernel.Scale(ys, 1/s32)
		clear(y[k:])
		return
	}
	mx := xs[0]
	for _, v := range xs {
		mx = max(mx, v)
	}
	var s T
	for j, v := range xs {
		e := exp(scale * (v - mx))
		y[j] = e
		s += e
	}
	inv := 1 / s
	for j := range y[:k] {
		y[j] *= inv
	}
	clear(y[k:])
}
