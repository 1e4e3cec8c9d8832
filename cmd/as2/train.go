package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model"
	"github.com/as2/as2/train"
)

// trainCmd holds as2 train's flags. The recipe's fields have flags from
// model.Settings, set on the recipe only where given, over --recipe's
// file, --init's model's or the registered recipe of --arch and --objective.
type trainCmd struct {
	data                                     datasetFlags
	arch, recipeFile, init, initEncoder, out string
	embeddings, embedFmt, objective          string
	trainSplit, trainSubset                  string
	printRecipe, listwise, paper, quiet      bool
	workers                                  int
	sets                                     []string // --set FIELD=VALUE
	settings                                 []model.Setting
	src                                      train.Source // set by buildRecipe
	dev                                      train.Data   // dev set and in-batch data
	// Set by fit: what the recipe resolved to.
	opts    train.Options
	inBatch model.InBatchObjective
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
		Long: `Train a neural ranker on a benchmark's training split and save it as a model file.
A run's settings are a recipe (--print-recipe, --recipe FILE, as2 train recipe
NAME), which the flags given and --set FIELD=VALUE override: see
docs/training.md#recipes.

` + strings.Join(archHelp, "\n\n"),
		Example: `  as2 train --arch cosinet --listwise --set hyperparameters.rnn=birnn --dataset wikiqa --epochs 3 --out m.as2
  as2 train --arch compclip --set hyperparameters.clusters=8 --dataset wikiqa --out cc.as2
  as2 train --init squad.as2 --dataset wikiqa --out tl.as2
  as2 train --arch compclip --listwise --print-recipe > cc.json
  as2 train --recipe cc.json --dataset wikiqa --seed 2 --out cc.as2`,
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
	fs.StringVar(&t.arch, "arch", "cosinet", "architecture: "+strings.Join(model.Names(), ", "))
	fs.StringVar(&t.arch, "model", "cosinet", "architecture")
	fs.MarkDeprecated("model", "use --arch; --model names a model file in eval, rank and serve")
	fs.StringVar(&t.init, "init", "", "model file to continue training from (transfer learning); its architecture and settings are used")
	fs.StringVar(&t.initEncoder, "init-encoder", "", "model file whose fine-tuned encoder weights this model's encoder starts from (e.g. a cross-encoder from a dual encoder trained with fine_tune over the same pretrained encoder)")
	fs.StringVar(&t.embeddings, "embeddings", "", "word vectors for the static encoder: as2, GloVe/fastText text, word2vec binary or wink JSON (default the data folder's embeddings; with --init, the model's own)")
	fs.StringVar(&t.embedFmt, "embeddings-format", "auto", "format of --embeddings: auto, as2, glove, fasttext, word2vec, wink")
	fs.StringVar(&t.out, "out", "", "model file to write (required; written atomically)")
	fs.StringVar(&t.trainSplit, "train-split", "train", "split to train on")
	fs.StringVar(&t.trainSubset, "train-subset", "answered", "training questions to keep: all, answered (both papers remove questions without a correct answer) or filtered")
	fs.StringVar(&t.dev.DevSplit, "dev-split", "dev", "split to evaluate after each epoch (none: skip)")
	fs.StringVar(&t.dev.DevPath, "dev-path", "", "dev file to evaluate after each epoch, for the jsonl and tsv datasets (which have no splits)")
	fs.StringVar(&t.recipeFile, "recipe", "", "recipe file (JSON, from --print-recipe or as2 train recipe NAME); flags given override its fields")
	fs.BoolVar(&t.printRecipe, "print-recipe", false, "print the recipe that the flags (and --recipe) give, as JSON, and exit without training")
	fs.BoolVar(&t.paper, "paper", false, "the paper's settings instead of as2's recipe (see each architecture below)")
	fs.StringVar(&t.objective, "objective", model.DefaultObjective, "training objective: "+strings.Join(append(slices.Clone(model.Objectives), model.InBatchObjectives...), ", "))
	fs.BoolVar(&t.listwise, "listwise", false, "shorthand for --objective listwise")
	fs.StringSliceVar(&t.dev.Also, "also", nil, "in-batch objectives: more training pairs from DATASET:SPLIT (repeatable), e.g. trecqa:train-all")
	fs.StringVar(&t.dev.DevPool, "dev-pool", "", "in-batch objectives: ReQA pool (as2 data reqa) whose retrieval MRR is measured after each epoch and, with --keep-best, selects the epoch")
	fs.StringArrayVar(&t.sets, "set", nil, "set a recipe field by its JSON path in --print-recipe, FIELD=VALUE (repeatable, after the other flags), e.g. hyperparameters.rnn=birnn, training.clip=2, training.distill.temperature=2")
	fs.IntVar(&t.workers, "workers", 0, "goroutines computing gradients (0: one per core)")
	fs.BoolVar(&t.quiet, "quiet", false, "no progress bar")
	t.settings = model.Settings()
	for _, s := range t.settings {
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

// buildRecipe is the run's recipe (see train.Source): --recipe's file,
// --init's model's or the registered recipe of --arch (--paper) under
// --objective, with the flags given set on it. With --init it returns the
// model to train further.
func (t *trainCmd) buildRecipe(fs *pflag.FlagSet, stderr io.Writer) (model.Recipe, model.Trainable, error) {
	t.src = train.Source{File: t.recipeFile, Init: t.init, Arch: t.arch, ArchGiven: fs.Changed("arch") || fs.Changed("model"),
		Paper: t.paper, Embeddings: t.embeddings, EmbeddingsFormat: t.embedFmt}
	if fs.Changed("objective") {
		t.src.Objective, t.src.ObjectiveBy = t.objective, "--objective"
	}
	if t.listwise {
		t.src.Objective, t.src.ObjectiveBy = "listwise", "--listwise"
	}
	switch _, err := model.Lookup(t.arch); {
	case t.listwise && fs.Changed("objective") && t.objective != "listwise":
		return model.Recipe{}, nil, fmt.Errorf("--listwise and --objective %s: give one", t.objective)
	case t.initEncoder != "" && t.init != "":
		return model.Recipe{}, nil, fmt.Errorf("--init-encoder: not with --init, whose model keeps its own encoder")
	case err != nil && t.recipeFile == "" && t.init == "":
		return model.Recipe{}, nil, fmt.Errorf("--arch: %w", err)
	}
	given := func(f string) (string, bool) { return fs.Lookup(f).Value.String(), fs.Changed(f) }
	sets, err := train.FlagSets(t.settings, given, t.sets)
	if err != nil {
		return model.Recipe{}, nil, err
	}
	t.src.Sets = sets
	r, m, err := t.src.Recipe()
	switch {
	case errors.Is(err, train.ErrNoTeacher):
		return r, nil, fmt.Errorf("--distill-weight, --distill-temperature and --distill-candidates are for --distill (a teacher model): %w", err)
	case m != nil:
		fmt.Fprintf(stderr, "init: %s model from %s (%d parameters)\n", m.Config().Architecture, t.init, m.Config().Params)
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
	run := &train.Run{Plan: plan, Dataset: t.data.name, Split: t.trainSplit, Init: t.init}
	if run.Questions, run.Dev, err = t.loadData(); err != nil {
		return nil, nil, err
	}
	if plan.Distill != nil {
		if run.Teacher, err = openRanker("--distill", plan.Distill.Teacher); err != nil {
			return nil, nil, err
		}
		if !t.quiet { // --quiet: no bars at all, the teacher's included
			p := newProgress(stderr, len(run.Questions), "teacher scoring")
			run.TeacherProgress = func(n int) {
				if p.step(n); n == len(run.Questions) {
					p.done()
				}
			}
		}
	}
	if m == nil {
		if m, err = t.newModel(r, stderr); err != nil {
			return nil, nil, t.src.Explain(err)
		}
	}
	if plan.InBatch != nil {
		if err := t.inBatchData(stderr, m, run); err != nil {
			return nil, nil, err
		}
	}
	bar := t.progressBar(stderr)
	if bar != nil {
		run.Progress = func(p train.Progress) {
			if bar.GetMax() != p.Steps {
				bar.ChangeMax(p.Steps)
			}
			bar.Describe(fmt.Sprintf("epoch %d/%d  loss %.4f  %4.0f pairs/s", p.Epoch, run.Epochs, p.Loss, float64(p.Pairs)/p.Elapsed.Seconds()))
			bar.Set(p.Step)
		}
	}
	run.EpochEnd = func(r train.EpochResult) {
		if bar != nil {
			bar.Clear()
		}
		fmt.Fprintln(stderr, r.Line())
	}
	sum, err := run.Fit(cmd.Context(), m)
	t.opts, t.inBatch = run.Options, run.InBatch
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	return m, sum, err
}

// newModel builds r's untrained model, its encoder from --init-encoder's
// model where given.
func (t *trainCmd) newModel(r model.Recipe, stderr io.Writer) (model.Trainable, error) {
	var from model.Model
	var err error
	if t.initEncoder != "" {
		if from, err = model.Load(t.initEncoder); err != nil {
			return nil, fmt.Errorf("--init-encoder: %w", err)
		}
	}
	start := time.Now()
	m, err := train.NewModel(r, t.embeddings, t.embedFmt, from)
	if err != nil {
		flags := "--encoder " + r.Encoder
		if t.embeddings != "" {
			flags += ", --embeddings " + t.embeddings
		}
		if t.initEncoder != "" {
			flags += ", --init-encoder " + t.initEncoder
		}
		return nil, fmt.Errorf("%s: %w", flags, err)
	}
	spec := m.Config().Encoder
	fmt.Fprintf(stderr, "encoder: %s, %d-d token states, %d vocabulary entries (%.1fs)\n", spec.Kind, spec.Dim, len(spec.Vocabulary), time.Since(start).Seconds())
	return m, nil
}

func (t *trainCmd) loadData() (trainQs, devQs []dataset.Question, err error) {
	sub, err := dataset.ParseSubset(t.trainSubset)
	if err != nil {
		return nil, nil, fmt.Errorf("--train-subset: %w", err)
	}
	if _, trainQs, _, err = t.data.load(t.trainSplit, sub); err != nil {
		return nil, nil, err
	}
	// Kept empty candidates have nothing to learn from: training leaves
	// them out (dev evaluation ranks them last, as eval does).
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

// progressBar returns a bar on terminals, and nil elsewhere (CI logs).
func (t *trainCmd) progressBar(w io.Writer) *progressbar.ProgressBar {
	if t.quiet || !terminal(w) {
		return nil
	}
	return newBar(w, 1, "", progressbar.OptionShowCount())
}
