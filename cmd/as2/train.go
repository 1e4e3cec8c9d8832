package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/compagg"
	"github.com/as2/as2/model/cosinet"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/train"
)

// defaultEmbeddings is the word-vector file used when --embeddings is not given.
func defaultEmbeddings() string {
	return filepath.Join(catalog.DataDir(), "embeddings", "glove.6B.100d.wink.as2-vocab.txt.gz")
}

type trainCmd struct {
	data                 datasetFlags
	arch                 string
	init                 string
	embeddings, embedFmt string
	out                  string
	trainSplit, devSplit string
	devPath              string
	trainSubset          string
	settings             archFlags
	listwise             bool
	epochs, batch        int
	lr, clip             float64
	seed                 uint64
	workers              int
	quiet                bool
	paper                bool
	keepBest             bool
}

// archFlags are the architecture's settings. Each applies only when given:
// otherwise the architecture's default holds (as2's recipe, or the paper's
// settings with --paper).
type archFlags struct {
	rnn                   string
	rnnHidden             int
	filters, kernel       int
	relatedness           bool
	exactMatch, pairFeats bool
	dropout, wordDropout  float64
	hidden                int
	widths                []int
	compare, clip         string
	clipK                 int
	clipThreshold         float64
	clusters, clusterK    int
}

// Flags that set the architecture, and the architectures they apply to.
var archFlagUse = map[string][]string{
	"rnn": {"cosinet", compagg.CA, compagg.CompClip}, "rnn-hidden": {"cosinet", compagg.CA, compagg.CompClip},
	"filters": {"cosinet", compagg.CA, compagg.CompClip}, "exact-match": {"cosinet", compagg.CA, compagg.CompClip},
	"dropout": {"cosinet", compagg.CA, compagg.CompClip}, "paper": {"cosinet", compagg.CA, compagg.CompClip},
	"kernel": {"cosinet"}, "relatedness": {"cosinet"}, "pair-features": {"cosinet"},
	"word-dropout": {compagg.CA, compagg.CompClip}, "hidden": {compagg.CA, compagg.CompClip}, "widths": {compagg.CA, compagg.CompClip}, "compare": {compagg.CA, compagg.CompClip},
	"clusters": {compagg.CA, compagg.CompClip}, "cluster-k": {compagg.CA, compagg.CompClip},
	"attention-clip": {compagg.CA, compagg.CompClip}, "clip-k": {compagg.CA, compagg.CompClip}, "clip-threshold": {compagg.CA, compagg.CompClip},
}

// trainable is a model as2 train can fit and save.
type trainable interface {
	train.Model
	model.Model
	SetTraining(v any) error
}

