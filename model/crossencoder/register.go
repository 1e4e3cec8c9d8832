package crossencoder

import (
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/model"
)

func init() {
	model.Register(model.Arch[Hyper]{
		Name:    Name,
		Summary: "cross-encoder: a transformer over [question; candidate], fine-tuned (Nogueira & Cho 2019)",
		Help: `crossencoder reads the question and a candidate as one sequence through a
transformer and scores the pooled states with a linear layer (Nogueira & Cho
2019), fine-tuning the transformer: --encoder use-lite (the default: USE-Lite's
two layers over question </s> candidate, mean-pooled) or --encoder hf:DIR (a
BERT-family Hugging Face checkpoint: [CLS] q [SEP] a [SEP] with token types,
the [CLS] state or, when the checkpoint has one, its pooler and classifier).
as2's recipe: 2 epochs at a peak learning rate of 5e-5, 8 questions per step,
gradients clipped to norm 1, dropout 0.1 on the pooled vector, keeping the
epoch with the best dev MAP.`,
		Recipe:   Recipe,
		Paper:    Recipe,
		Flags:    flags,
		Training: training,
		New: func(h Hyper, enc encoder.Encoder[float32], seed uint64) (model.Neural, error) {
			return New(h, enc, seed)
		},
		Describe: func(h Hyper) string { return h.Encoder + ", " + h.Pool + " pooling" },
		Encoder:  uselite.Kind,
	})
}

func flags(fs model.FlagSet, h *Hyper) {
	fs.StringVar(&h.Pool, "pool", h.Pool, "pooling: mean, cls or pooler (none: pooler for a checkpoint that has one, cls for other BERT checkpoints, mean for use-lite)")
	fs.Float64Var(&h.Dropout, "dropout", h.Dropout, "dropout on the pooled vector")
	fs.IntVar(&h.BatchTokens, "batch-tokens", h.BatchTokens, "most positions (candidates x longest) in one padded batch")
}

// training is the fine-tuning recipe: BERT's small learning rates (Devlin
// et al. 2019 fine-tune at 2e-5 to 5e-5), a short schedule, and a tight
// gradient clip.
func training(_ bool, obj model.Objective) model.Training {
	return model.Training{Objective: obj, Epochs: 2, LR: 5e-5, Batch: 8, ClipNorm: 1, KeepBest: true}
}
