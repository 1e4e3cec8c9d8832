package bench

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/as2/as2/index"
)

// PadVectors returns size vectors, their ids and how many are real: x's
// (the first size, under their ids xids), then, if x holds fewer, seeded
// mixtures of them: two stored vectors a and b drawn uniformly,
// λa + (1−λ)b with λ uniform in [0, 1), plus Gaussian noise of standard
// deviation noise per component, scaled to a's norm (so a pool of unit
// vectors stays one). The mixtures lie between real sentences, where a
// question's near neighbours are, so they compete with the real answers
// instead of sitting apart as random vectors would. The padded ids are
// pad-1, pad-2, ...
func PadVectors(x *index.Flat, xids []string, size int, seed uint64, noise float64) (ids []string, vecs [][]float32, real int, err error) {
	switch {
	case x.Len() == 0:
		return nil, nil, 0, fmt.Errorf("padding: no vectors to pad from")
	case len(xids) != x.Len():
		return nil, nil, 0, fmt.Errorf("padding: %d ids for %d vectors", len(xids), x.Len())
	case size < 1:
		return nil, nil, 0, fmt.Errorf("padding: size %d, want at least 1", size)
	case !(noise >= 0):
		return nil, nil, 0, fmt.Errorf("padding: noise %v, want 0 or more", noise)
	}
	n := min(x.Len(), size)
	ids, vecs = make([]string, size), make([][]float32, size)
	for i := range n {
		ids[i], vecs[i] = xids[i], x.Vector(i)
	}
	rng := rand.New(rand.NewPCG(seed, 4))
	dim := x.Dim()
	for i := n; i < size; i++ {
		a, b := x.Vector(rng.IntN(n)), x.Vector(rng.IntN(n))
		l := rng.Float64()
		v := make([]float32, dim)
		var sv, sa float64
		for j := range v {
			e := l*float64(a[j]) + (1-l)*float64(b[j]) + noise*rng.NormFloat64()
			v[j] = float32(e)
			sv += e * e
			sa += float64(a[j]) * float64(a[j])
		}
		if sv > 0 {
			s := float32(math.Sqrt(sa / sv))
			for j := range v {
				v[j] *= s
			}
		}
		ids[i], vecs[i] = fmt.Sprintf("pad-%d", i-n+1), v
	}
	return ids, vecs, n, nil
}
