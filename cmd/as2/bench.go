package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/bench"
	"github.com/as2/as2/evaluation/tradeoff"
	"github.com/as2/as2/rank"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure training and inference throughput on this machine",
		Long:  "Measure training, scoring, cascades, the service, HAS and the indexes here (docs/evaluation.md#speed).",
	}
	cmd.AddCommand(newBenchTrainCmd(), newBenchInferCmd(), newBenchCascadeCmd(), newBenchServeCmd(), newBenchHASCmd(), newBenchIndexCmd())
	return cmd
}

// formatFlag registers --format, a report's format (bench.Formats), and
// refuses a bad one before a long run rather than after.
func formatFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVar(format, "format", "table", "output: table or json")
	cmd.PreRunE = func(*cobra.Command, []string) error {
		if err := bench.CheckFormat(*format); err != nil {
			return fmt.Errorf("--%w", err)
		}
		return nil
	}
}

func newBenchTrainCmd() *cobra.Command {
	t := &trainCmd{}
	var format string
	cmd := &cobra.Command{
		Use:     "train",
		Short:   "Time a training run (default: Cosinet_list+BiRNN, WikiQA, 3 epochs)",
		Long:    `Time a training run, with as2 train's flags (see docs/evaluation.md#speed).`,
		Example: "  as2 bench train",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t.quiet = true
			m, sum, err := t.fit(cmd)
			if err != nil {
				return err
			}
			res := bench.TrainResult(sum.Pairs, sum.Params, sum.Wall)
			res.Settings = fmt.Sprintf("%s, %s %s, %d epochs, batch %d, seed %d", t.describe(m), t.data.name, t.trainSplit, t.opts.Epochs, t.opts.Batch, t.opts.Seed)
			return res.Write(cmd.OutOrStdout(), format)
		},
	}
	t.register(cmd)
	fs := cmd.Flags()
	fs.Lookup("listwise").DefValue, t.Listwise = "true", true
	fs.Lookup("dev-split").DefValue, t.dev.DevSplit = "none", "none"
	fs.Lookup("dataset").DefValue, t.data.name = "wikiqa", "wikiqa"
	fs.Lookup("out").Usage = "not used by bench"
	formatFlag(cmd, &format)
	return cmd
}

func newBenchInferCmd() *cobra.Command {
	var data datasetFlags
	var spec, embedFile, format string
	var repeat, concurrency int
	var int8 bool
	cmd := &cobra.Command{
		Use:     "infer",
		Short:   "Time scoring every candidate of a split (default: Cosinet+BiRNN on WikiQA test)",
		Long:    "Time --concurrency clients scoring every question --repeat times (docs/evaluation.md#speed).",
		Example: "  as2 bench infer --model builtin --concurrency 2",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := bench.CheckInfer("--", repeat, concurrency, format); err != nil {
				return err
			}
			_, qs, _, err := data.load("", "")
			if err != nil {
				return err
			}
			var r rank.Ranker
			label := spec
			if spec != "" {
				var opts []as2.RankerOption
				if cmd.Flags().Changed("int8") {
					opts = append(opts, as2.WithInt8(int8))
				}
				r, err = openRanker("--model", spec, opts...)
			} else {
				label = bench.UntrainedLabel
				if r, err = bench.UntrainedCosinet(embedFile); err != nil {
					err = fmt.Errorf("--embeddings: %w", err)
				}
			}
			if err != nil {
				return err
			}
			res, err := bench.Infer(cmd.Context(), r, qs, repeat, concurrency)
			if err != nil {
				return err
			}
			res.Settings = fmt.Sprintf("%s, %s subset %s, %d questions x %d, %d concurrent clients scoring one question at a time", label, data.describe(), data.subset, len(qs), repeat, concurrency)
			return res.Write(cmd.OutOrStdout(), format)
		},
	}
	fs := cmd.Flags()
	data.register(fs, "all")
	fs.Lookup("dataset").DefValue, data.name = "wikiqa", "wikiqa"
	fs.StringVar(&spec, "model", "", "ranker to time: builtin, a rule-based ranker, a model file or cascade:STAGES (default: an untrained Cosinet+BiRNN)")
	fs.StringVar(&embedFile, "embeddings", "", "word vectors for the untrained model (default: as for as2 train)")
	fs.IntVar(&repeat, "repeat", 3, "passes over the questions")
	fs.BoolVar(&int8, "int8", false, int8FlagHelp)
	fs.IntVar(&concurrency, "concurrency", 1, "clients scoring questions at the same time (the number of cores measures throughput)")
	formatFlag(cmd, &format)
	return cmd
}

