package embed

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCosine(t *testing.T) {
	cases := []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{0, 1}, 0},
		{[]float32{1, 1}, []float32{2, 2}, 1},
		{[]float32{1, 2, 3}, []float32{-1, -2, -3}, -1},
		{[]float32{3, 4, 0, 0, 0}, []float32{4, 3, 0, 0, 0}, 24.0 / 25},
		{nil, []float32{1, 2}, 0},
		{[]float32{0, 0}, []float32{1, 2}, 0},
	}
	for _, c := range cases {
		if got := Cosine(c.a, c.b); math.Abs(float64(got)-c.want) > 1e-6 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Cosine of different lengths did not panic")
		}
	}()
	Cosine([]float32{1}, []float32{1, 2})
}

// The dot product agrees with a float64 loop for every length (the
// unrolled loop has a tail).
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 40 {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			want += float64(a[i]) * float64(b[i])
		}
		if got := dot(a, b); math.Abs(float64(got)-want) > 1e-5 {
			t.Errorf("n=%d: dot = %v, want %v", n, got, want)
		}
	}
}

// Relatedness is the row and column maxima of the cosine matrix, with 0 for
// missing vectors.
func TestRelatedness(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vec := func() []float32 {
		if rng.IntN(4) == 0 {
			return nil // a token without a vector
		}
		v := make([]float32, 13)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for trial := range 200 {
		q, c := make([][]float32, rng.IntN(8)), make([][]float32, rng.IntN(30))
		for i := range q {
			q[i] = vec()
		}
		for j := range c {
			c[j] = vec()
		}
		rq, rc := Relatedness(q, c)
		if len(rq) != len(q) || len(rc) != len(c) {
			t.Fatalf("lengths %d, %d", len(rq), len(rc))
		}
		wq, wc := bruteForce(q, c)
		for i := range q {
			if rq[i] != wq[i] {
				t.Fatalf("trial %d: rq[%d] = %v, want %v", trial, i, rq[i], wq[i])
			}
		}
		for j := range c {
			if rc[j] != wc[j] {
				t.Fatalf("trial %d: rc[%d] = %v, want %v", trial, j, rc[j], wc[j])
			}
		}
		// The unit variant on normalized rows agrees up to rounding.
		uq, uc := RelatednessUnit(unit(q), unit(c))
		for i := range rq {
			if math.Abs(float64(uq[i]-rq[i])) > 1e-5 {
				t.Fatalf("trial %d: RelatednessUnit rq[%d] = %v, want %v", trial, i, uq[i], rq[i])
			}
		}
		for j := range rc {
			if math.Abs(float64(uc[j]-rc[j])) > 1e-5 {
				t.Fatalf("trial %d: RelatednessUnit rc[%d] = %v, want %v", trial, j, uc[j], rc[j])
			}
		}
	}
}

func bruteForce(q, c [][]float32) (rq, rc []float32) {
	rq, rc = make([]float32, len(q)), make([]float32, len(c))
	for i := range q {
		for j := range c {
			s := Cosine(q[i], c[j])
			if j == 0 || s > rq[i] {
				rq[i] = s
			}
			if i == 0 || s > rc[j] {
				rc[j] = s
			}
		}
	}
	return rq, rc
}

func unit(xs [][]float32) [][]float32 {
	out := make([][]float32, len(xs))
	for i, x := range xs {
		if x == nil {
			continue
		}
		v := New(len(x))
		v.Add("x", x)
		out[i] = v.Normalized().Vector(0)
	}
	return out
}

func TestRelatednessMissing(t *testing.T) {
	a, b := []float32{1, 0}, []float32{-1, 0}
	cases := []struct {
		q, c   [][]float32
		rq, rc []float32
	}{
		// Opposite vectors: cosine -1 ...
		{[][]float32{a}, [][]float32{b}, []float32{-1}, []float32{-1}},
		// ... but a missing candidate token contributes 0 to the maximum.
		{[][]float32{a}, [][]float32{b, nil}, []float32{0}, []float32{-1, 0}},
		// A missing question token gets 0.
		{[][]float32{nil, a}, [][]float32{a}, []float32{0, 1}, []float32{1}},
		// An all-zero vector counts as missing.
		{[][]float32{{0, 0}}, [][]float32{b}, []float32{0}, []float32{0}},
		// An empty side: every feature is 0.
		{[][]float32{a, b}, nil, []float32{0, 0}, []float32{}},
		{nil, [][]float32{a}, []float32{}, []float32{0}},
	}
	for _, c := range cases {
		for _, f := range []func(q, c [][]float32) ([]float32, []float32){Relatedness, RelatednessUnit} {
			rq, rc := f(c.q, c.c)
			if !slices.Equal(rq, c.rq) || !slices.Equal(rc, c.rc) {
				t.Errorf("Relatedness(%v, %v) = %v, %v, want %v, %v", c.q, c.c, rq, rc, c.rq, c.rc)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Relatedness of different lengths did not panic")
		}
	}()
	Relatedness([][]float32{{1, 2}}, [][]float32{{1, 2, 3}})
}

// BenchmarkRelatedness is one question of 7 tokens against one candidate
// of 25, 100-d, as Cosinet computes it for every pair.
func BenchmarkRelatedness(b *testing.B) {
	v := randomTable(b, 32, 100, 7)
	var q, c [][]float32
	for i := range 7 {
		q = append(q, v.Vector(i))
	}
	for j := 7; j < 32; j++ {
		c = append(c, v.Vector(j))
	}
	c[3] = nil // a missing token
	b.Run("cosine", func(b *testing.B) {
		for b.Loop() {
			Relatedness(q, c)
		}
	})
	n := v.Normalized()
	for i := range q {
		q[i] = n.Vector(i)
	}
	for j := range c {
		if c[j] != nil {
			c[j] = n.Vector(j + 7)
		}
	}
	b.Run("unit", func(b *testing.B) {
		for b.Loop() {
			RelatednessUnit(q, c)
		}
	})
}
