package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/as2/as2/model"
)

func newQuantizeCmd() *cobra.Command {
	var in, out string
	cmd := &cobra.Command{
		Use:   "quantize",
		Short: "Write a model file with int8 weights (about a quarter of the size)",
		Long: `Write a copy of a model file with its matrices stored as int8 (one float32
scale per row), about a quarter of the size; it loads like any model file.
Measure the accuracy it costs with as2 eval on both files. What is stored and
how int8 runs: docs/training.md ("Model files").`,
		Example: `  as2 quantize --model m.as2 --out m.int8.as2
  as2 eval --model m.int8.as2 --dataset wikiqa --split test`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" || out == "" {
				return errors.New("--model and --out are required")
			}
			m, err := model.Load(in)
			if err != nil {
				return fmt.Errorf("--model: %w", err)
			}
			if err := model.SaveInt8(out, m); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			before, _ := os.Stat(in)
			after, err := os.Stat(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %.1f MB (%s: %.1f MB)\n", out, float64(after.Size())/1e6, in, float64(before.Size())/1e6)
			return nil
		},
	}
	cmd.Flags().StringVar(&in, "model", "", "model file to quantise (required)")
	cmd.Flags().StringVar(&out, "out", "", "model file to write (required; written atomically)")
	return cmd
}
