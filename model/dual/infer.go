package dual

import (
	"sort"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
)

// batchEncoder is an encoder that runs many sentences through one padded
// pass whose real rows equal Encode's (uselite.Encoder.EncodeTokensBatch).
type batchEncoder interface {
	EncodeTokensBatch(tp *nn.Tape[float32], ts []encoder.Tokens) (*nn.Var[float32], int)
}

// inferTokens bounds an inference batch's padded positions, as the
// cross-encoder's do (its inferTokens has the measurements): wide enough
// for the int8 and float32 products, small enough that a layer's
// activations stay in cache and a worker's tapes stay small.
const inferTokens = 128

// inferBatched scores in's candidates as forward does in inference, with
// the question and the candidates encoded together in batches of similar
// length (lengthBatches), each on a pooled tape that is reset after it,
// spread over GOMAXPROCS workers. One sentence per pass wastes the
// matrix products on a few rows each, and a tape that runs many
// sentences keeps every one's activations (hundreds of MB for a
// thousand candidates). It reports false, doing nothing, where it does
// not apply: an encoder with no batched pass, or sentences whose states
// prepare already holds.
func (n *net[T]) inferBatched(caller *nn.Tape[float32], in *input[float32]) (*nn.Var[float32], bool) {
	f, ok := any(n).(*net[float32])
	if !ok {
		return nil, false
	}
	be, ok := f.enc.(batchEncoder)
	if !ok {
		return nil, false
	}
	sents := make([]encoder.Tokens, 1+len(in.Candidates))
	if in.Text.States != nil {
		return nil, false
	}
	sents[0] = in.Text.Tokens
	for i, c := range in.Candidates {
		if c.States != nil {
			return nil, false
		}
		sents[i+1] = c.Tokens
	}
	vecs := make([][]float32, len(sents))
	bs := lengthBatches(sents, inferTokens)
	f.batchTapes.Run(caller, len(bs), func(tp *nn.Tape[float32], k int) {
		batch := make([]encoder.Tokens, len(bs[k]))
		for j, i := range bs[k] {
			batch[j] = sents[i]
		}
		x, t := be.EncodeTokensBatch(tp, batch)
		for j, i := range bs[k] {
			tw := f.a
			if i == 0 {
				tw = f.q
			}
			l := max(min(len(sents[i].IDs), t), 1)
			v, _ := f.embed(tp, tw, tp.Rows(x, j*t, j*t+l), false)
			vecs[i] = append([]float32(nil), v.Value.Data...)
		}
	})
	// Section 3.2: the score is the inner product with the question's vector.
	q := vecs[0]
	scores := make([]float32, len(in.Candidates))
	for i := range scores {
		var s float32
		for k, v := range vecs[i+1] {
			s += v * q[k]
		}
		scores[i] = s
	}
	return caller.Const(nn.FromSlice(scores, len(scores))), true
}

// lengthBatches groups sentence indices into batches by length: sorted by
// length, a batch takes the next sentence while its padded size stays
// within maxTok positions and the length within 1.25× + 8 of its
// shortest (so that short sentences do not pay for long ones' padding),
// largest batches first, so that the workers end on short ones.
func lengthBatches(ts []encoder.Tokens, maxTok int) [][]int {
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(ts[order[a]].IDs) < len(ts[order[b]].IDs) })
	var out [][]int
	for lo := 0; lo < len(order); {
		first := max(len(ts[order[lo]].IDs), 1)
		hi := lo + 1
		for hi < len(order) {
			l := max(len(ts[order[hi]].IDs), 1)
			if (hi-lo+1)*l > maxTok || float64(l) > 1.25*float64(first)+8 {
				break
			}
			hi++
		}
		out = append(out, order[lo:hi])
		lo = hi
	}
	cost := func(b []int) int { return len(b) * max(len(ts[b[len(b)-1]].IDs), 1) }
	sort.SliceStable(out, func(i, j int) bool { return cost(out[i]) > cost(out[j]) })
	return out
}
