package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/bench"
	"github.com/as2/as2/model/has"
)

func newBenchHASCmd() *cobra.Command {
	var data datasetFlags
	var hashFile, attFile, poolMF, format string
	var pool []string
	var limit int
	var quiet bool
	cmd := &cobra.Command{
		Use:   "has",
		Short: "Memory and time per question of HAS against its float baselines (the HAS paper's Table 6)",
		Long: `Measure memory for --pool's sentences, and time, MAP and P@1, of HAS (--hash)
and its float baselines, as the HAS paper's Table 6 (docs/evaluation.md#speed).`,
		Example: `  as2 bench has --hash has.as2 --attention att.as2 --pooling pool.as2 --dataset jsonl --path wikiqa-test500.jsonl`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if hashFile == "" {
				return fmt.Errorf("--hash is required: a HAS model (as2 train --arch has)")
			}
			if data.name == "" {
				return fmt.Errorf("--dataset is required: questions with their candidates, e.g. --dataset jsonl --path wikiqa-test500.jsonl")
			}
			if limit < 0 {
				return fmt.Errorf("--questions %d: want 0 (all) or more", limit)
			}
			models := map[string]*has.Model{}
			for _, f := range []struct{ flag, path, mode string }{{"--hash", hashFile, has.Hash}, {"--attention", attFile, has.Attention}, {"--pooling", poolMF, has.Pooling}} {
				if f.path == "" {
					continue
				}
				r, err := openRanker(f.flag, as2.FilePrefix+f.path)
				if err != nil {
					return err
				}
				if models[f.mode], err = bench.HASModel(r, f.mode); err != nil {
					return fmt.Errorf("%s %s: %w", f.flag, f.path, err)
				}
			}
			_, qs, _, err := data.load("", "")
			if err != nil {
				return err
			}
			if limit > 0 && limit < len(qs) {
				qs = qs[:limit]
			}
			bars := progressBars(cmd.ErrOrStderr(), quiet)
			var mem *bench.PoolMemory
			if len(pool) > 0 && pool[0] != "none" {
				texts, err := poolSentences(data, pool)
				if err != nil {
					return err
				}
				if mem, err = bench.MeasurePool(ctx, models[has.Hash], texts, pool, bars); err != nil {
					return fmt.Errorf("--pool: %w", err)
				}
			}
			rep, err := bench.HAS(ctx, models, qs, data.describe(), mem, bars)
			if err != nil {
				return err
			}
			return rep.Write(cmd.OutOrStdout(), format)
		},
	}
	fs := cmd.Flags()
	data.register(fs, "answered")
	fs.StringVar(&hashFile, "hash", "", "HAS model (as2 train --arch has), required")
	fs.StringVar(&attFile, "attention", "", "the float-attention baseline (as2 train --arch has --has-mode attention)")
	fs.StringVar(&poolMF, "pooling", "", "the pooling baseline (as2 train --arch has --has-mode pooling)")
	fs.StringSliceVar(&pool, "pool", strings.Split(defaultSentencePool, ","), "answer pool for the memory figures: DATASET:SPLIT list (every candidate sentence, deduplicated), or none")
	fs.IntVar(&limit, "questions", 0, "time the first N questions only (0: all)")
	formatFlag(cmd, &format)
	fs.BoolVar(&quiet, "quiet", false, "no progress bars")
	return cmd
}
