package compagg

import (
	"math/rand/v2"

	"github.com/as2/as2/nn"
)

// The compare-aggregate layers that nn's generic ops compose.

// clipAttention is the soft alignment of the compare-aggregate models
// (Wang & Jiang 2017; Comp-Clip paper, equation 2): every row of a [Ta, D]
// scores the rows of b [Tb, D] through their keys [Tb, D] (typically W·b +
// bias), the scores are normalised by ClipSoftmax(k, threshold) (dynamic-
// clip attention; plain softmax when both are zero), and the row gets the
// matching mix of b's rows, giving [Ta, D].
func clipAttention[T nn.Float](tp *nn.Tape[T], a, b, keys *nn.Var[T], k int, threshold float64) *nn.Var[T] {
	return tp.MatMul(tp.ClipSoftmax(tp.MatMulT(a, keys), k, threshold), b)
}

// latentClusters is the latent clustering of Yoon et al. (2019, equation
// 5): N latent memory vectors M [N, Out]; a sentence representation s [In]
// is compared with each, p = sᵀ·W·Mᵀ, the K largest similarities are
// softmax-normalised (k-max pooling, then softmax) and the result is the
// memories' weighted sum [Out].
type latentClusters[T nn.Float] struct {
	W, Memory *nn.Param[T]
	K         int
}

// newLatentClusters creates n Glorot-initialised memories of size out for
// inputs of size in, mixing the k most similar.
func newLatentClusters[T nn.Float](ps *nn.Params[T], name string, in, out, n, k int, rng *rand.Rand) *latentClusters[T] {
	l := &latentClusters[T]{W: ps.New(name+".weight", in, out), Memory: ps.New(name+".memory", n, out), K: k}
	nn.GlorotUniform(l.W.Value, in, out, rng)
	nn.GlorotUniform(l.Memory.Value, out, n, rng)
	return l
}

// Forward maps the sentence representation s [In] to its cluster vector [Out].
func (l *latentClusters[T]) Forward(tp *nn.Tape[T], s *nn.Var[T]) *nn.Var[T] {
	mem := tp.Param(l.Memory)
	p := tp.MatMulT(tp.MatMul(s, tp.Param(l.W)), mem)
	return tp.MatMul(tp.ClipSoftmax(p, l.K, 0), mem)
}
