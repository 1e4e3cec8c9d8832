package main

import (
	"fmt"
	"time"

	"github.com/as2/as2/evaluation/tradeoff"
	"github.com/spf13/cobra"
)

func newTuneCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "Choose settings on a dev set",
	}
	var (
		data              datasetFlags
		devSplit, devPath string
		first, last, ks   string
		budget            time.Duration
		target            float64
	)
	c := &cobra.Command{
		Use:   "cascade",
		Short: "Choose a two-stage cascade's k on dev for a latency budget or an accuracy target, and report it on test",
		Long: `Sweep k for the cascade --first:k → --last on dev, choose the most accurate
k within --budget (else the fastest that keeps --target of the last stage's
P@1), and measure it on test. See docs/retrieval.md (cascades).`,
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