// twoStages checks a two-stage cascade sweep's flags and opens its rankers.
func twoStages(first, last, ks string) (fr, lr rank.Ranker, kList []int, err error) {
	if last == "" {
		return nil, nil, nil, fmt.Errorf("--last is required: a model file or rule-based ranker")
	}
	if kList, err = tradeoff.ParseKs(ks); err != nil {
		return nil, nil, nil, fmt.Errorf("--k %w", err)
	}
	if fr, err = openRanker("--first", first); err != nil {
		return nil, nil, nil, err
	}
	if lr, err = openRanker("--last", last); err != nil {
		return nil, nil, nil, err
	}
	return fr, lr, kList, nil
}

func newBenchCascadeCmd() *cobra.Command {
	var data datasetFlags
	var first, last, ks, plotPrefix, title, format string
	cmd := &cobra.Command{
		Use:     "cascade",
		Short:   "Accuracy and latency of two-stage cascades as the number passed on (k) varies",
		Long:    "--first passes its best k to --last, for each k of --k: P@1, MAP and latency (docs/evaluation.md#speed).",
		Example: "  as2 bench cascade --dataset jsonl --path wikiqa-test++.jsonl --first bm25 --last m.as2 --plot cascade",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fr, lr, kList, err := twoStages(first, last, ks)
			if err != nil {
				return err
			}
			_, qs, _, err := data.load("", "")
			if err != nil {
				return err
			}
			rep, err := bench.Cascade(cmd.Context(), fr, lr, first, last, data.describe(), kList, qs)
			if err != nil {
				return err
			}
			if plotPrefix != "" {
				if title == "" {
					title = fmt.Sprintf("%s → %s on %s (%d questions)", first, filepath.Base(last), data.name, len(qs))
				}
				if err := tradeoff.Plot(rep.Points, title, plotPrefix+".png", plotPrefix+".svg"); err != nil {
					return fmt.Errorf("--plot: %w", err)
				}
			}
			return rep.Write(cmd.OutOrStdout(), format)
		},
	}
	fs := cmd.Flags()
	data.register(fs, "answered")
	fs.StringVar(&first, "first", "bm25", "first stage: the built-in model, a rule-based ranker or a model file")
	fs.StringVar(&last, "last", "", "last stage: the built-in model, a model file or a rule-based ranker (required)")
	fs.StringVar(&ks, "k", "1,5,10,25,50,100", "candidates the first stage passes on, comma-separated")
	fs.StringVar(&plotPrefix, "plot", "", "write the trade-off figure to PREFIX.png and PREFIX.svg")
	fs.StringVar(&title, "title", "", "figure title")
	formatFlag(cmd, &format)
	return cmd
}

func newBenchServeCmd() *cobra.Command {
	var data datasetFlags
	var ranker rankerFlags
	var o bench.ServeOptions
	var format string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Latency and throughput of POST /v1/rerank under concurrent load on loopback",
		Long: `Time --requests rerank requests of --documents candidates from each number of
--clients on loopback: latency, requests/s, 429s, peak RSS (docs/evaluation.md#speed).`,
		Example: `  as2 bench serve --model m.as2 --dataset wikiqa --documents 100 --clients 1,2,4,8`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Check("--"); err != nil {
				return err
			}
			all, _, _, err := data.load("", "")
			if err != nil {
				return err
			}
			r, err := ranker.build(all)
			if err != nil {
				return err
			}
			rep, err := bench.Serve(cmd.Context(), r, ranker.label(), all, o)
			if err != nil {
				return err
			}
			return rep.Write(cmd.OutOrStdout(), format)
		},
	}
	fs := cmd.Flags()
	data.register(fs, "all")
	fs.Lookup("dataset").DefValue, data.name = "wikiqa", "wikiqa"
	ranker.register(fs)
	fs.IntVar(&o.Documents, "documents", 100, "candidates per request")
	fs.IntVar(&o.Requests, "requests", 300, "requests per client count")
	fs.IntSliceVar(&o.Clients, "clients", []int{1, 2, 4, 8}, "concurrent clients, comma-separated")
	formatFlag(cmd, &format)
	fs.IntVar(&o.DocTokens, "doc-tokens", 0, "pad or cut every document to this many tokens (0: as the dataset has them)")
	return cmd
}
