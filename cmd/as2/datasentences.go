package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
)

// defaultSentencePool is every candidate sentence as2 has: SQuAD v1.1 dev,
// WikiQA and TrecQA (issue 13's pool of at least 100,000, and the real
// vectors of issue 12's index benchmark).
const defaultSentencePool = "squad:dev,wikiqa:train,wikiqa:dev,wikiqa:test,trecqa:train-all,trecqa:dev,trecqa:test"

func newDataSentencesCmd() *cobra.Command {
	var (
		pool []string
		out  string
	)
	cmd := &cobra.Command{
		Use:   "sentences",
		Short: "Write the distinct candidate sentences of datasets, an answer file for as2 index build",
		Long: `Write every distinct candidate sentence of the --pool splits as ID<TAB>TEXT
lines, which as2 index build --answers reads (docs/data.md).`,
		Example: `  as2 data sentences --out sentences.tsv
  as2 index build --retriever use-lite --kind flat --answers sentences.tsv --out sentences-use.idx
  as2 bench index --vectors sentences-use.idx --size 1000000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			// The splits as every command reads them by default (TrecQA
			// shuffled with seed 1, empty candidates kept and skipped here).
			d := datasetFlags{seed: 1, empty: "keep", errOut: cmd.ErrOrStderr()}
			texts, err := poolSentences(d, pool)
			if err != nil {
				return err
			}
			err = writeAtomic(out, cmd.OutOrStdout(), func(w io.Writer) error { return dataset.WriteSentences(w, texts) })
			if err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d distinct sentences of %s to %s\n", len(texts), strings.Join(pool, ","), out)
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&pool, "pool", strings.Split(defaultSentencePool, ","), "DATASET:SPLIT list whose candidate sentences are written")
	cmd.Flags().StringVar(&out, "out", "", "file to write (- for standard output)")
	return cmd
}

// poolSentences is the distinct candidate sentences (trimmed, non-empty)
// of every question of the DATASET:SPLIT specs, in the order first met.
func poolSentences(d datasetFlags, specs []string) ([]string, error) {
	var splits [][]dataset.Question
	for _, spec := range specs {
		qs, err := loadSplit(d, "--pool", spec, dataset.All)
		if err != nil {
			return nil, err
		}
		splits = append(splits, qs)
	}
	return dataset.CandidateSentences(splits...), nil
}
