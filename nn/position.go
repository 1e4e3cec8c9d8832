package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Position encodings: attention is permutation-invariant, so a transformer
// adds a vector per position to its token embeddings (Vaswani et al. 2017,
// §3.5), either a fixed sinusoid or a learned table (BERT: Devlin et al.
// 2019).

// SinusoidLayout chooses how the sines and cosines of a sinusoidal
// encoding are arranged; models trained with one layout need that layout.
type SinusoidLayout int

const (
	// SinusoidInterleaved is the layout of Vaswani et al. (2017, §3.5):
	// PE[p, 2i] = sin(p/10000^(2i/d)), PE[p, 2i+1] = cos(p/10000^(2i/d)).
	// (An odd last column holds a sine.)
	SinusoidInterleaved SinusoidLayout = iota
	// SinusoidConcat is tensor2tensor's get_timing_signal_1d (also
	// fairseq's SinusoidalPositionalEmbedding): the first d/2 columns hold
	// sin(p·f_i), the next d/2 cos(p·f_i), with f_i = 10000^(−i/(d/2−1))
	// for i < d/2, so the lowest frequency is exactly 1/10000 (a slightly
	// different spacing from the interleaved layout's). An odd width gets
	// a zero last column, as in tensor2tensor.
	SinusoidConcat
)

// Sinusoid returns the [n, d] sinusoidal position encoding of positions
// 0..n−1 in the given layout.
func Sinusoid[T Float](n, d int, layout SinusoidLayout) *Tensor[T] {
	pe := NewTensor[T](n, d)
	switch layout {
	case SinusoidInterleaved:
		for i := 0; i < d; i += 2 {
			f := math.Pow(10000, -float64(i)/float64(d))
			for p := 0; p < n; p++ {
				pe.Data[p*d+i] = T(math.Sin(float64(p) * f))
				if i+1 < d {
					pe.Data[p*d+i+1] = T(math.Cos(float64(p) * f))
				}
			}
		}
	case SinusoidConcat:
		half := d / 2
		inc := math.Log(10000) / float64(max(half-1, 1))
		for i := 0; i < half; i++ {
			f := math.Exp(-float64(i) * inc)
			for p := 0; p < n; p++ {
				pe.Data[p*d+i] = T(math.Sin(float64(p) * f))
				pe.Data[p*d+half+i] = T(math.Cos(float64(p) * f))
			}
		}
	default:
		panic(fmt.Sprintf("nn: unknown sinusoid layout %d", int(layout)))
	}
	return pe
}

// AddPositions adds row t of pe [≥ seqLen, D] to row t of every sequence of
// x [B·seqLen, D] (a batch of sequences padded to seqLen). The gradient
// flows to x and, for a learned table, to pe's first seqLen rows.
func (tp *Tape[T]) AddPositions(x, pe *Var[T], seqLen int) *Var[T] {
	m, d := mustMatrix("AddPositions", x)
	np, dp := mustMatrix("AddPositions", pe)
	if dp != d || seqLen <= 0 || seqLen > np || m%seqLen != 0 {
		panic(fmt.Sprintf("nn: AddPositions: x %v, positions %v, length %d", x.Value.Shape, pe.Value.Shape, seqLen))
	}
	y := tp.outDirty(anyGrad(x, pe), m, d)
	span := seqLen * d
	for o := 0; o < m*d; o += span {
		add(y.Value.Data[o:o+span], x.Value.Data[o:o+span], pe.Value.Data[:span])
	}
	if y.Grad != nil {
		tp.record(func() {
			if x.Grad != nil {
				addTo(x.Grad.Data, y.Grad.Data)
			}
			if pe.Grad != nil {
				for o := 0; o < m*d; o += span {
					addTo(pe.Grad.Data[:span], y.Grad.Data[o:o+span])
				}
			}
		})
	}
	return y
}

// LearnedPositions is a trainable table of position vectors [MaxLen, D]
// (Devlin et al. 2019, §3: BERT's position embeddings).
type LearnedPositions[T Float] struct {
	Table *Param[T]
}

// NewLearnedPositions creates name.weight [maxLen, d], initialised from
// N(0, 0.02²) as BERT's.
func NewLearnedPositions[T Float](ps *Params[T], name string, maxLen, d int, rng *rand.Rand) *LearnedPositions[T] {
	l := &LearnedPositions[T]{Table: ps.New(name+".weight", maxLen, d)}
	Normal(l.Table.Value, 0.02, rng)
	return l
}

// Forward adds the positions to x [B·seqLen, D]; seqLen must not exceed
// the table's MaxLen.
func (l *LearnedPositions[T]) Forward(tp *Tape[T], x *Var[T], seqLen int) *Var[T] {
	return tp.AddPositions(x, tp.Param(l.Table), seqLen)
}
