package nn

import (
	"fmt"
	"testing"
)

// randTensor fills a tensor of the given shape from rng-seeded normals.
func randTensor(seed uint64, shape ...int) *Tensor[float32] {
	rng := NewRNG(seed)
	t := NewTensor[float32](shape...)
	for i := range t.Data {
		t.Data[i] = float32(rng.NormFloat64())
	}
	return t
}

// The inference shortcuts (rows spread over goroutines, the backward
// direction of a bidirectional layer on a tape of its own, Conv1d by a
// memoised transposed weight, MaxPool without argmax) give the values of
// the training path.
func TestInferenceMatchesTraining(t *testing.T) {
	ps := NewParams[float32]()
	rng := NewRNG(5)
	bi := NewBiRNN(ps, "birnn", 12, 6, rng)
	conv := ps.New("conv", 7, 3*4) // 7 filters, width 3 over 4 channels
	conv.Value = randTensor(3, 7, 3*4)
	for _, n := range []int{0, 1, 7, 8, 17, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			feats := randTensor(uint64(n)+1, max(n, 1), 4)
			// row i: MaxPool(Conv1d(feats rows ≥ i)) concatenated with itself
			row := func(tp *Tape[float32], i int) *Var[float32] {
				x := FromSlice(feats.Data[min(i, n-1)*4:], feats.Shape[0]-min(i, n-1), 4)
				v := tp.MaxPool(tp.Conv1d(tp.Const(x), tp.Param(conv), nil, 3, 1))
				return tp.Concat(v, v)
			}
			train := NewTape(ps.NewGrads(), 1)
			var want []*Var[float32]
			for i := 0; i < n; i++ {
				want = append(want, row(train, i))
			}
			var pool TapePool[float32]
			got := pool.Rows(n, row)
			if n == 0 {
				if got.Len() != 0 {
					t.Fatalf("Rows(0) has %d values", got.Len())
				}
				return
			}
			stacked := train.Stack(want...)
			assertClose(t, "Rows", got.Data, stacked.Value.Data)
			x := randTensor(9, n, 12)
			wantBi := bi.Forward(train, train.Const(x))
			gotBi := pool.Scores(func(tp *Tape[float32]) *Var[float32] { return tp.Reshape(bi.Forward(tp, tp.Const(x)), n*12) })
			got64 := make([]float32, len(gotBi))
			for i, v := range gotBi {
				got64[i] = float32(v)
			}
			assertClose(t, "Bidirectional", got64, wantBi.Value.Data)
		})
	}
}

// Conv1d agrees with the definition, with few input channels and many,
// also when the transposed weights are memoised.
func TestConv1dMatchesDefinition(t *testing.T) {
	for _, d := range []int{2, 40} {
		const steps, k, pad, f = 9, 5, 2, 20
		x, w, b := randTensor(1, steps, d), randTensor(2, f, k*d), randTensor(3, f)
		tp := NewTape[float32](nil, 0)
		for pass := 0; pass < 2; pass++ { // the second pass reuses the memoised transpose
			got := tp.Conv1d(tp.Const(x), tp.Const(w), tp.Const(b), k, pad).Value.Data
			var want []float32
			for tOut := 0; tOut < steps; tOut++ {
				for j := 0; j < f; j++ {
					s := b.Data[j]
					for o := 0; o < k; o++ {
						if ti := tOut + o - pad; ti >= 0 && ti < steps {
							for c := 0; c < d; c++ {
								s += x.Data[ti*d+c] * w.Data[j*k*d+o*d+c]
							}
						}
					}
					want = append(want, s)
				}
			}
			assertClose(t, fmt.Sprintf("Conv1d, %d channels, pass %d", d, pass), got, want)
		}
	}
}

func assertClose(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := got[i] - want[i]; d > 1e-4 || d < -1e-4 {
			t.Fatalf("%s: value %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// A panic in one of Parallel's chunks reaches the caller (where a server's
// recovery sees it) instead of ending the process; every chunk still runs.
func TestParallelPanics(t *testing.T) {
	var ran [64]bool
	defer func() {
		if r := recover(); r != "chunk" {
			t.Fatalf("recovered %v, want the chunk's panic", r)
		}
		for i, ok := range ran {
			if !ok {
				t.Fatalf("item %d did not run", i)
			}
		}
	}()
	Parallel(len(ran), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ran[i] = true
		}
		if hi == len(ran) {
			panic("chunk")
		}
	})
	t.Fatal("no panic")
}
