package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset"
	"github.com/as2/as2/internal/termbar"
	"github.com/as2/as2/model"
	"github.com/as2/as2/train"
)

// trainCmd holds as2 train's flags (model.Settings' set only where given).
type trainCmd struct {
	train.Flags
	data                    datasetFlags
	out                     string
	trainSplit, trainSubset string
	printRecipe, quiet      bool
	workers                 int
	src                     train.Source           // set by buildRecipe
	dev                     train.Data             // dev set and in-batch data
	opts                    train.Options          // set by fit
	inBatch                 model.InBatchObjective // set by fit
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
		Long: `Train a neural ranker and save it as a model file. A run's settings are a recipe
(--print-recipe, --recipe FILE, as2 train recipe NAME) that flags and --set
FIELD=VALUE override: see docs/training.md#recipes.

` + strings.Join(archHelp, "\n\n"),
		Example: `  as2 train --arch cosinet --listwise --set hyperparameters.rnn=birnn --dataset wikiqa --epochs 3 --out m.as2
  as2 train --init squad.as2 --dataset wikiqa --out tl.as2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return t.exec(cmd) },
	}
	t.register(cmd)
	cmd.AddCommand(&cobra.Command{
		Use:   "recipe [NAME]",
		Short: "Print a registered training recipe as JSON (as2 train --recipe reads it); without NAME, list them",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), strings.Join(model.RecipeNames(), "\n"))
				return nil
			}
			r, err := model.LookupRecipe(args[0])
			return printRecipe(cmd, r, err)
		},
	})
	return cmd
}

func printRecipe(cmd *cobra.Command, r model.Recipe, err error) error {
	if err != nil {
		return err
	}
	js, err := r.MarshalIndent()
	if err == nil {
		_, err = cmd.OutOrStdout().Write(js)
	}
	return err
}

// textValue holds a recipe field's flag text until the recipe is built.
type textValue struct{ typ, text string }

func (v *textValue) String() string     { return v.text }
func (v *textValue) Set(s string) error { v.text = s; return nil }
func (v *textValue) Type() string       { return v.typ }

// register adds the training flags to cmd (as2 train and as2 bench train).
func (t *trainCmd) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	t.data.register(fs, "answered")
	fs.Lookup("subset").Usage = "dev questions to evaluate after each epoch: all, answered or filtered"
	fs.Lookup("split").Usage = "not used by train: see --train-split and --dev-split"
	fs.StringVar(&t.Arch, "arch", "cosinet", "architecture: "+strings.Join(model.Names(), ", "))
	fs.StringVar(&t.Arch, "model", "cosinet", "architecture")
	fs.MarkDeprecated("model", "use --arch; --model names a model file in eval, rank and serve")
	fs.StringVar(&t.Init, "init", "", "model file to continue training from (transfer learning); its architecture and settings are used")
	fs.StringVar(&t.InitEncoder, "init-encoder", "", "model file whose fine-tuned encoder weights this model's encoder starts from (e.g. a cross-encoder from a dual encoder trained with fine_tune over the same pretrained encoder)")
	fs.StringVar(&t.Embeddings, "embeddings", "", "word vectors for the static encoder: as2, GloVe/fastText text, word2vec binary or wink JSON (default the data folder's embeddings; with --init, the model's own)")
	fs.StringVar(&t.EmbeddingsFormat, "embeddings-format", "auto", "format of --embeddings: auto, as2, glove, fasttext, word2vec, wink")
	fs.StringVar(&t.out, "out", "", "model file to write (required; written atomically)")
	fs.StringVar(&t.trainSplit, "train-split", "train", "split to train on")
	fs.StringVar(&t.trainSubset, "train-subset", "answered", "training questions to keep: all, answered (both papers remove questions without a correct answer) or filtered")
	fs.StringVar(&t.dev.DevSplit, "dev-split", "dev", "split to evaluate after each epoch (none: skip)")
	fs.StringVar(&t.dev.DevPath, "dev-path", "", "dev file to evaluate after each epoch, for the jsonl and tsv datasets (which have no splits)")
	fs.StringVar(&t.RecipeFile, "recipe", "", "recipe file (JSON, from --print-recipe or as2 train recipe NAME); flags given override its fields")
	fs.BoolVar(&t.printRecipe, "print-recipe", false, "print the recipe that the flags (and --recipe) give, as JSON, and exit without training")
	fs.BoolVar(&t.Paper, "paper", false, "the paper's settings instead of as2's recipe (see each architecture below)")
	fs.StringVar(&t.Objective, "objective", model.DefaultObjective, "training objective: "+strings.Join(append(slices.Clone(model.Objectives), model.InBatchObjectives...), ", "))
	fs.BoolVar(&t.Listwise, "listwise", false, "shorthand for --objective listwise")
	fs.StringSliceVar(&t.dev.Also, "also", nil, "in-batch objectives: more training pairs from DATASET:SPLIT (repeatable), e.g. trecqa:train-all")
	fs.StringVar(&t.dev.DevPool, "dev-pool", "", "in-batch objectives: ReQA pool (as2 data reqa) whose retrieval MRR is measured after each epoch and, with --keep-best, selects the epoch")
	fs.StringArrayVar(&t.Sets, "set", nil, "set a recipe field by its JSON path in --print-recipe, FIELD=VALUE (repeatable, after the other flags), e.g. hyperparameters.rnn=birnn, training.clip=2, training.distill.temperature=2")
	fs.IntVar(&t.workers, "workers", 0, "goroutines computing gradients (0: one per core)")
	fs.BoolVar(&t.quiet, "quiet", false, "no progress bar")
	t.Settings = model.Settings()
	for _, s := range t.Settings {
		f := fs.VarPF(&textValue{typ: s.Type}, s.Flag, "", s.Usage)
		if s.Type == "bool" {
			f.NoOptDefVal = "true"
		}
		if !s.Common {
			fs.MarkDeprecated(s.Flag, "use --set "+s.Field+"=VALUE")
		}
	}
}

func (t *trainCmd) exec(cmd *cobra.Command) error {
	if t.printRecipe {
		r, _, err := t.buildRecipe(cmd.Flags(), cmd.ErrOrStderr())
		if err == nil { // a recipe that no run could resolve is not printed
			_, err = train.Resolve(r, true)
		}
		return printRecipe(cmd, r, t.src.Explain(err))
	}
	if t.out == "" {
		return fmt.Errorf("--out is required: the model file to write")
	}
	t.data.errOut = cmd.ErrOrStderr()
	m, sum, err := t.fit(cmd)
	if err != nil {
		return err
	}
	if err := model.Save(t.out, m); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s; saved %s\n", sum.Text(t.describe(m), t.inBatch != nil), t.out)
	return nil
}

// describe names the trained model (as2 bench train's settings too).
func (t *trainCmd) describe(m model.Model) string {
	return train.Describe(m, train.Plan{Options: t.opts, InBatch: t.inBatch})
}

// buildRecipe is the run's recipe (train.Source), and --init's model.
func (t *trainCmd) buildRecipe(fs *pflag.FlagSet, stderr io.Writer) (model.Recipe, model.Trainable, error) {
	var err error
	t.src, err = t.Flags.Source(func(f string) (string, bool) { return fs.Lookup(f).Value.String(), fs.Changed(f) })
	if err != nil {
		return model.Recipe{}, nil, err
	}
	r, m, err := t.src.Recipe()
	switch {
	case errors.Is(err, train.ErrNoTeacher):
		return r, nil, fmt.Errorf("--distill-weight, --distill-temperature and --distill-candidates are for --distill (a teacher model): %w", err)
	case m != nil:
		fmt.Fprintf(stderr, "init: %s model from %s (%d parameters)\n", m.Config().Architecture, t.Init, m.Config().Params)
	}
	return r, m, err
}

// fit builds the recipe, loads the data and the model, and trains.
func (t *trainCmd) fit(cmd *cobra.Command) (model.Trainable, *train.Summary, error) {
	fs, stderr := cmd.Flags(), cmd.ErrOrStderr()
	r, m, err := t.buildRecipe(fs, stderr)
	if err != nil {
		return nil, nil, err
	}
	t.dev.Dataset, t.dev.DevSplitGiven, t.dev.Given = t.data.name, fs.Changed("dev-split"), fs.Changed
	plan, err := t.dev.PlanFor(r)
	if err != nil {
		return nil, nil, t.src.Explain(err)
	}
	plan.Workers = t.workers
	run := &train.Run{Plan: plan, Dataset: t.data.name, Split: t.trainSplit, Init: t.Init}
	if run.Questions, run.Dev, err = t.loadData(); err != nil {
		return nil, nil, err
	}
	if plan.Distill != nil {
		if run.Teacher, err = openRanker("--distill", plan.Distill.Teacher); err != nil {
			return nil, nil, err
		}
		if !t.quiet { // --quiet: no bars at all, the teacher's included
			run.TeacherProgress = termbar.NewLoop(stderr, len(run.Questions), "teacher scoring").StepDone
		}
	}
	if m == nil {
		start := time.Now()
		if m, err = train.NewModelFrom(r, t.Embeddings, t.EmbeddingsFormat, t.InitEncoder); err != nil {
			return nil, nil, t.src.Explain(err)
		}
		spec := m.Config().Encoder
		fmt.Fprintf(stderr, "encoder: %s, %d-d token states, %d vocabulary entries (%.1fs)\n", spec.Kind, spec.Dim, len(spec.Vocabulary), time.Since(start).Seconds())
	}
	if plan.InBatch != nil {
		line, err := run.AddPairs(t.dev.Also, func(spec string) ([]dataset.Question, error) {
			return loadSplit(t.data, "--also", spec, dataset.Answered)
		})
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(stderr, line)
		if t.dev.DevPool != "" {
			if run.DevRetrieval, err = as2.DevRetrieval(t.dev.DevPool, m); err != nil {
				return nil, nil, fmt.Errorf("--dev-pool: %w", err)
			}
		}
	}
	var bar *termbar.Steps
	if !t.quiet {
		bar = termbar.NewSteps(stderr)
	}
	if bar != nil {
		run.Progress = func(p train.Progress) {
			bar.Set(p.Step, p.Steps, fmt.Sprintf("epoch %d/%d  loss %.4f  %4.0f pairs/s", p.Epoch, run.Epochs, p.Loss, float64(p.Pairs)/p.Elapsed.Seconds()))
		}
	}
	run.EpochEnd = func(r train.EpochResult) {
		bar.Clear()
		fmt.Fprintln(stderr, r.Line())
	}
	sum, err := run.Fit(cmd.Context(), m)
	t.opts, t.inBatch = run.Options, run.InBatch
	bar.Finish()
	return m, sum, err
}

func (t *trainCmd) loadData() (trainQs, devQs []dataset.Question, err error) {
	sub, err := dataset.ParseSubset(t.trainSubset)
	if err != nil {
		return nil, nil, fmt.Errorf("--train-subset: %w", err)
	}
	if _, trainQs, _, err = t.data.load(t.trainSplit, sub); err != nil {
		return nil, nil, err
	}
	// Empty candidates have nothing to teach (dev ranks them last).
	trainQs = dataset.WithoutEmpty(trainQs)
	dev := t.data
	split, path, ok := t.dev.Dev()
	if !ok {
		return trainQs, nil, nil
	}
	if path != "" {
		dev.path = path
	}
	_, devQs, _, err = dev.load(split, "")
	return trainQs, devQs, err
}
