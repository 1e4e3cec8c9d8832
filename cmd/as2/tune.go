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
		Long: `Sweep k for the cascade --first:k → --last on the dev set (as as2 bench cascade
does), choose the k to deploy, then measure that cascade on the test set.

With --budget, the chosen k is the most accurate one (P@1, then MAP) whose mean
latency per question on dev fits the budget; otherwise the fastest one that
keeps --target of the last stage's own P@1 on dev. For as2's JSONL files
(e.g. from as2 data augment), --path is the test file and --dev-path the dev
file.`,
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
			devPoints, err := tradeoff.Sweep(cmd.Context(), fr, lr, first, last, kList, dev)
			if err != nil {
				return err
			}
			chosen, err := tradeoff.Choose(devPoints, budget, target)
			if err != nil {
				return err
			}
			var testKs []int
			if chosen.K > 0 {
				testKs = []int{chosen.K}
			}
			testPoints, err := tradeoff.Sweep(cmd.Context(), fr, lr, first, last, testKs, test)
			if err != nil {
				return err
			}
			alone, at := testPoints[0], testPoints[len(testPoints)-1]
			w := cmd.OutOrStdout()
			k := fmt.Sprint(chosen.K)
			if chosen.K == 0 {
				k = "all (the last stage alone)"
			}
			fmt.Fprintf(w, "%s → %s; chosen on dev (%d questions): k = %s (dev P@1 %.2f, %.2f ms/question)\n", first, last, len(dev), k, 100*chosen.P1, float64(chosen.Latency.Microseconds())/1000)
			fmt.Fprintf(w, "test (%d questions): P@1 %.2f, MAP %.2f, %.2f ms/question; last stage alone: P@1 %.2f, MAP %.2f, %.2f ms/question (%.1f%% of its P@1 at %.2fx its latency)\n",
				len(test), 100*at.P1, 100*at.MAP, float64(at.Latency.Microseconds())/1000, 100*alone.P1, 100*alone.MAP, float64(alone.Latency.Microseconds())/1000,
				100*at.P1/max(alone.P1, 1e-12), float64(at.Latency)/float64(max(alone.Latency, 1)))
			return nil
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
