package nn

import (
	"fmt"
	"math"

	"github.com/as2/as2/kernel"
)

// Building blocks for similarity features, attention and normalisation.

// normEps keeps RowNormalize finite for all-zero rows (e.g. unknown words).
const normEps = 1e-12

// RowNormalize scales every row of x to unit L2 norm (rows of norm below
// 1e-12 are divided by 1e-12 instead, so zero rows stay zero).
func (tp *Tape[T]) RowNormalize(x *Var[T]) *Var[T] {
	m, n := x.Value.Dims()
	y := tp.out(anyGrad(x), x.Value.Shape...)
	norms := tp.arena.alloc(m)
	for i := 0; i < m; i++ {
		xr := x.Value.Data[i*n : (i+1)*n]
		nr := max(sqrt(dot(xr, xr)), normEps)
		norms[i] = nr
		yr := y.Value.Data[i*n : (i+1)*n]
		for j, v := range xr {
			yr[j] = v / nr
		}
	}
	if y.Grad != nil {
		tp.record(func() {
			for i := 0; i < m; i++ {
				yr, gr := y.Value.Data[i*n:(i+1)*n], y.Grad.Data[i*n:(i+1)*n]
				xg := x.Grad.Data[i*n : (i+1)*n]
				if norms[i] == normEps { // the constant-divisor branch
					axpy(1/norms[i], gr, xg)
					continue
				}
				// d(x/‖x‖) = (dy − y⟨y, dy⟩)/‖x‖
				d := dot(yr, gr)
				for j := range xg {
					xg[j] += (gr[j] - yr[j]*d) / norms[i]
				}
			}
		})
	}
	return y
}

// CosineSim returns the [Ta, Tb] matrix of cosine similarities between the
// rows of a [Ta, D] and b [Tb, D] (e.g. word-by-word relatedness features
// between question and candidate; max over a row gives each word's best
// match). Differentiable, but free of backward work for constant inputs.
func (tp *Tape[T]) CosineSim(a, b *Var[T]) *Var[T] {
	return tp.MatMulT(tp.RowNormalize(a), tp.RowNormalize(b))
}

// RowMax returns the maximum of every row of x [m, n] as a vector [m]
// (e.g. each question word's best cosine match in the candidate).
func (tp *Tape[T]) RowMax(x *Var[T]) *Var[T] {
	m, n := x.Value.Dims()
	if n == 0 {
		panic("nn: RowMax of empty rows")
	}
	y := tp.out(anyGrad(x), m)
	arg := make([]int, m)
	for i := 0; i < m; i++ {
		row := x.Value.Data[i*n : (i+1)*n]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		arg[i] = best
		y.Value.Data[i] = row[best]
	}
	if y.Grad != nil {
		tp.record(func() {
			for i, g := range y.Grad.Data {
				x.Grad.Data[i*n+arg[i]] += g
			}
		})
	}
	return y
}

// Transpose returns xᵀ for a matrix x.
func (tp *Tape[T]) Transpose(x *Var[T]) *Var[T] {
	m, n := mustMatrix("Transpose", x)
	y := tp.out(anyGrad(x), n, m)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			y.Value.Data[j*m+i] = x.Value.Data[i*n+j]
		}
	}
	if y.Grad != nil {
		tp.record(func() {
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					x.Grad.Data[i*n+j] += y.Grad.Data[j*m+i]
				}
			}
		})
	}
	return y
}

// Attention is dot-product attention softmax(scale·Q·Kᵀ)·V for q [Tq, D],
// k [Tk, D], v [Tk, Dv]: row i of the result [Tq, Dv] is the mix of V's rows
// that query i attends to. scale 0 means 1/√D (Vaswani et al. 2017); scale 1
// suits queries that a learned projection already scaled. It also returns the attention weights [Tq, Tk]. Composed from MatMulT,
// Scale, Softmax and MatMul, so its gradient is theirs.
func (tp *Tape[T]) Attention(q, k, v *Var[T], scale float64) (out, weights *Var[T]) {
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(q.Value.Cols()))
	}
	scores := tp.MatMulT(q, k)
	if scale != 1 {
		scores = tp.Scale(scores, scale)
	}
	weights = tp.Softmax(scores)
	return tp.MatMul(weights, v), weights
}

