package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/model"
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
	embeddings, embedFmt string
	out                  string
	trainSplit, devSplit string
	hyper                cosinet.Hyper
	listwise             bool
	epochs, batch        int
	lr, clip             float64
	seed                 uint64
	workers              int
	quiet                bool
	paper                bool
}

func newTrainCmd() *cobra.Command {
	t := &trainCmd{}
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Train a neural ranker and save it as a model file",
		Long: `Train a neural ranker on a benchmark's training split and save it, weights and
configuration, in one model file (safetensors) that as2 eval --model and as2 rank
--model read.

cosinet is the Cosinet of Bonadiman & Moschitti (2020): static word embeddings
with a max-cosine relatedness channel, one CNN per side, the pair vector
[q*c; q-c], optionally an RNN over the candidates in document order, trained
pointwise (binary cross-entropy) or --listwise (KL divergence over a question's
candidates), 3 epochs of Adam with a slanted triangular learning rate peaking
at the paper's 2e-3 (pointwise) or 2e-4 (listwise).

The defaults are as2's recipe, chosen on the WikiQA dev set: the paper's
Cosinet (300 filters of width 5, relatedness channel) plus an exact-match
channel, overlap and reciprocal-rank features at the scorer, dropout 0.5, and
8 questions per step. --paper trains exactly the paper's model instead (one
question per step, none of the additions); flags given explicitly still win.

Listwise training skips questions whose candidates are all correct or all
wrong (they carry no ranking signal) and says how many. After each epoch the
dev split (its answered subset) is evaluated.`,
		Example: `  as2 train --model cosinet --listwise --rnn birnn --dataset wikiqa --epochs 3 --seed 1 --out m.as2
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
	fs.StringVar(&t.arch, "model", "cosinet", "architecture: cosinet")
	fs.StringVar(&t.embeddings, "embeddings", "", "word vectors: as2 (from as2 embeddings import), GloVe/fastText text, word2vec binary or wink JSON (default $AS2_DATA/embeddings/glove.6B.100d.wink.as2-vocab.txt.gz)")
	fs.StringVar(&t.embedFmt, "embeddings-format", "auto", "format of --embeddings: auto, as2, glove, fasttext, word2vec, wink")
	fs.StringVar(&t.out, "out", "", "model file to write (required; written atomically)")
	fs.StringVar(&t.trainSplit, "train-split", "train", "split to train on")
	fs.StringVar(&t.devSplit, "dev-split", "dev", "split to evaluate after each epoch (none: skip)")
	rh, rt := cosinet.RecipeHyper(), cosinet.RecipeTraining()
	t.hyper = rh
	fs.BoolVar(&t.paper, "paper", false, "the paper's exact settings: batch 1, no exact-match channel, no pair features, no dropout")
	fs.BoolVar(&t.listwise, "listwise", false, "listwise training (KL over each question's candidates) instead of pointwise (BCE)")
	fs.StringVar(&t.hyper.RNN, "rnn", "birnn", "layer over the candidates in document order: none, rnn, birnn, lstm, bilstm, gru, bigru")
	fs.IntVar(&t.hyper.RNNHidden, "rnn-hidden", 0, "RNN hidden size (0: the paper's: input size, half per direction when bidirectional)")
	fs.IntVar(&t.hyper.Filters, "filters", t.hyper.Filters, "convolution filters per side")
	fs.IntVar(&t.hyper.Kernel, "kernel", t.hyper.Kernel, "convolution width")
	fs.BoolVar(&t.hyper.Relatedness, "relatedness", true, "max-cosine word relatedness channel (the paper's)")
	fs.BoolVar(&t.hyper.ExactMatch, "exact-match", rh.ExactMatch, "exact-match channel: the word itself occurs in the other sentence")
	fs.BoolVar(&t.hyper.PairFeatures, "pair-features", rh.PairFeatures, "feed word overlap (plain and IDF-weighted) and reciprocal original rank to the scorer")
	fs.Float64Var(&t.hyper.Dropout, "dropout", rh.Dropout, "dropout on the pair vectors")
	fs.IntVar(&t.epochs, "epochs", rt.Epochs, "passes over the training questions")
	fs.IntVar(&t.batch, "batch", rt.Batch, "questions per optimiser step (spread over the cores)")
	fs.Float64Var(&t.lr, "lr", 0, "peak learning rate (0: 2e-3 pointwise, 2e-4 listwise, as in the paper)")
	fs.Float64Var(&t.clip, "clip", 0, "clip the gradient's global norm to this (0: no clipping)")
	fs.Uint64Var(&t.seed, "seed", 1, "seed for initialisation, shuffling and dropout")
	fs.IntVar(&t.workers, "workers", 0, "goroutines computing gradients (0: one per core)")
	fs.BoolVar(&t.quiet, "quiet", false, "no progress bar")
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
		Dataset: t.data.name, Split: t.trainSplit, Listwise: t.listwise, Epochs: t.epochs, Batch: t.batch,
		LR: t.lr, Seed: t.seed, Questions: sum.Questions, Skipped: sum.Skipped, Pairs: sum.Pairs,
		WallSeconds: sum.Wall.Seconds(), BLAS: nn.BLASName(), Epoch: sum.Epochs,
	}); err != nil {
		return err
	}
	if err := model.Save(t.out, m); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	rnn := t.hyper.RNN
	if rnn == "" {
		rnn = "no rnn"
	}
	obj := "pointwise"
	if t.listwise {
		obj = "listwise"
	}
	last := sum.Epochs[len(sum.Epochs)-1]
	dev := ""
	if last.Dev {
		dev = fmt.Sprintf(", dev MAP %.4f", last.DevMAP)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "trained cosinet (%s, %s): %d parameters, %d questions (%d skipped), %d pairs in %.1fs (%.0f pairs/s, %d cores, %s)%s; saved %s\n",
		rnn, obj, sum.Params, sum.Questions, sum.Skipped, sum.Pairs, sum.Wall.Seconds(), float64(sum.Pairs)/sum.Wall.Seconds(),
		runtime.GOMAXPROCS(0), nn.BLASName(), dev, t.out)
	return nil
}

// fit validates the flags, loads the data and embeddings, and trains.
func (t *trainCmd) fit(cmd *cobra.Command) (*cosinet.Model, *train.Summary, error) {
	if t.arch != "cosinet" {
		return nil, nil, fmt.Errorf("--model %q: want cosinet", t.arch)
	}
	if t.hyper.RNN == "none" {
		t.hyper.RNN = ""
	}
	if t.paper {
		fs := cmd.Flags()
		for flag, set := range map[string]func(){
			"exact-match":   func() { t.hyper.ExactMatch = false },
			"pair-features": func() { t.hyper.PairFeatures = false },
			"dropout":       func() { t.hyper.Dropout = 0 },
			"batch":         func() { t.batch = 1 },
		} {
			if !fs.Changed(flag) {
				set()
			}
		}
	}
	if t.epochs < 1 {
		return nil, nil, fmt.Errorf("--epochs %d: must be at least 1", t.epochs)
	}
	if t.batch < 1 {
		return nil, nil, fmt.Errorf("--batch %d: must be at least 1", t.batch)
	}
	if t.lr < 0 || math.IsNaN(t.lr) {
		return nil, nil, fmt.Errorf("--lr %v: must be positive", t.lr)
	}
	if t.lr == 0 {
		t.lr = cosinet.PaperLR(t.listwise)
	}
	stderr := cmd.ErrOrStderr()
	trainQs, devQs, err := t.loadData()
	if err != nil {
		return nil, nil, err
	}
	if t.embeddings == "" {
		t.embeddings = defaultEmbeddings()
	}
	start := time.Now()
	vecs, err := embed.Load(t.embeddings, t.embedFmt)
	if err != nil {
		return nil, nil, fmt.Errorf("--embeddings: %w", err)
	}
	fmt.Fprintf(stderr, "embeddings: %d words x %d from %s (%.1fs)\n", vecs.Len(), vecs.Dim, t.embeddings, time.Since(start).Seconds())
	m, err := cosinet.New(t.hyper, vecs, t.seed)
	if err != nil {
		return nil, nil, err
	}
	bar := t.progressBar(stderr)
	opts := train.Options{
		Epochs: t.epochs, LR: t.lr, Listwise: t.listwise, Batch: t.batch, ClipNorm: t.clip,
		Seed: t.seed, Workers: t.workers, Dev: devQs,
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
	Listwise    bool                `json:"listwise"`
	Epochs      int                 `json:"epochs"`
	Batch       int                 `json:"batch"`
	LR          float64             `json:"lr"`
	Seed        uint64              `json:"seed"`
	Questions   int                 `json:"questions"`
	Skipped     int                 `json:"skipped"`
	Pairs       int                 `json:"pairs"`
	WallSeconds float64             `json:"wall_seconds"`
	BLAS        string              `json:"blas"`
	Epoch       []train.EpochResult `json:"epochs_log"`
}

func (t *trainCmd) loadData() (trainQs, devQs []dataset.Question, err error) {
	t.data.split = t.trainSplit
	trainQs, _, _, err = t.data.load()
	if err != nil {
		return nil, nil, err
	}
	if t.devSplit != "none" && t.devSplit != "" {
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
