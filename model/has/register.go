package has

import (
	"fmt"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
)

func init() {
	model.Register(model.Arch[Hyper]{
		Name:    Name,
		Summary: "HAS (Xu & Li 2020): BiLSTM, binary answer states by hashing, additive attention, cosine; --has-mode pooling/attention baselines",
		Help: `has is HAS, hashing-based answer selection (Xu & Li 2020): a BiLSTM over
the encoder's token states, shared by question and answer; the question
max-pooled; the answer's states hashed, tanh(β·V) in training with the binary
constraint δ·‖B − sgn(B)‖² and sgn(V) (±1, one bit each) at test; additive
attention of the question over the answer words; cosine similarity. Train it
with --objective triplet (the paper's hinge, margin 0.1). --has-mode pooling
(cosine of max-pooled vectors) and attention (float answer states) are the
paper's Table 5 baselines over the same encoder. β 5, δ 1e-6 and attention
size 128 are the paper's; the BiLSTM's size is as2's.`,
		Hyper:      RecipeHyper,
		PaperHyper: PaperHyper,
		Training:   training,
		Validate:   Hyper.validate,
		New: func(h Hyper, enc encoder.Encoder[float32], seed uint64) (model.Neural, error) {
			return New(h, enc, seed)
		},
		Describe: func(h Hyper) string {
			if h.Mode == Hash {
				if h.HashTrain == HashSTE {
					return fmt.Sprintf("hash β=%g straight-through", h.Beta)
				}
				return fmt.Sprintf("hash β=%g δ=%g", h.Beta, h.Delta)
			}
			return h.Mode
		},
	})
}

// training is as2's default training: 10 epochs at a peak learning rate of
// 1e-3 (Adam, a BiLSTM trained from scratch: the paper's 5e-6 is for
// fine-tuning BERT), 8 questions per step, gradients clipped to norm 5,
// keeping the epoch with the best dev MAP (the paper selects on dev after
// each epoch). --paper trains the paper's 18 epochs (its WikiQA setting).
// Not yet tuned on a dev set.
func training(paper bool, obj model.Objective) model.Training {
	t := model.Training{Objective: obj, Epochs: 10, LR: 1e-3, Batch: 8, ClipNorm: 5, KeepBest: true}
	if paper {
		t.Epochs = 18
	}
	return t
}
