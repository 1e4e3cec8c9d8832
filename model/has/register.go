package has

import (
	"fmt"
	"strings"

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
		Recipe:   RecipeHyper,
		Paper:    PaperHyper,
		Flags:    flags,
		Training: training,
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

// flags declares the flags that set the hyperparameters.
func flags(fs model.FlagSet, h *Hyper) {
	fs.StringVar(&h.Mode, "has-mode", h.Mode, "composition: "+strings.Join(Modes, ", ")+" (HAS)")
	fs.Float64Var(&h.Beta, "beta", h.Beta, "β of the hashing layer tanh(βV) (the paper: 5)")
	fs.Float64Var(&h.Delta, "delta", h.Delta, "δ, the binary constraint's coefficient (the paper: 1e-6 in its sensitivity study, tuned among 0 to 1e-4)")
	fs.StringVar(&h.HashTrain, "hash-train", HashTanh, "how the hashing layer trains: tanh (the paper's tanh(βV), sgn(V) at test) or ste (sgn(V) in training too, tanh(βV)'s gradient passed straight through; needs --delta 0)")
	fs.IntVar(&h.Hidden, "hidden", h.Hidden, "BiLSTM size per direction")
	fs.StringVar(&h.Layer, "layer", LayerBiLSTM, "encoding layer over the encoder's token states: bilstm, or none (the encoder's own states, as the paper hashes BERT's; with --fine-tune)")
	fs.BoolVar(&h.FineTune, "fine-tune", h.FineTune, "train the encoder's weights too, as the paper fine-tunes BERT (a transformer encoder such as use-lite; use a low --lr)")
	fs.IntVar(&h.AttnHidden, "attention-hidden", h.AttnHidden, "attention hidden size M (the paper: 128 for WikiQA)")
	fs.Float64Var(&h.WordDropout, "word-dropout", h.WordDropout, "dropout on the word vectors (the paper: 0.1)")
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
