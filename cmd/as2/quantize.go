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
		Long: `Write a copy of a model file whose matrices (every tensor of two or more
dimensions with at least 4,096 values) are stored as int8, with one float32
scale per row: v = scale*q, scale = max|row|/127. Biases, norms and other small
tensors stay float32. The file is about a quarter of the size; it loads like
any model file (as2 eval --model, rank, serve), with the dequantised weights,
and its integrity digests cover them. Measure the accuracy it costs with
as2 eval on both files: the built-in model's cost is in the README.`,
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
