package nn

import (
	"math"
	"runtime"
)

// Adam is the Adam optimiser (Kingma & Ba 2015, Algorithm 1, with bias
// correction) and, with Decoupled set, AdamW (Loshchilov & Hutter 2019),
// whose weight decay shrinks the weights directly instead of being added to
// the gradient where Adam's normalisation would rescale it.
type Adam[T Float] struct {
	Beta1, Beta2, Eps float64
	WeightDecay       float64 // L2 (Adam) or decoupled (AdamW) decay factor
	Decoupled         bool
	// LRScale, when set, multiplies the learning rate of each parameter
	// (1: unchanged): fresh layers on a pre-trained network want a higher
	// rate than the weights they sit on.
	LRScale func(p *Param[T]) float64

	ps   *Params[T]
	m, v [][]T
	t    int
}

// NewAdam returns Adam with the paper's defaults β1=0.9, β2=0.999, ε=1e-8.
func NewAdam[T Float](ps *Params[T]) *Adam[T] {
	return &Adam[T]{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, ps: ps}
}

// NewAdamW returns AdamW with decoupled weight decay wd (0.01 is common).
func NewAdamW[T Float](ps *Params[T], wd float64) *Adam[T] {
	o := NewAdam(ps)
	o.WeightDecay, o.Decoupled = wd, true
	return o
}

// Steps is the number of updates made so far.
func (o *Adam[T]) Steps() int { return o.t }

// Step updates every parameter from the gradients g with learning rate lr
// (taken from a schedule such as SlantedTriangular). Large tensors are
// updated by GOMAXPROCS goroutines: with ~10⁶ parameters and one question
// per step the update would otherwise rival the forward pass.
func (o *Adam[T]) Step(g *Grads[T], lr float64) {
	params := o.ps.All()
	for len(o.m) < len(params) {
		n := params[len(o.m)].Value.Len()
		o.m = append(o.m, make([]T, n))
		o.v = append(o.v, make([]T, n))
	}
	o.t++
	bias1 := 1 - math.Pow(o.Beta1, float64(o.t))
	c := adamConsts[T]{
		b1: T(o.Beta1), b2: T(o.Beta2), omb1: T(1 - o.Beta1), omb2: T(1 - o.Beta2),
		step:  T(lr / bias1),
		invC2: T(1 / math.Sqrt(1-math.Pow(o.Beta2, float64(o.t)))),
		eps:   T(o.Eps), shrink: 1,
	}
	if o.Decoupled {
		c.shrink = T(1 - lr*o.WeightDecay)
	} else {
		c.l2 = T(o.WeightDecay)
	}
	workers := runtime.GOMAXPROCS(0)
	for i, p := range params {
		w, g, m, v := p.Value.Data, g.Of(p).Data, o.m[i], o.v[i]
		pc := &c
		if o.LRScale != nil {
			if s := o.LRScale(p); s != 1 {
				scaled := c
				scaled.step = T(s * lr / bias1)
				if o.Decoupled {
					scaled.shrink = T(1 - s*lr*o.WeightDecay)
				}
				pc = &scaled
			}
		}
		if len(w) >= 1<<15 {
			parallelFor(len(w), workers, func(lo, hi int) {
				adamUpdate(w[lo:hi], g[lo:hi], m[lo:hi], v[lo:hi], pc)
			})
		} else {
			adamUpdate(w, g, m, v, pc)
		}
	}
}

type adamConsts[T Float] struct {
	b1, b2, omb1, omb2, step, invC2, eps, l2, shrink T
}

// adamUpdate is the element-wise update (PyTorch's formulation):
// m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²;
// w ← shrink·w − lr/(1−β1ᵗ) · m / (√v/√(1−β2ᵗ) + ε).
func adamUpdate[T Float](w, g, m, v []T, c *adamConsts[T]) {
	b1, b2, omb1, omb2, step, invC2, eps, l2, shrink := c.b1, c.b2, c.omb1, c.omb2, c.step, c.invC2, c.eps, c.l2, c.shrink
	g, m, v = g[:len(w)], m[:len(w)], v[:len(w)]
	for j, wj := range w {
		gj := g[j] + l2*wj
		mj := b1*m[j] + omb1*gj
		vj := b2*v[j] + omb2*gj*gj
		m[j], v[j] = mj, vj
		w[j] = wj*shrink - step*mj/(sqrt(vj)*invC2+eps)
	}
}

// SlantedTriangular is the slanted triangular learning rate of ULMFiT
// (Howard & Ruder 2018, eq. 3): a short linear warm-up from MaxLR/Ratio to
// MaxLR over the first CutFrac of the Total steps, then a long linear decay
// back to MaxLR/Ratio.
type SlantedTriangular struct {
	MaxLR   float64
	Total   int     // total number of optimiser steps
	CutFrac float64 // fraction of steps spent increasing (paper: 0.1)
	Ratio   float64 // how much smaller the lowest rate is (paper: 32)
}

// NewSlantedTriangular returns the schedule with the paper's cut_frac 0.1
// and ratio 32.
func NewSlantedTriangular(maxLR float64, total int) SlantedTriangular {
	return SlantedTriangular{MaxLR: maxLR, Total: total, CutFrac: 0.1, Ratio: 32}
}

// At returns the learning rate of step t (0-based).
func (s SlantedTriangular) At(t int) float64 {
	cut := math.Floor(float64(s.Total) * s.CutFrac)
	cut = max(cut, 1)
	var p float64
	if ft := float64(t); ft < cut {
		p = ft / cut
	} else {
		p = 1 - (ft-cut)/(cut*(1/s.CutFrac-1))
	}
	p = max(p, 0)
	return s.MaxLR * (1 + p*(s.Ratio-1)) / s.Ratio
}
