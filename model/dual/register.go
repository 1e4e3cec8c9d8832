package dual

import (
	"fmt"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
)

func init() {
	model.Register(model.Arch[Hyper]{
		Name:    Name,
		Summary: "dual encoder for answer retrieval (ENDX paper §3.2): inner product of question and answer vectors; --endx trains it with a cross-encoder and GAM",
		Help: `dual is a dual encoder for answer retrieval (ENDX paper, section 3.2): the
question and the answer are encoded apart, by a --layer (rnn, gru, lstm, their
bi- forms, or a --t-layers transformer) over the encoder's token states and a
--pool (attention: Lin et al.'s multi-hop self-attention, --hops, with its
penalty --penalty; or mean), in one --shared tower or two; the score is the
inner product, so answers can be indexed offline (as2 retrieve eval
--retriever MODEL). Train it with --objective in-batch-softmax (the batch's
other answers are the negatives) on (question, correct answer) pairs. --endx
adds ENDX (sections 3.3-3.5): a cross-encoder with --cross-heads
cross-attention both ways, trained jointly, and GAM, the KL divergences from
the cross to the dual in-batch neighbour distributions a|q, q|a, q|q, a|a
(--gam-aq, --gam-qa, --gam-qq, --gam-aa; 0 drops a term, the Table 5
ablation) ramped over --gam-ramp epochs, in the loss
--alpha-dual·L_dual + --alpha-cross·L_cross + --alpha-ga·L_ga.
--gam-stop-grad keeps GAM's gradient out of the cross side.
--gam-temperature T divides the cross side's inner products in GAM's
targets and --gam-dual-temperature the dual side's (as2's addition, as
distillation softens teacher and student; 1 is the paper's kernel). as2's
default is 50 for the cross side, chosen on a ReQA dev pool; over --layer
transformer, whose towers end in LayerNorm, add --gam-dual-temperature 50.

Over a transformer encoder, --layer none --pool encoder uses the encoder's own
sentence vectors (USE-Lite's head: mean, tanh layer, l2 normalisation), and
--fine-tune trains the encoder's weights with the rest: USE-Lite fine-tuned is

  as2 train --arch dual --encoder use-lite --layer none --pool encoder \
    --fine-tune --scale 20 --lr 2e-5 --epochs 8 --dataset wikiqa ...

(8 epochs retrieve about 0.9 MRR better than 2 on ReQA SQuAD; see notes/2026-11-23-reqa-answer-retrieval.md).

--scale multiplies the in-batch scores, which unit vectors keep in [-1, 1].
With --endx over --pool encoder, the cross side ends in the same head: give it
--cross-scale too (the same value); --cross-detach keeps its gradient out of
the shared encoder, and --cross-lr-scale raises the learning rate of its own
layers, which start random. --cross-residual adds the cross side's vectors,
through gates that start at 0, to the dual ones, so that GAM's teacher starts
as good as its student.`,
		Hyper:      RecipeHyper,
		PaperHyper: PaperHyper,
		Training:   training,
		New: func(h Hyper, enc encoder.Encoder[float32], seed uint64) (model.Neural, error) {
			return New(h, enc, seed)
		},
		Describe: func(h Hyper) string {
			layer := h.Layer + " layer"
			if h.Layer == LayerNone {
				layer = "no layer"
			}
			s := fmt.Sprintf("%s, %s pool", layer, h.Pool)
			if h.Shared {
				s += ", shared"
			}
			if h.FineTune {
				s += ", encoder fine-tuned"
			}
			if h.ENDX {
				s = "ENDX, " + s
			}
			return s
		},
	})
}

// training is as2's default: 10 epochs at a peak learning rate of 1e-3
// (Adam, slanted triangular), 100 pairs per batch (the paper's batch for
// its non-BERT encoders), gradients clipped to norm 5, keeping the best dev
// epoch. --paper: 100 epochs at 1e-5 (the paper's constant rate; as2's
// schedule is slanted triangular). Not yet tuned on a dev set.
func training(paper bool, obj model.Objective) model.Training {
	t := model.Training{Objective: obj, Epochs: 10, LR: 1e-3, Batch: 100, ClipNorm: 5, KeepBest: true}
	if paper {
		t.Epochs, t.LR = 100, 1e-5
	}
	return t
}
