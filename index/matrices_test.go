package index

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomMatrices are n random answers of 1 to 5 rows of dim signs.
func randomMatrices(n, dim int, seed uint64) []BitMatrix {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]BitMatrix, n)
	w := Words(dim)
	for i := range out {
		out[i].Dim = dim
		for range (1 + rng.IntN(5)) * w {
			out[i].Bits = append(out[i].Bits, rng.Uint64())
		}
		for r := w - 1; r < len(out[i].Bits) && dim%64 != 0; r += w {
			out[i].Bits[r] &= 1<<(dim%64) - 1
		}
	}
	return out
}

// onesQuery scores an answer by the share of its bits set against the
// question's own code, a scoring function that needs the whole matrix.
type onesQuery struct{ code []uint64 }

func (q onesQuery) Scorer() func(BitMatrix) float64 {
	return func(m BitMatrix) float64 {
		same, w := 0, Words(m.Dim)
		for r := range m.Rows() {
			for j, x := range m.Bits[r*w : (r+1)*w] {
				same += bits.OnesCount64(^(x ^ q.code[j]))
			}
		}
		return float64(same) / float64(m.Rows())
	}
}

func TestMatrices(t *testing.T) {
	ctx := context.Background()
	const dim = 70
	answers := randomMatrices(3000, dim, 1) // enough work for the parallel scan
	x, err := NewMatrices(dim)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(answers))
	for i := range ids {
		ids[i] = fmt.Sprint("a", i)
	}
	if err := x.Add(ids, answers); err != nil {
		t.Fatal(err)
	}
	q := onesQuery{randomMatrices(1, dim, 9)[0].Bits[:Words(dim)]}
	score := q.Scorer()
	want := make([]float64, len(answers))
	order := make([]int, len(answers))
	for i, a := range answers {
		want[i], order[i] = score(a), i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case want[a] > want[b]:
			return -1
		case want[a] < want[b]:
			return 1
		}
		return 0
	})
	hits, err := x.Search(ctx, q, 10)
	if err != nil {
		t.Fatal(err)
	}
	for j, h := range hits {
		if h.ID != ids[order[j]] || h.Score != want[order[j]] {
			t.Fatalf("hit %d: %v, want %s %v", j, h, ids[order[j]], want[order[j]])
		}
	}
	idx := []int{2999, 0, 17, 0}
	got, err := x.Score(ctx, q, idx)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range idx {
		if got[k] != want[i] {
			t.Fatalf("Score of %d: %v, want %v", i, got[k], want[i])
		}
	}
	if x.CodeBytes() != int64(8*len(x.bits)) || x.Matrix(5).Rows() != answers[5].Rows() || x.ID(5) != "a5" {
		t.Fatal("accessors disagree with what was added")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := x.Search(canceled, q, 3); err == nil {
		t.Fatal("a canceled search returned no error")
	}
}

func TestMatricesAddRefusals(t *testing.T) {
	x, _ := NewMatrices(70)
	for _, c := range []struct {
		name string
		a    BitMatrix
		want string
	}{
		{"dim", BitMatrix{Dim: 64, Bits: []uint64{1}}, "dimensions"},
		{"empty", BitMatrix{Dim: 70}, "rows"},
		{"ragged", BitMatrix{Dim: 70, Bits: []uint64{1, 2, 3}}, "rows"},
		{"padding", BitMatrix{Dim: 70, Bits: []uint64{1, 1 << 10}}, "past dimension"},
	} {
		if err := x.Add([]string{"a"}, []BitMatrix{c.a}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %q", c.name, err, c.want)
		}
	}
	if x.Len() != 0 {
		t.Fatal("a refused answer was stored")
	}
	if _, err := NewMatrices(0); err == nil {
		t.Fatal("dimension 0 accepted")
	}
}