func newTrainCmd() *cobra.Command {
	t := &trainCmd{}
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Train a neural ranker and save it as a model file",
		Long: `Train a neural ranker on a benchmark's training split and save it, weights and
configuration, in one model file (safetensors) that as2 eval --model and as2 rank
--model read. Every architecture is trained pointwise (binary cross-entropy)
or --listwise (KL divergence over a question's candidates) with Adam and a
slanted triangular learning rate, and can end in an RNN over the candidates in
document order (--rnn).

cosinet is the Cosinet of Bonadiman & Moschitti (2020): static word embeddings
with a max-cosine relatedness channel, one CNN per side, the pair vector
[q*c; q-c]. 3 epochs, learning rate peaking at the paper's 2e-3 (pointwise) or
2e-4 (listwise). The defaults are as2's recipe, chosen on the WikiQA dev set:
the paper's Cosinet (300 filters of width 5, relatedness channel, BiRNN) plus
an exact-match channel, overlap and reciprocal-rank features at the scorer,
dropout 0.5, and 8 questions per step. --paper trains exactly the paper's
model instead (one question per step, none of the additions).

ca is the Compare-Aggregate model of Wang & Jiang (2017) as the Cosinet paper
runs it: context representation, each candidate word attending over the
question, SUBMULT+NN comparison, a CNN of widths 1-5 (150 filters each).

compclip is Comp-Clip (Bian et al. 2017, as in Yoon et al. 2019): attention
both ways clipped to each word's --clip-k best matches (k-max attention; or
--attention-clip threshold), element-wise comparison, CNNs of widths 1-5 (100
filters each) on both sides. --clusters 8 adds latent clustering (--cluster-k:
the paper's 6 for WikiQA, 4 for TrecQA).

For ca and compclip as2's recipe, chosen on the WikiQA dev set, adds an
exact-match feature and dropout 0.3 on the word vectors, and trains 5 epochs
at a peak learning rate of 3e-3, gradients clipped to norm 5, keeping the
epoch with the best dev MAP; --paper keeps the papers' model settings.

--init continues from a saved model, e.g. one pre-trained on SQuAD-sent
(transfer learning): the architecture and its settings come from the file.

Architecture flags left out take the architecture's defaults; a flag that
does not apply to the chosen architecture is an error. Listwise training
skips questions whose candidates are all correct or all wrong (they carry no
ranking signal) and says how many. After each epoch the dev split (its
answered subset) is evaluated; --keep-best keeps the epoch with the best dev
MAP (early stopping, as the Comp-Clip paper does).`,
		Example: `  as2 train --model cosinet --listwise --rnn birnn --dataset wikiqa --epochs 3 --seed 1 --out m.as2
  as2 train --model compclip --clusters 8 --dataset wikiqa --out cc.as2
  as2 train --model compclip --dataset squad --train-split dev --dev-split none --out squad.as2
  as2 train --init squad.as2 --dataset wikiqa --out tl.as2
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
	fs.StringVar(&t.arch, "model", "cosinet", "architecture: cosinet, ca or compclip")
	fs.StringVar(&t.init, "init", "", "model file to continue training from (transfer learning); its architecture and settings are used")
	fs.StringVar(&t.embeddings, "embeddings", "", "word vectors: as2 (from as2 embeddings import), GloVe/fastText text, word2vec binary or wink JSON (default $AS2_DATA/embeddings/glove.6B.100d.wink.as2-vocab.txt.gz; with --init, the model's own)")
	fs.StringVar(&t.embedFmt, "embeddings-format", "auto", "format of --embeddings: auto, as2, glove, fasttext, word2vec, wink")
	fs.StringVar(&t.out, "out", "", "model file to write (required; written atomically)")
	fs.StringVar(&t.trainSplit, "train-split", "train", "split to train on")
	fs.StringVar(&t.trainSubset, "train-subset", "answered", "training questions to keep: all, answered (both papers remove questions without a correct answer) or filtered")
	fs.StringVar(&t.devSplit, "dev-split", "dev", "split to evaluate after each epoch (none: skip)")
	fs.StringVar(&t.devPath, "dev-path", "", "dev file to evaluate after each epoch, for the jsonl and tsv datasets (which have no splits)")
	a := &t.settings
	fs.BoolVar(&t.paper, "paper", false, "the paper's settings instead of as2's recipe: cosinet: batch 1, no exact-match channel, no pair features, no dropout; ca, compclip: no exact match, no word dropout (compclip: dropout 0.5 at the scorer)")
	fs.BoolVar(&t.listwise, "listwise", false, "listwise training (KL over each question's candidates) instead of pointwise (BCE)")
	fs.StringVar(&a.rnn, "rnn", "", "layer over the candidates in document order: none, rnn, birnn, lstm, bilstm, gru, bigru (default birnn for cosinet, none for ca and compclip)")
	fs.IntVar(&a.rnnHidden, "rnn-hidden", 0, "RNN hidden size (0: the paper's: input size, half per direction when bidirectional)")
	fs.IntVar(&a.filters, "filters", 0, "convolution filters (cosinet: per side, default 300; ca, compclip: per width, default 150, 100)")
	fs.IntVar(&a.kernel, "kernel", 0, "cosinet: convolution width (default 5)")
	fs.BoolVar(&a.relatedness, "relatedness", true, "cosinet: max-cosine word relatedness channel (the paper's)")
	fs.BoolVar(&a.exactMatch, "exact-match", false, "exact-match channel: the word itself occurs in the other sentence (default true; false with --paper)")
	fs.BoolVar(&a.pairFeats, "pair-features", false, "cosinet: feed word overlap (plain and IDF-weighted) and reciprocal original rank to the scorer (default true)")
	fs.Float64Var(&a.dropout, "dropout", 0, "dropout on the pair vectors (default 0.5 for cosinet, 0 for ca and compclip; compclip --paper: 0.5)")
	fs.Float64Var(&a.wordDropout, "word-dropout", 0, "ca, compclip: dropout on the word vectors (default 0.3; 0 with --paper)")
	fs.IntVar(&a.hidden, "hidden", 0, "ca, compclip: context representation size (default 150, 100)")
	fs.IntSliceVar(&a.widths, "widths", nil, "ca, compclip: aggregation filter widths, comma-separated (default 1,2,3,4,5)")
	fs.StringVar(&a.compare, "compare", "", "ca, compclip: comparison, mult or submult+nn (default submult+nn, mult)")
	fs.StringVar(&a.clip, "attention-clip", "", "ca, compclip: dynamic-clip attention: none, kmax or threshold (default none, kmax)")
	fs.IntVar(&a.clipK, "clip-k", 0, "ca, compclip: words each word attends to under kmax (default 5)")
	fs.Float64Var(&a.clipThreshold, "clip-threshold", 0, "ca, compclip: least attention weight kept under threshold")
	fs.IntVar(&a.clusters, "clusters", 0, "ca, compclip: latent clustering memories (0: none; the paper: 8)")
	fs.IntVar(&a.clusterK, "cluster-k", 0, "ca, compclip: memories mixed per sentence (default 6)")
	fs.IntVar(&t.epochs, "epochs", 0, "passes over the training questions (default 3 for cosinet, 5 for ca and compclip)")
	fs.IntVar(&t.batch, "batch", 0, "questions per optimiser step, spread over the cores (default 8; cosinet --paper: 1)")
	fs.Float64Var(&t.lr, "lr", 0, "peak learning rate (default cosinet 2e-3 pointwise, 2e-4 listwise, as in the paper; ca and compclip 3e-3)")
	fs.Float64Var(&t.clip, "clip", 0, "clip the gradient's global norm to this (0: no clipping; default 5 for ca and compclip, as in the Comp-Clip paper, none for cosinet)")
	fs.Uint64Var(&t.seed, "seed", 1, "seed for initialisation, shuffling and dropout")
	fs.IntVar(&t.workers, "workers", 0, "goroutines computing gradients (0: one per core)")
	fs.BoolVar(&t.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&t.keepBest, "keep-best", false, "keep the parameters of the epoch with the best dev MAP (default true for ca and compclip when there is a dev split, false for cosinet)")
}

func (t *trainCmd) exec(cmd *cobra.Command) error {
	if t.out == "" {
		return fmt.Errorf("--out is required: the model file to write")
	}
	m, sum, err := t.fit(cmd)
	if err != nil {
		return err
	}
	if err := m.SetTraining(trainingRecord{
		Dataset: t.data.name, Split: t.trainSplit, Init: t.init, Listwise: t.listwise, Epochs: t.epochs, Batch: t.batch,
		LR: t.lr, Clip: t.clip, Seed: t.seed, Questions: sum.Questions, Skipped: sum.Skipped, Pairs: sum.Pairs, KeptEpoch: sum.Kept,
		WallSeconds: sum.Wall.Seconds(), BLAS: nn.BLASName(), Epoch: sum.Epochs,
	}); err != nil {
		return err
	}
	if err := model.Save(t.out, m); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	dev := ""
	if sum.Kept > 0 {
		r := sum.Epochs[sum.Kept-1]
		dev = fmt.Sprintf(", kept epoch %d (dev MAP %.4f)", r.Epoch, r.DevMAP)
	} else if last := sum.Epochs[len(sum.Epochs)-1]; last.Dev {
		dev = fmt.Sprintf(", dev MAP %.4f", last.DevMAP)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "trained %s: %d parameters, %d questions (%d skipped), %d pairs in %.1fs (%.0f pairs/s, %d cores, %s)%s; saved %s\n",
		t.describe(m), sum.Params, sum.Questions, sum.Skipped, sum.Pairs, sum.Wall.Seconds(), float64(sum.Pairs)/sum.Wall.Seconds(),
		runtime.GOMAXPROCS(0), nn.BLASName(), dev, t.out)
	return nil
}

// describe names the trained model: architecture, RNN and objective.
func (t *trainCmd) describe(m trainable) string {
	var rnn string
	switch m := m.(type) {
	case *cosinet.Model:
		rnn = m.Hyper().RNN
	case *compagg.Model:
		rnn = m.Hyper().RNN
	}
	if rnn == "" {
		rnn = "no rnn"
	}
	obj := "pointwise"
	if t.listwise {
		obj = "listwise"
	}
	return fmt.Sprintf("%s (%s, %s)", m.Config().Architecture, rnn, obj)
}

// newModel builds the untrained model the flags describe.
func (t *trainCmd) newModel(fs *pflag.FlagSet, vecs *embed.Vectors) (trainable, error) {
	a := t.settings
	if a.rnn == "none" {
		a.rnn = ""
	}
	for name, archs := range archFlagUse {
		if fs.Changed(name) && !slices.Contains(archs, t.arch) {
			return nil, fmt.Errorf("--%s does not apply to --model %s (only to %s)", name, t.arch, strings.Join(archs, ", "))
		}
	}
	set := func(flag string, apply func()) {
		if fs.Changed(flag) {
			apply()
		}
	}
	switch t.arch {
	case "cosinet":
		h := cosinet.RecipeHyper()
		if t.paper {
			h = cosinet.PaperHyper()
		}
		set("rnn", func() { h.RNN = a.rnn })
		set("rnn-hidden", func() { h.RNNHidden = a.rnnHidden })
		set("filters", func() { h.Filters = a.filters })
		set("kernel", func() { h.Kernel = a.kernel })
		set("relatedness", func() { h.Relatedness = a.relatedness })
		set("exact-match", func() { h.ExactMatch = a.exactMatch })
		set("pair-features", func() { h.PairFeatures = a.pairFeats })
		set("dropout", func() { h.Dropout = a.dropout })
		return cosinet.New(h, vecs, t.seed)
	case compagg.CA, compagg.CompClip:
		h := compagg.RecipeHyper(t.arch)
		if t.paper {
			h = compagg.PaperHyper(t.arch)
		}
		set("rnn", func() { h.RNN = a.rnn })
		set("rnn-hidden", func() { h.RNNHidden = a.rnnHidden })
		set("filters", func() { h.Filters = a.filters })
		set("exact-match", func() { h.ExactMatch = a.exactMatch })
		set("dropout", func() { h.Dropout = a.dropout })
		set("word-dropout", func() { h.WordDropout = a.wordDropout })
		set("hidden", func() { h.Hidden = a.hidden })
		set("widths", func() { h.Widths = a.widths })
		set("compare", func() { h.Compare = a.compare })
		set("attention-clip", func() { h.Clip = a.clip })
		set("clip-k", func() { h.ClipK = a.clipK })
		set("clip-threshold", func() { h.ClipThreshold = a.clipThreshold })
		set("clusters", func() { h.Clusters = a.clusters })
		set("cluster-k", func() { h.ClusterK = a.clusterK })
		return compagg.New(h, vecs, t.seed)
	}
	return nil, fmt.Errorf("--model %q: want cosinet, ca or compclip", t.arch)
}

// initModel loads --init and checks it against the flags.
func (t *trainCmd) initModel(fs *pflag.FlagSet, stderr io.Writer) (trainable, error) {
	loaded, err := model.Load(t.init)
	if err != nil {
		return nil, fmt.Errorf("--init: %w", err)
	}
	m, ok := loaded.(trainable)
	if !ok {
		return nil, fmt.Errorf("--init %s: a %s model cannot be trained further", t.init, loaded.Config().Architecture)
	}
	cfg := m.Config()
	if fs.Changed("model") && t.arch != cfg.Architecture {
		return nil, fmt.Errorf("--init %s is a %s model, not --model %s", t.init, cfg.Architecture, t.arch)
	}
	t.arch = cfg.Architecture
	for name := range archFlagUse {
		if fs.Changed(name) {
			return nil, fmt.Errorf("--%s: with --init the architecture's settings come from %s; leave the flag out", name, t.init)
		}
	}
	if t.embeddings != "" {
		vecs, err := embed.Load(t.embeddings, t.embedFmt)
		if err != nil {
			return nil, fmt.Errorf("--embeddings: %w", err)
		}
		if id := vecs.Identity(); id != cfg.Embeddings {
			return nil, fmt.Errorf("--embeddings %s (%s) are not the word vectors %s was trained with (%s): a different vocabulary; leave --embeddings out to use the model's", t.embeddings, id, t.init, cfg.Embeddings)
		}
	}
	fmt.Fprintf(stderr, "init: %s model from %s (%d parameters)\n", cfg.Architecture, t.init, cfg.Params)
	return m, nil
}

// defaults fills in the training settings left out, per architecture.
func (t *trainCmd) defaults(fs *pflag.FlagSet) error {
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
	rec := cosinet.RecipeTraining()
	if t.arch == compagg.CA || t.arch == compagg.CompClip {
		rec = compagg.RecipeTraining()
		// Keeping the best epoch needs a dev split; without one (e.g.
		// pre-training on SQuAD-sent) the last epoch is kept.
		rec.KeepBest = rec.KeepBest && !noDev
	} else {
		rec.LR = cosinet.PaperLR(t.listwise)
		if t.paper {
			rec.Batch = 1
		}
	}
	for flag, apply := range map[string]func(){
		"epochs": func() { t.epochs = rec.Epochs }, "batch": func() { t.batch = rec.Batch }, "clip": func() { t.clip = rec.ClipNorm },
		"keep-best": func() { t.keepBest = rec.KeepBest }, "lr": func() { t.lr = rec.LR },
	} {
		if !fs.Changed(flag) {
			apply()
		}
	}
	switch {
	case t.epochs < 1:
		return fmt.Errorf("--epochs %d: must be at least 1", t.epochs)
	case t.batch < 1:
		return fmt.Errorf("--batch %d: must be at least 1", t.batch)
	case t.lr <= 0 || math.IsNaN(t.lr):
		return fmt.Errorf("--lr %v: must be positive", t.lr)
	case t.clip < 0 || math.IsNaN(t.clip):
		return fmt.Errorf("--clip %v: must be 0 (none) or positive", t.clip)
	case t.keepBest && noDev:
		return fmt.Errorf("--keep-best needs a dev split (--dev-split is %q) or, for jsonl and tsv, --dev-path", t.devSplit)
	}
	return nil
}

// fit validates the flags, loads the data and embeddings, and trains.
func (t *trainCmd) fit(cmd *cobra.Command) (trainable, *train.Summary, error) {
	fs, stderr := cmd.Flags(), cmd.ErrOrStderr()
	var m trainable
	var err error
	if t.init != "" {
		if m, err = t.initModel(fs, stderr); err != nil {
			return nil, nil, err
		}
	} else if t.arch != "cosinet" && t.arch != compagg.CA && t.arch != compagg.CompClip {
		return nil, nil, fmt.Errorf("--model %q: want cosinet, ca or compclip", t.arch)
	}
	if err := t.defaults(fs); err != nil {
		return nil, nil, err
	}
	trainQs, devQs, err := t.loadData()
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		if t.embeddings == "" {
			t.embeddings = defaultEmbeddings()
		}
		start := time.Now()
		vecs, err := embed.Load(t.embeddings, t.embedFmt)
		if err != nil {
			return nil, nil, fmt.Errorf("--embeddings: %w", err)
		}
		fmt.Fprintf(stderr, "embeddings: %d words x %d from %s (%.1fs)\n", vecs.Len(), vecs.Dim, t.embeddings, time.Since(start).Seconds())
		if m, err = t.newModel(fs, vecs); err != nil {
			return nil, nil, err
		}
	}
	bar := t.progressBar(stderr)
	opts := train.Options{
		Epochs: t.epochs, LR: t.lr, Listwise: t.listwise, Batch: t.batch, ClipNorm: t.clip,
		Seed: t.seed, Workers: t.workers, Dev: devQs, KeepBest: t.keepBest,
		Progress: func(p train.Progress) {
			if bar == nil {
				return
			}
			if bar.GetMax() != p.Steps {
				bar.ChangeMax(p.Steps)
			}
			bar.Describe(fmt.Sprintf("epoch %d/%d  loss %.4f  %4.0f pairs/s", p.Epoch, t.epochs, p.Loss, float64(p.Pairs)/p.Elapsed.Seconds()))
			bar.Set(p.Step)
		},
		EpochEnd: func(r train.EpochResult) {
			if bar != nil {
				bar.Clear()
			}
			dev := ""
			if r.Dev {
				dev = fmt.Sprintf("  dev MAP %.4f  MRR %.4f", r.DevMAP, r.DevMRR)
			}
			fmt.Fprintf(stderr, "epoch %d: loss %.4f  %.1fs%s\n", r.Epoch, r.Loss, r.Duration.Seconds(), dev)
		},
	}
	sum, err := train.Train(cmd.Context(), m, trainQs, opts)
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return nil, nil, err
	}
	return m, sum, nil
}

// trainingRecord is saved in the model file's configuration.
type trainingRecord struct {
	Dataset     string              `json:"dataset"`
	Split       string              `json:"split"`
	Init        string              `json:"init,omitempty"`
	Listwise    bool                `json:"listwise"`
	Epochs      int                 `json:"epochs"`
	Batch       int                 `json:"batch"`
	LR          float64             `json:"lr"`
	Clip        float64             `json:"clip_norm,omitempty"`
	KeptEpoch   int                 `json:"kept_epoch,omitempty"`
	Seed        uint64              `json:"seed"`
	Questions   int                 `json:"questions"`
	Skipped     int                 `json:"skipped"`
	Pairs       int                 `json:"pairs"`
	WallSeconds float64             `json:"wall_seconds"`
	BLAS        string              `json:"blas"`
	Epoch       []train.EpochResult `json:"epochs_log"`
}

func (t *trainCmd) loadData() (trainQs, devQs []dataset.Question, err error) {
	sub, err := dataset.ParseSubset(t.trainSubset)
	if err != nil {
		return nil, nil, fmt.Errorf("--train-subset: %w", err)
	}
	t.data.split = t.trainSplit
	trainQs, _, _, err = t.data.load()
	if err != nil {
		return nil, nil, err
	}
	trainQs = dataset.Filter(trainQs, sub)
	switch {
	case catalog.IsFile(t.data.name):
		if t.devPath != "" {
			t.data.path = t.devPath
			if _, devQs, _, err = t.data.load(); err != nil {
				return nil, nil, err
			}
		}
	case t.devSplit != "none" && t.devSplit != "":
		t.data.split = t.devSplit
		if _, devQs, _, err = t.data.load(); err != nil {
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
