package cosinet

import (
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
)

func init() {
	model.Register(model.Arch[Hyper]{
		Name:    Architecture,
		Summary: "Cosinet (Bonadiman & Moschitti 2020): cosine word relatedness + CNN, optional RNN over the candidates",
		Help: `cosinet is the Cosinet of Bonadiman & Moschitti (2020): static word embeddings
with a max-cosine relatedness channel, one CNN per side, the pair vector
[q*c; q-c]. 3 epochs, learning rate peaking at the paper's 2e-3 (pointwise) or
2e-4 (listwise). The defaults are as2's recipe, chosen on the WikiQA dev set:
the paper's Cosinet (300 filters of width 5, relatedness channel, BiRNN) plus
an exact-match channel, overlap and reciprocal-rank features at the scorer,
dropout 0.5, and 8 questions per step. --paper trains exactly the paper's
model instead (one question per step, none of the additions).`,
		Hyper:      RecipeHyper,
		PaperHyper: PaperHyper,
		Training:   training,
		Validate: func(h Hyper) error {
			if h.RNN == "none" {
				h.RNN = ""
			}
			return h.validate()
		},
		New: func(h Hyper, enc encoder.Encoder[float32], seed uint64) (model.Neural, error) {
			return New(h, enc, seed)
		},
		Describe: func(h Hyper) string { return model.DescribeRNN(h.RNN) },
	})
}

// PaperHyper is Cosinet as the paper describes it (section 5.2): static
// embeddings plus the relatedness channel, 300 filters of width 5, with a
// BiRNN over the candidates.
func PaperHyper() Hyper {
	return Hyper{Filters: 300, Kernel: 5, Relatedness: true, RNN: "birnn"}
}

// RecipeHyper is as2's default Cosinet: the paper's, plus the exact-match
// channel, the overlap and reciprocal-rank pair features and dropout 0.5 on
// the pair vectors. It was chosen on the WikiQA dev set (mean dev MAP over
// seeds; see notes/2026-11-22-cosinet.md), never on test.
func RecipeHyper() Hyper {
	h := PaperHyper()
	h.ExactMatch, h.PairFeatures, h.Dropout = true, true, 0.5
	return h
}

// PaperLR is the paper's peak learning rate (section 5.2).
func PaperLR(obj model.Objective) float64 {
	if obj == model.Listwise {
		return 2e-4
	}
	return 2e-3
}

// training is as2's default training: the paper's 3 epochs and learning
// rate, with 8 questions per step (which keeps both cores busy; the paper
// does not give its listwise batch size), or one question per step with
// --paper.
func training(paper bool, obj model.Objective) model.Training {
	t := model.Training{Objective: obj, Epochs: 3, LR: PaperLR(obj), Batch: 8}
	if paper {
		t.Batch = 1
	}
	return t
}
