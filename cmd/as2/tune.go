package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/evaluation/tradeoff"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/blend"
)

func newTuneCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "tune", Short: "Choose settings on a dev set"}
	var data datasetFlags
	var devSplit, devPath, first, last, ks string
	var budget time.Duration
	var target float64
	c := &cobra.Command{
		Use:   "cascade",
		Short: "Choose a two-stage cascade's k on dev for a latency budget or an accuracy target, and report it on test",
		Long: `Choose k for the cascade --first:k → --last on dev, within --budget or --target,
and measure it on test. See docs/retrieval.md (cascades).`,
		Example: `  as2 tune cascade --dataset jsonl --path wikiqa-test++.jsonl --dev-path wikiqa-dev++.jsonl --first bm25 --last m.as2 --budget 20ms`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if budget < 0 || target <= 0 || target > 1 {
				return fmt.Errorf("--budget must be >= 0 and --target in (0, 1]")
			}
			fr, lr, kList, err := twoStages(first, last, ks)
			if err != nil {
				return err
			}
			if data.name == "" {
				return fmt.Errorf("--dataset is required")
			}
			devData := data
			if devPath != "" {
				devData.path = devPath
			}
			_, dev, _, err := devData.load(devSplit, "")
			if err != nil {
				return fmt.Errorf("dev set: %w", err)
			}
			_, test, _, err := data.load("", "")
			if err != nil {
				return fmt.Errorf("test set: %w", err)
			}
			t, err := tradeoff.Tune(cmd.Context(), fr, lr, first, last, kList, dev, test, budget, target)
			if err != nil {
				return err
			}
			return t.WriteText(cmd.OutOrStdout())
		},
	}
	fs := c.Flags()
	data.register(fs, "answered")
	fs.StringVar(&devSplit, "dev-split", "dev", "split to choose k on")
	fs.StringVar(&devPath, "dev-path", "", "dev file or folder, when it differs from --path (JSONL datasets)")
	fs.StringVar(&first, "first", "bm25", "first stage: a rule-based ranker or a model file")
	fs.StringVar(&last, "last", "", "last stage: a model file or a rule-based ranker (required)")
	fs.StringVar(&ks, "k", "1,5,10,25,50,100", "candidates the first stage may pass on, comma-separated")
	fs.DurationVar(&budget, "budget", 0, "mean latency per question to fit (0: use --target)")
	fs.Float64Var(&target, "target", 0.995, "fraction of the last stage's P@1 to keep, without --budget")
	cmd.AddCommand(c, newTuneBlendCmd())
	return cmd
}

func newTuneBlendCmd() *cobra.Command {
	var data datasetFlags
	var rankers, out string
	var opts blend.Options
	var folds int
	c := &cobra.Command{
		Use:   "blend",
		Short: "Fit a blend of rankers (weighted sum of their scores) on labelled dev questions",
		Long: `Fit a blend's weights by logistic regression on labelled dev questions
(--listwise: a softmax per question) and write it for --model FILE.json. See
docs/evaluation.md ("Blends").`,
		Example: `  as2 tune blend --rankers m.as2,wo,idf-overlap,bm25 --dataset wikiqa --split dev --out blend.json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data.name == "" || rankers == "" || out == "" {
				return errors.New("--dataset, --rankers and --out are required")
			}
			bo := as2.BlendOptions{Options: opts, Folds: folds, Dir: filepath.Dir(out),
				Open: func(spec string) (rank.Ranker, error) { return openRanker("--rankers", spec) }}
			if err := bo.Check(); err != nil {
				return optionFlags(err)
			}
			if folds > 0 && cmd.Flags().Changed("l2") {
				return errors.New("--l2 and --cv: give one (--cv chooses the penalty)")
			}
			_, qs, _, err := data.load("", "")
			if err != nil {
				return err
			}
			f, err := as2.FitBlend(cmd.Context(), strings.Split(rankers, ","), qs, bo)
			if err != nil {
				return err
			}
			if err := f.WriteCV(cmd.OutOrStdout()); err != nil {
				return err
			}
			if err := writeFlagFile(cmd, "--out", out, func(w io.Writer) error { return blend.WriteSpec(w, f.File) }); err != nil {
				return err
			}
			return f.WriteTable(cmd.OutOrStdout())
		},
	}
	fs := c.Flags()
	data.register(fs, "answered")
	fs.StringVar(&rankers, "rankers", "", "comma-separated rankers to blend: model files (as --model reads them: FILE.run blends another system's TREC run) or rule-based rankers (required)")
	fs.StringVar(&out, "out", "", "blend file to write (JSON; required; written atomically)")
	fs.Float64Var(&opts.L2, "l2", 1e-3, "L2 penalty on the (standardised) weights")
	fs.IntVar(&folds, "cv", 0, "choose --l2 by this many folds of cross-validation over the questions (question i in fold i mod K; 0: use --l2)")
	fs.BoolVar(&opts.Listwise, "listwise", false, "fit a softmax over each question's candidates (ranks better; the scores are then not probabilities: calibrate with as2 trigger) instead of a logistic regression over all candidates")
	fs.BoolVar(&opts.NonNegative, "non-negative", false, "keep every weight >= 0: a ranker the fit weighs negatively is set to 0 and the rest refitted (rankers that nearly repeat each other otherwise get opposite weights that cancel on the dev set)")
	return c
}
