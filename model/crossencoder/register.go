package crossencoder

import (
	"fmt"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
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
Hugging Face checkpoint of a family docs/training.md lists: the pair in its
own template, e.g. [CLS] q [SEP] a [SEP], the first position's state or,
when the checkpoint has one, its pooler and classifier).
as2's recipe, chosen on the WikiQA dev set for USE-Lite: 2 epochs at a peak
learning rate of 2e-4, 8 questions per step, gradients clipped to norm 1,
dropout 0.1 on the pooled vector, keeping the epoch with the best dev MAP,
listwise (--listwise) rather than pointwise. Fine-tune a BERT checkpoint at
BERT's smaller rates instead (--lr 2e-5 to 5e-5, Devlin et al. 2019).
--exact-match (use-lite) adds a learned embedding to every piece that the
question and the candidate share, one for content pieces and one for
stopwords and punctuation (DrQA's exact-match feature, Chen et al. 2017);
notes/2026-11-24-default-exact-match.md gives what it measured. --segments
(use-lite) adds a learned embedding to every position of the candidate, as
BERT's segment embedding does, which USE-Lite lacks.`,
		Hyper:      Recipe,
		PaperHyper: Recipe,
		Training:   training,
		New: func(h Hyper, enc encoder.Encoder[float32], seed uint64) (model.Neural, error) {
			return New(h, enc, seed)
		},
		Describe: func(h Hyper) string {
			d := h.Encoder + ", " + h.Pool + " pooling"
			if h.ExactMatch {
				d += ", exact-match marks"
			}
			if h.Segments {
				d += ", segments"
			}
			return d
		},
		Encoder: uselite.Kind,
	})
}

// training is the fine-tuning recipe: a short schedule and a tight
// gradient clip, as BERT's fine-tuning has, at the rate that was best for
// USE-Lite on the WikiQA dev set (seed 1, 3 epochs, dev MAP pointwise /
// listwise: 5e-5 71.49 / 72.46, 1e-4 72.46 / 72.54, 2e-4 73.16 / 73.60;
// results/crossencoder-wikiqa-dev-sweep.txt). USE-Lite's two layers take
// a larger rate than BERT's twelve (2e-5 to 5e-5, Devlin et al. 2019).
func training(_ bool, obj model.Objective) model.Training {
	return model.Training{Objective: obj, Epochs: 2, LR: 2e-4, Batch: 8, ClipNorm: 1, KeepBest: true}
}

// LoadHF is the ranker of a Hugging Face cross-encoder checkpoint folder,
// scoring with its own classifier, untrained by as2. config.json's
// model_type and architectures choose the family (OpenHF; e.g. BERT for an
// MS MARCO MiniLM reranker, XLM-RoBERTa for bge-reranker-base). A
// checkpoint without a sequence classifier is an encoder to fine-tune, not
// a ranker.
func LoadHF(dir string) (*Model, error) {
	enc, head, arch, err := OpenHF(dir)
	if err != nil {
		return nil, err
	}
	if head == nil || head.ClassifierW == nil {
		return nil, fmt.Errorf("%s has no sequence classifier (architectures: %s): fine-tune it with as2 train --arch crossencoder --encoder hf:%s", dir, arch, dir)
	}
	return New(Recipe(), enc, 1)
}

// OpenHF opens a Hugging Face checkpoint folder as an encoder of the family
// its config.json declares (encoder.OpenHF; families.go lists the families
// linked in), with the checkpoint's pooler and classifier when it has them
// (nil head otherwise) and its architectures entry, for errors: what
// LoadHF ranks with, and what as2 train --encoder hf:DIR fine-tunes.
func OpenHF(dir string) (encoder.PairEncoder, *bert.Head, string, error) {
	e, c, err := encoder.OpenHF(dir)
	if err != nil {
		return nil, nil, "", err
	}
	var head *bert.Head
	if he, ok := e.(interface{ Head() *bert.Head }); ok {
		head = he.Head()
	}
	return e, head, c.Architecture(), nil
}
