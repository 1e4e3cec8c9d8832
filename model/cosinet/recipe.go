package cosinet

import "github.com/as2/as2/train"

// PaperHyper is Cosinet as the paper describes it (section 5.2): static
// embeddings plus the relatedness channel, 300 filters of width 5, with a
// BiRNN over the candidates.
func PaperHyper() Hyper {
	return Hyper{Filters: 300, Kernel: 5, Relatedness: true, RNN: "birnn"}
}

// RecipeHyper is as2's default Cosinet: the paper's, plus the exact-match
// channel, the overlap and reciprocal-rank pair features and dropout 0.5 on
// the pair vectors. It was chosen on the WikiQA dev set (mean dev MAP over
// seeds; see the README's ablations), never on test.
func RecipeHyper() Hyper {
	h := PaperHyper()
	h.ExactMatch, h.PairFeatures, h.Dropout = true, true, 0.5
	return h
}

// PaperLR is the paper's peak learning rate (section 5.2).
func PaperLR(listwise bool) float64 {
	if listwise {
		return 2e-4
	}
	return 2e-3
}

// RecipeTraining is as2's default training: the paper's 3 epochs, listwise
// objective and learning rate, with 8 questions per step (which keeps both
// cores busy; the paper does not give its listwise batch size).
func RecipeTraining() train.Options {
	return train.Options{Epochs: 3, Listwise: true, LR: PaperLR(true), Batch: 8}
}
