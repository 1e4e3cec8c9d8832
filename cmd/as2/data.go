package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/dataset/download"
	"github.com/as2/as2/text"
)

func newDataCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Download and inspect datasets",
	}
	cmd.AddCommand(newDataGetCmd(), newDataStatsCmd(), newDataAugmentCmd(), newDataReQACmd(), newDataSentencesCmd())
	return cmd
}

func newDataAugmentCmd() *cobra.Command {
	var (
		d         datasetFlags
		poolSplit string
		size      int
		seed      uint64
		out       string
	)
	cmd := &cobra.Command{
		Use:   "augment",
		Short: "Build large candidate pools (WikiQA++, SQuAD-sent++) for cascade experiments",
		Long: `Give every question of a split up to --size candidates, its own then negatives
drawn from the other questions of --pool-split, and write as2's JSONL
(--dataset jsonl --path FILE reads it). docs/data.md says more.`,
		Example: `  as2 data augment --dataset wikiqa --split test --size 300 --out wikiqa-test++.jsonl
  as2 eval --dataset jsonl --path wikiqa-test++.jsonl --cascade "bm25:50,cosinet=m.as2:1"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			if size < 1 {
				return fmt.Errorf("--size %d: must be at least 1", size)
			}
			d.errOut = cmd.ErrOrStderr()
			_, qs, _, err := d.load("", "")
			if err != nil {
				return err
			}
			if poolSplit != "" {
				d.split = poolSplit
			}
			pool, _, _, err := d.load("", "") // every question of the pool split, whatever the subset
			if err != nil {
				return err
			}
			aug, err := dataset.Augment(qs, pool, size, seed)
			if err != nil {
				return err
			}
			if err := writeAtomic(out, cmd.OutOrStdout(), func(w io.Writer) error { return dataset.WriteJSONL(w, aug) }); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d questions with %d candidates each (at least) to %s\n", len(aug), size, out)
			return nil
		},
	}
	d.register(cmd.Flags(), "answered")
	cmd.Flags().StringVar(&poolSplit, "pool-split", "", "split whose candidates are drawn (default: the same split)")
	cmd.Flags().IntVar(&size, "size", 300, "candidates per question after augmenting")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed for drawing the negatives")
	cmd.Flags().StringVar(&out, "out", "", "JSONL file to write (- for standard output)")
	return cmd
}

func newDataStatsCmd() *cobra.Command {
	var d datasetFlags
	var format string
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Print the statistics of the Cosinet paper's Table 2 for a dataset",
		Long: `Print the Cosinet paper's Table 2 statistics of each split (or --split), over
the --subset questions (default all): counts, lengths in as2 tokens, and the
expected P@1 of a random ranking. docs/data.md says more.`,
		Example: `  as2 data stats --dataset wikiqa
  as2 data stats --dataset trecqa --split test --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			splits := []string{d.split}
			if d.split == "" {
				splits = catalog.Splits(d.name)
			}
			d.errOut = cmd.ErrOrStderr()
			var rows []dataset.SplitStats
			for _, sp := range splits {
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				d.split = sp
				_, qs, _, err := d.load("", "")
				if err != nil {
					return err
				}
				rows = append(rows, dataset.SplitStats{Split: sp, Stats: dataset.ComputeStats(qs, text.Tokenize)})
			}
			return dataset.WriteStats(cmd.OutOrStdout(), d.name, d.subset, format, rows)
		},
	}
	d.register(cmd.Flags(), "all")
	formatFlag(cmd.Flags(), &format)
	return cmd
}

// withDataHint adds to err, the error of loading benchmark name, how to
// install it, unless it was read from an explicit --path.
func withDataHint(name, path string, err error) error {
	m, merr := download.Sources()
	if err == nil || path != "" || merr != nil {
		return err
	}
	return m.InstallHint(name, catalog.DataDir(), err)
}
