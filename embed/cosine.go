package embed

import (
	"math"

	"github.com/as2/as2/kernel"
	"gonum.org/v1/gonum/blas/gonum"
)

// dot is the inner product of a and b (len(b) >= len(a)): our 8-wide AVX
// kernel where the CPU has it, else gonum's SSE assembly (about 25 ns for
// 100 dimensions, against 40 to 60 ns for the best unrolled Go loop; the
// concrete Implementation, not blas32, so that a cgo BLAS installed with
// blas32.Use is not called for tiny vectors).
func dot(a, b []float32) float32 {
	if s, ok := kernel.Dot(a, b); ok {
		return s
	}
	return gonum.Implementation{}.Sdot(len(a), a, 1, b, 1)
}

// invNorm returns 1/‖a‖, or 0 for a nil or all-zero vector, so that
// multiplying by it makes the cosine of such a vector 0.
func invNorm(a []float32) float32 {
	ss := dot(a, a)
	if ss == 0 {
		return 0
	}
	return float32(1 / math.Sqrt(float64(ss)))
}

// Cosine returns the cosine similarity of a and b: 0 when either is nil or
// all zeros (a missing word is unrelated to everything). It panics if both
// are non-empty and their lengths differ.
func Cosine(a, b []float32) float32 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) != len(b) {
		panic("embed: Cosine of vectors of different lengths")
	}
	return dot(a, b) * invNorm(a) * invNorm(b)
}

// Relatedness computes the word-relatedness features of Cosinet (Bonadiman
// & Moschitti 2020, section 4.1.1) for a question q and a candidate c given
// as the vectors of their tokens:
//
//	rq[i] = max_j cos(q[i], c[j])    rc[j] = max_i cos(q[i], c[j])
//
// A token without a vector is passed as nil; it contributes cosine 0 to
// every maximum it takes part in (so a nil q[i] gets rq[i] = 0, and a nil
// c[j] makes every rq[i] at least 0), as does an all-zero vector. With an
// empty other side, every feature is 0. Vectors must all have the same
// length; Relatedness panics otherwise.
//
// Norms are computed once per token, so the cost is one dot product per
// pair; with rows of [Vectors.Normalized], [RelatednessUnit] skips them.
func Relatedness(q, c [][]float32) (rq, rc []float32) {
	n, m := len(q), len(c)
	buf := make([]float32, 2*(n+m)) // rq, rc, then the inverse norms
	rq, rc = buf[:n:n], buf[n:n+m:n+m]
	iq, ic := buf[n+m:2*n+m], buf[2*n+m:]
	for i, x := range q {
		iq[i] = invNorm(x)
	}
	for j, y := range c {
		ic[j] = invNorm(y)
	}
	relatedness(rq, rc, q, c, iq, ic)
	return rq, rc
}

// RelatednessUnit is [Relatedness] for vectors already of unit length (or
// all zeros, or nil), such as the rows of [Vectors.Normalized]: each cosine
// is then a plain dot product. Given vectors of other lengths it returns
// dot products, not cosines.
func RelatednessUnit(q, c [][]float32) (rq, rc []float32) {
	buf := make([]float32, len(q)+len(c))
	rq, rc = buf[:len(q):len(q)], buf[len(q):]
	relatedness(rq, rc, q, c, nil, nil)
	return rq, rc
}

// relatedness fills rq and rc; iq and ic are inverse norms, or nil for unit
// vectors. A zero inverse norm marks a nil or zero vector: cosine 0.
func relatedness(rq, rc []float32, q, c [][]float32, iq, ic []float32) {
	if len(q) == 0 || len(c) == 0 {
		clear(rq)
		clear(rc)
		return
	}
	dim := -1
	for _, s := range [][][]float32{q, c} {
		for _, x := range s {
			if x == nil {
				continue
			}
			if dim < 0 {
				dim = len(x)
			} else if len(x) != dim {
				panic("embed: Relatedness of vectors of different lengths")
			}
		}
	}
	inf := float32(math.Inf(-1))
	for j := range rc {
		rc[j] = inf
	}
	for i, x := range q {
		best := inf
		for j, y := range c {
			var s float32
			if x != nil && y != nil {
				s = dot(x, y)
				if iq != nil {
					s = s * iq[i] * ic[j] // same rounding as Cosine
				}
			}
			if s > best {
				best = s
			}
			if s > rc[j] {
				rc[j] = s
			}
		}
		rq[i] = best
	}
}
