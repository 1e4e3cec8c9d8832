package compagg

import (
	"fmt"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
)

func init() {
	for _, v := range []struct{ name, summary, help string }{
		{CA, "Compare-Aggregate (Wang & Jiang 2017) as the Cosinet paper runs it", `ca is the Compare-Aggregate model of Wang & Jiang (2017) as the Cosinet paper
runs it: context representation, each candidate word attending over the
question, SUBMULT+NN comparison, a CNN of widths 1-5 (150 filters each).`},
		{CompClip, "Comp-Clip (Bian et al. 2017; Yoon et al. 2019): clipped attention both ways, latent clustering", `compclip is Comp-Clip (Bian et al. 2017, as in Yoon et al. 2019): attention
both ways clipped to each word's --clip-k best matches (k-max attention; or
--attention-clip threshold), element-wise comparison, CNNs of widths 1-5 (100
filters each) on both sides. --clusters 8 adds latent clustering (--cluster-k:
the paper's 6 for WikiQA, 4 for TrecQA).

For ca and compclip as2's recipe, chosen on the WikiQA dev set, adds an
exact-match feature and dropout 0.3 on the word vectors, and trains 5 epochs
at a peak learning rate of 3e-3, gradients clipped to norm 5, keeping the
epoch with the best dev MAP; --paper keeps the papers' model settings.`},
	} {
		variant := v.name
		model.Register(model.Arch[Hyper]{
			Name: variant, Summary: v.summary, Help: v.help,
			Hyper:      func() Hyper { return RecipeHyper(variant) },
			PaperHyper: func() Hyper { return PaperHyper(variant) },
			Training:   training,
			Validate: func(h Hyper) error {
				if h.Clip == "" {
					h.Clip = ClipNone
				}
				if h.RNN == "none" {
					h.RNN = ""
				}
				return h.validate()
			},
			New: func(h Hyper, enc encoder.Encoder[float32], seed uint64) (model.Neural, error) {
				if h.Variant != variant {
					return nil, fmt.Errorf("hyperparameters are for %q, the file says %q: the file is corrupt", h.Variant, variant)
				}
				return New(h, enc, seed)
			},
			Describe: func(h Hyper) string { return model.DescribeRNN(h.RNN) },
		})
	}
}

// training is as2's default training for these models, chosen on the
// WikiQA dev set: 5 epochs at a peak learning rate of 3e-3 (the papers do
// not give theirs), 8 questions per step, gradients clipped to norm 5 (the
// Comp-Clip paper's), keeping the epoch with the best dev MAP (the papers'
// early stopping).
func training(_ bool, obj model.Objective) model.Training {
	return model.Training{Objective: obj, Epochs: 5, LR: 3e-3, Batch: 8, ClipNorm: 5, KeepBest: true}
}
