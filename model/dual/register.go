package dual

import (
	"fmt"
	"strings"

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

(8 epochs retrieve about 0.9 MRR better than 2 on ReQA SQuAD; see the README).

--scale multiplies the in-batch scores, which unit vectors keep in [-1, 1].
With --endx over --pool encoder, the cross side ends in the same head: give it
--cross-scale too (the same value); --cross-detach keeps its gradient out of
the shared encoder, and --cross-lr-scale raises the learning rate of its own
layers, which start random. --cross-residual adds the cross side's vectors,
through gates that start at 0, to the dual ones, so that GAM's teacher starts
as good as its student.`,
		Recipe:   RecipeHyper,
		Paper:    PaperHyper,
		Flags:    flags,
		Training: training,
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

// flags declares the flags that set the hyperparameters.
func flags(fs model.FlagSet, h *Hyper) {
	fs.StringVar(&h.Layer, "layer", h.Layer, "sequence layer over the token states: "+strings.Join(Layers, ", "))
	fs.IntVar(&h.Hidden, "hidden", h.Hidden, "RNN size per direction, or the transformer's width")
	fs.IntVar(&h.TLayers, "t-layers", h.TLayers, "transformer layers (the paper: 2)")
	fs.IntVar(&h.Heads, "heads", h.Heads, "transformer self-attention heads")
	fs.BoolVar(&h.Shared, "shared", h.Shared, "one tower for questions and answers (else two)")
	fs.StringVar(&h.Pool, "pool", h.Pool, "aggregator: attention (multi-hop self-attention, Lin et al. 2017), mean, or encoder (the encoder's own sentence head; needs --layer none)")
	fs.IntVar(&h.Hops, "hops", h.Hops, "attention hops r; the vector is the r hops' outputs concatenated")
	fs.IntVar(&h.AttnHidden, "attention-hidden", h.AttnHidden, "attention hidden size d_a")
	fs.Float64Var(&h.Penalty, "penalty", h.Penalty, "coefficient of Lin et al.'s penalty ‖AAᵀ − I‖² (0: none)")
	fs.Float64Var(&h.WordDropout, "word-dropout", h.WordDropout, "dropout on the token states")
	fs.BoolVar(&h.FineTune, "fine-tune", h.FineTune, "train the encoder's weights too (a transformer encoder such as use-lite; use a low --lr)")
	fs.Float64Var(&h.Scale, "scale", h.Scale, "multiply the in-batch scores in training (for unit vectors, e.g. 20; 0: 1)")
	fs.BoolVar(&h.ENDX, "endx", h.ENDX, "train with ENDX's cross-encoder and GAM (ENDX paper §3.3-3.5)")
	fs.Float64Var(&h.CrossScale, "cross-scale", h.CrossScale, "ENDX: multiply the cross side's in-batch scores in training, in L_cross and GAM's targets (set it as --scale when the cross side ends in a unit vector, e.g. --pool encoder; 0: 1)")
	fs.BoolVar(&h.CrossDetach, "cross-detach", h.CrossDetach, "ENDX: the cross side reads the encoder's token states without training the encoder (for a fine-tuned encoder that both sides share; the paper's cross side has its own)")
	fs.Float64Var(&h.CrossLRScale, "cross-lr-scale", h.CrossLRScale, "ENDX: multiply the learning rate of the cross side's own layers, which start random (e.g. 50 over a fine-tuned encoder at --lr 2e-5; 0: 1)")
	fs.BoolVar(&h.CrossResidual, "cross-residual", h.CrossResidual, "ENDX: each cross-embedding is its dual embedding (a constant) plus the cross side's vector times a learned gate that starts at 0, so the teacher starts as the student")
	fs.IntVar(&h.CrossHeads, "cross-heads", h.CrossHeads, "cross-attention heads (the paper: 12; must divide the tower's width)")
	fs.Float64Var(&h.AlphaDual, "alpha-dual", h.AlphaDual, "ENDX: weight of L_dual (Eq. 13)")
	fs.Float64Var(&h.AlphaCross, "alpha-cross", h.AlphaCross, "ENDX: weight of L_cross (Eq. 13)")
	fs.Float64Var(&h.AlphaGA, "alpha-ga", h.AlphaGA, "ENDX: weight of L_ga (Eq. 13)")
	fs.Float64Var(&h.AlphaAQ, "gam-aq", h.AlphaAQ, "ENDX: final α_{a|q} (Eq. 12; 0 drops the term)")
	fs.Float64Var(&h.AlphaQA, "gam-qa", h.AlphaQA, "ENDX: final α_{q|a} (0 drops the term)")
	fs.Float64Var(&h.AlphaQQ, "gam-qq", h.AlphaQQ, "ENDX: final α_{q|q} (the paper prints 1e4; 0 drops the term)")
	fs.Float64Var(&h.AlphaAA, "gam-aa", h.AlphaAA, "ENDX: final α_{a|a} (the paper prints 1e4; 0 drops the term)")
	fs.Float64Var(&h.Ramp, "gam-ramp", h.Ramp, "ENDX: epochs over which the GAM weights rise linearly from 0 (0: none)")
	fs.Float64Var(&h.GAMStart, "gam-start", h.GAMStart, "ENDX: epochs trained before the GAM weights' ramp begins, so that the cross side learns to rank first (0: from the start, the paper's)")
	fs.BoolVar(&h.StopGrad, "gam-stop-grad", h.StopGrad, "ENDX: no gradient from GAM into the cross-encoder")
	fs.Float64Var(&h.GAMTemp, "gam-temperature", h.GAMTemp, "ENDX: divide the cross side's inner products by this in GAM's target distributions (0 or 1: none, the paper's)")
	fs.Float64Var(&h.GAMDualTemp, "gam-dual-temperature", h.GAMDualTemp, "ENDX: divide the dual side's inner products by this in GAM (0 or 1: none, the paper's)")
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
