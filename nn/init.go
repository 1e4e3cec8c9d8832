package nn

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// NewRNG returns a seeded PCG generator: every random choice of the engine
// (initialisation, dropout) is reproducible from a seed.
func NewRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// Uniform fills t with values drawn from U(−a, a).
func Uniform[T Float](t *Tensor[T], a float64, rng *rand.Rand) {
	for i := range t.Data {
		t.Data[i] = T((2*rng.Float64() - 1) * a)
	}
}

// Normal fills t with values drawn from N(0, std²).
func Normal[T Float](t *Tensor[T], std float64, rng *rand.Rand) {
	for i := range t.Data {
		t.Data[i] = T(rng.NormFloat64() * std)
	}
}

// GlorotUniform fills t from U(−a, a) with a = sqrt(6/(fanIn+fanOut)),
// which keeps activation and gradient variances roughly constant across
// layers (Glorot & Bengio 2010, eq. 16).
func GlorotUniform[T Float](t *Tensor[T], fanIn, fanOut int, rng *rand.Rand) {
	Uniform(t, math.Sqrt(6/float64(fanIn+fanOut)), rng)
}

// Orthogonal fills the matrix t [r,c] with a (semi-)orthogonal matrix times
// gain: the Q factor of a Gaussian matrix with the signs fixed by R's
// diagonal, which makes the distribution uniform (Saxe et al. 2014; Mezzadri
// 2007). Recurrent weights initialised this way neither explode nor vanish
// in early training.
func Orthogonal[T Float](t *Tensor[T], gain float64, rng *rand.Rand) {
	r, c := t.Dims()
	rows, cols := r, c
	if r < c {
		rows, cols = c, r // factor the tall shape, transpose back at the end
	}
	a := mat.NewDense(rows, cols, nil)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q, rr mat.Dense
	qr.QTo(&q)
	qr.RTo(&rr)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			qi, qj := i, j
			if r < c {
				qi, qj = j, i
			}
			s := 1.0
			if rr.At(qj, qj) < 0 {
				s = -1
			}
			t.Data[i*c+j] = T(gain * s * q.At(qi, qj))
		}
	}
}
