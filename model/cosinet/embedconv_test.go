package cosinet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

func embedConvTable() *nn.Tensor[float64] {
	rng := nn.NewRNG(3)
	t := nn.NewTensor[float64](6, 4)
	nn.Normal(t, 1, rng)
	return t
}

func TestEmbedConvGradients(t *testing.T) {
	table := embedConvTable()
	for _, tc := range []struct {
		name string
		ids  []int
		k    int
		pad  int
		pool bool
	}{
		{"same padding, repeats, unknown word", []int{1, 3, 1, -1, 5, 3}, 3, 1, false},
		{"valid", []int{0, 2, 4, 2, 1}, 2, 0, false},
		{"shorter than kernel", []int{2}, 5, 2, false},
		{"under max pool", []int{1, 3, 1, -1, 5, 3, 0}, 5, 2, true},
	} {
		ids, k, pad, pool := tc.ids, tc.k, tc.pad, tc.pool
		nntest.GradCheck(t, nntest.Case{Name: tc.name, Build: func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
			w := ps.New("w", 3, k*4)
			nn.GlorotUniform(w.Value, k*4, 3, rng)
			return func(tp *nn.Tape[float64], _ []*nn.Var[float64]) *nn.Var[float64] {
				y := embedConv(tp, table, ids, tp.Param(w), k, pad)
				if pool {
					return tp.MaxPool(y)
				}
				return y
			}
		}})
	}
}

// TestEmbedConvMatchesConv1d checks the forward pass against Conv1d over
// the looked-up rows.
func TestEmbedConvMatchesConv1d(t *testing.T) {
	table := embedConvTable()
	ids := []int{1, 3, 1, -1, 5, 3, 0}
	rng := nn.NewRNG(9)
	w := nn.NewTensor[float64](3, 5*4)
	nn.GlorotUniform(w, 20, 3, rng)
	tp := nn.NewTape[float64](nil, 1)
	got := embedConv(tp, table, ids, tp.Const(w), 5, 2)
	want := tp.Conv1d(tp.Embedding(tp.Const(table), ids), tp.Const(w), nil, 5, 2)
	for i := range want.Value.Data {
		if math.Abs(got.Value.Data[i]-want.Value.Data[i]) > 1e-12 {
			t.Fatalf("value %d: %v, Conv1d gives %v", i, got.Value.Data[i], want.Value.Data[i])
		}
	}
}

// TestConvWordsSharedProjection checks gradients when one projection serves
// several sentences, as for a question's candidates.
func TestConvWordsSharedProjection(t *testing.T) {
	table := embedConvTable()
	a, b := []int{1, 3, 1, -1, 5}, []int{3, 0, 2, 3, 3, 4}
	nntest.GradCheck(t, nntest.Case{Name: "shared", Build: func(ps *nn.Params[float64], rng *rand.Rand) nntest.Forward {
		w := ps.New("w", 3, 3*4)
		nn.GlorotUniform(w.Value, 12, 3, rng)
		return func(tp *nn.Tape[float64], _ []*nn.Var[float64]) *nn.Var[float64] {
			p := projectWords(tp, table, tp.Param(w), 3, a, b)
			return tp.Concat(tp.MaxPool(convWords(tp, p, a, 1)), tp.MaxPool(convWords(tp, p, b, 1)), tp.Reshape(convWords(tp, p, b, 0), 12))
		}
	}})
}

// TestProjectionCache checks that cached projections give the same
// convolution as fresh ones, across calls and after the cache overflows.
func TestProjectionCache(t *testing.T) {
	table := embedConvTable()
	rng := nn.NewRNG(5)
	w := nn.NewTensor[float64](3, 3*4)
	nn.GlorotUniform(w, 12, 3, rng)
	c := newProjectionCache(table, w, 3, 4)
	tp := nn.NewTape[float64](nil, 1)
	for _, ids := range [][]int{{1, 3, 1, -1, 5}, {3, 0, 2, 3, 3, 4}, {5, 5, 1}} {
		want := embedConv(tp, table, ids, tp.Const(w), 3, 1)
		for round := 0; round < 2; round++ {
			got := convWords(tp, c.Project(ids), ids, 1)
			for i := range want.Value.Data {
				if math.Abs(got.Value.Data[i]-want.Value.Data[i]) > 1e-12 {
					t.Fatalf("ids %v round %d: value %d is %v, want %v", ids, round, i, got.Value.Data[i], want.Value.Data[i])
				}
			}
		}
	}
}
