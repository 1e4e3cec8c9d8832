package dual

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

// TestInferBatched checks that inference over a batching encoder (USE-Lite,
// fine-tuned as the built-in dual encoder is) scores as the one-sentence
// path does, with candidates of many lengths (several batches, an empty
// one, one past MaxLen), and that it did run batched.
func TestInferBatched(t *testing.T) {
	q := encodertest.LongQuestion(70)
	q.Candidates = append(q.Candidates,
		dataset.Candidate{ID: "empty", Text: ""},
		dataset.Candidate{ID: "long", Text: strings.Repeat("Hamlet is a tragedy by Shakespeare. ", 12)})
	for name, h := range map[string]Hyper{
		"encoder head":        {Layer: LayerNone, Pool: PoolEncoder, FineTune: true, Scale: 20},
		"bilstm, fine-tuned":  func() Hyper { h := tinyHypers()["bilstm-attention"]; h.FineTune = true; return h }(),
		"transformer, shared": {Layer: "transformer", Pool: PoolMean, Hidden: 12, TLayers: 1, Heads: 2, FineTune: true, Shared: true, Scale: 20},
	} {
		t.Run(name, func(t *testing.T) {
			h.Encoder = ""
			m, err := New(h, encodertest.USELite(t, 1), 2)
			if err != nil {
				t.Fatalf("hyperparameters %+v: %v", h, err)
			}
			got, err := m.Score(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if m.batchTapes.Len() == 0 {
				t.Fatal("inference did not run batched")
			}
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			one := m.forward(tp, m.prepare(q), false).Value.Data
			want := make([]float64, len(one))
			for i, v := range one {
				want[i] = float64(v)
			}
			nntest.Close(t, "scores", got, want, 1e-5)
		})
	}
}

// TestLengthBatches checks the batches' plan: every sentence once, each
// batch within the positions allowed (a longer sentence alone) and of
// similar lengths, the costliest first.
func TestLengthBatches(t *testing.T) {
	toks := func(lens ...int) []encoder.Tokens {
		ts := make([]encoder.Tokens, len(lens))
		for i, l := range lens {
			ts[i] = encoder.Tokens{IDs: make([]int, l), Text: make([]string, l)}
		}
		return ts
	}
	for _, c := range []struct {
		name   string
		lens   []int
		maxTok int
		want   [][]int
	}{
		{"one", []int{5}, 512, [][]int{{0}}},
		{"empty", []int{0, 3}, 512, [][]int{{0, 1}}},
		{"split by positions", []int{10, 10, 10}, 20, [][]int{{0, 1}, {2}}},
		{"split by length", []int{4, 40, 5}, 512, [][]int{{1}, {0, 2}}},
		{"longer than the batch", []int{600, 3}, 512, [][]int{{0}, {1}}},
		{"none", nil, 512, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := lengthBatches(toks(c.lens...), c.maxTok)
			if !slices.EqualFunc(got, c.want, slices.Equal[[]int]) {
				t.Errorf("lengthBatches(%v, %d) = %v, want %v", c.lens, c.maxTok, got, c.want)
			}
		})
	}
}
