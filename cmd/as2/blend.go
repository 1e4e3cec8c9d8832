package main

import (
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/blend"
)

func newTuneBlendCmd() *cobra.Command {
	var (
		data    datasetFlags
		rankers string
		out     string
		opts    blend.Options
		folds   int
	)
	c := &cobra.Command{
		Use:   "blend",
		Short: "Fit a blend of rankers (weighted sum of their scores) on labelled dev questions",
		Long: `Fit the weights of a blend of rankers by logistic regression on labelled
dev questions (--listwise: a softmax over each question's candidates) and
write it for --model FILE.json. Options and what they are for:
docs/evaluation.md ("Blends").`,
		Example: `  as2 tune blend --rankers m.as2,wo,idf-overlap,bm25 --dataset wikiqa --split dev --out blend.json
  as2 tune blend --rankers m.as2,wo,bm25-stem --listwise --non-negative --cv 5 --dataset wikiqa --split dev --out blend.json
  as2 eval --model blend.json --dataset wikiqa --split test`,
		Args: cobra.NoArgs,
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
