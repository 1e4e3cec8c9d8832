package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/dataset/trecqa"
	"github.com/as2/as2/dataset/wikiqa"
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
		Long: `Give every question of a split (its --subset) more candidates: after its own,
negatives drawn at random (seeded) from the candidates of the other questions
of --pool-split (default: the same split), up to --size candidates, like the
ASNQ++ of the sequential reranking paper. Writes as2's JSONL, which
--dataset jsonl --path FILE reads.`,
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

type statsRow struct {
	Split string `json:"split"`
	dataset.Stats
}

func newDataStatsCmd() *cobra.Command {
	var d datasetFlags
	var format string
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Print the statistics of the Cosinet paper's Table 2 for a dataset",
		Long: `Print, for each split (or the one given with --split), the statistics of Table 2
of the Cosinet paper: questions, candidate sentences, positives, % of questions
with a correct candidate, average candidates per question, average question and
candidate length in tokens (as2's tokenizer), and the expected P@1 of a random
ranking over the answered questions. --subset restricts the questions first
(default all, as in the paper's table).`,
		Example: `  as2 data stats --dataset wikiqa
  as2 data stats --dataset trecqa --split test --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" {
				return fmt.Errorf("--format %q: want table or json", format)
			}
			splits := []string{d.split}
			if d.split == "" {
				splits = defaultSplits(d.name)
			}
			d.errOut = cmd.ErrOrStderr()
			var rows []statsRow
			for _, sp := range splits {
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				d.split = sp
				_, qs, _, err := d.load("", "")
				if err != nil {
					return err
				}
				rows = append(rows, statsRow{Split: sp, Stats: dataset.ComputeStats(qs, text.Tokenize)})
			}
			return printStats(cmd.OutOrStdout(), d.name, d.subset, format, rows)
		},
	}
	d.register(cmd.Flags(), "all")
	cmd.Flags().StringVar(&format, "format", "table", "output: table or json")
	return cmd
}

func defaultSplits(name string) []string {
	switch name {
	case "wikiqa":
		return wikiqa.Splits
	case "trecqa":
		return trecqa.SplitNames()
	case "squad":
		return []string{catalog.DefaultSplit(name)}
	}
	return []string{""}
}

func printStats(w io.Writer, name, subset, format string, rows []statsRow) error {
	if format == "json" {
		return json.NewEncoder(w).Encode(map[string]any{"dataset": name, "subset": subset, "splits": rows})
	}
	fmt.Fprintf(w, "%s, subset %s (lengths in as2 tokens)\n", name, subset)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "split\tquestions\tcandidates\tpositives\t% answered\tavg cands\tavg Q len\tavg C len\tP@1 random\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", r.Split, r.Questions, r.Candidates, r.Positives,
			r.AnsweredPercent, r.AvgCandidates, r.AvgQuestionLen, r.AvgCandidateLen, 100*r.RandomP1)
	}
	return tw.Flush()
}