// LayerNorm normalises every row of x [m, n] to zero mean and unit variance
// and applies a per-feature gain and bias [n] (Ba et al. 2016); either may
// be nil (gain 1, bias 0).
func (tp *Tape[T]) LayerNorm(x, gain, bias *Var[T], eps float64) *Var[T] {
	m, n := x.Value.Dims()
	if (gain != nil && gain.Value.Len() != n) || (bias != nil && bias.Value.Len() != n) {
		panic(fmt.Sprintf("nn: LayerNorm: x %v with gain/bias of another width", x.Value.Shape))
	}
	y := tp.outDirty(anyGrad(x, gain, bias), x.Value.Shape...)
	xhat := tp.arena.allocDirty(m * n) // every element written below
	inv := tp.arena.allocDirty(m)      // 1/σ per row
	for i := 0; i < m; i++ {
		xr := x.Value.Data[i*n : (i+1)*n]
		if is32[T]() && gain != nil && bias != nil {
			// float32 with gain and bias (every transformer's LayerNorm):
			// 16 at a time on the AVX-512 path.
			inv[i] = T(kernel.LayerNormRow(asF32(y.Value.Data[i*n:(i+1)*n]), asF32(xhat[i*n:(i+1)*n]), asF32(xr),
				asF32(gain.Value.Data), asF32(bias.Value.Data), float32(eps)))
			continue
		}
		var mu T
		for _, v := range xr {
			mu += v
		}
		mu /= T(n)
		var va T
		for _, v := range xr {
			va += (v - mu) * (v - mu)
		}
		inv[i] = 1 / sqrt(va/T(n)+T(eps))
		for j, v := range xr {
			h := (v - mu) * inv[i]
			xhat[i*n+j] = h
			if gain != nil {
				h *= gain.Value.Data[j]
			}
			if bias != nil {
				h += bias.Value.Data[j]
			}
			y.Value.Data[i*n+j] = h
		}
	}
	if y.Grad != nil {
		tp.record(func() {
			dh := make([]T, n)
			for i := 0; i < m; i++ {
				gr, hr := y.Grad.Data[i*n:(i+1)*n], xhat[i*n:(i+1)*n]
				if gain != nil && gain.Grad != nil {
					for j, g := range gr {
						gain.Grad.Data[j] += g * hr[j]
					}
				}
				if bias != nil && bias.Grad != nil {
					addTo(bias.Grad.Data, gr)
				}
				if x.Grad == nil {
					continue
				}
				// dx = (dh − mean(dh) − x̂·mean(dh⊙x̂)) / σ
				var s1, s2 T
				for j, g := range gr {
					if gain != nil {
						g *= gain.Value.Data[j]
					}
					dh[j] = g
					s1 += g
					s2 += g * hr[j]
				}
				s1 /= T(n)
				s2 /= T(n)
				xg := x.Grad.Data[i*n : (i+1)*n]
				for j := range xg {
					xg[j] += (dh[j] - s1 - hr[j]*s2) * inv[i]
				}
			}
		})
	}
	return y
}

// LayerNormLayer holds the gain (init 1) and bias (init 0) of a LayerNorm.
type LayerNormLayer[T Float] struct {
	Gain, Bias *Param[T]
	Eps        float64
}

// NewLayerNorm creates parameters name.gain and name.bias of width n.
func NewLayerNorm[T Float](ps *Params[T], name string, n int) *LayerNormLayer[T] {
	l := &LayerNormLayer[T]{Gain: ps.New(name+".gain", n), Bias: ps.New(name+".bias", n), Eps: 1e-5}
	l.Gain.Value.Fill(1)
	return l
}

// Forward normalises the rows of x.
func (l *LayerNormLayer[T]) Forward(tp *Tape[T], x *Var[T]) *Var[T] {
	return tp.LayerNorm(x, tp.Param(l.Gain), tp.Param(l.Bias), l.Eps)
}
