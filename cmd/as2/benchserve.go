package main

import (
	"github.com/spf13/cobra"

	"github.com/as2/as2/bench"
)

func newBenchServeCmd() *cobra.Command {
	var (
		data   datasetFlags
		ranker rankerFlags
		o      bench.ServeOptions
		format string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Latency and throughput of POST /v1/rerank under concurrent load on loopback",
		Long: `Send the service, on a loopback port, --requests rerank requests of --documents
candidates from each number of --clients: latency, requests per second, 429s
and peak RSS. See docs/evaluation.md#speed.`,
		Example: `  as2 bench serve --model m.as2 --dataset wikiqa --documents 100 --clients 1,2,4,8`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Check("--"); err != nil {
				return err
			}
			if err := checkFormat(format); err != nil {
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
	formatFlag(fs, &format)
	fs.IntVar(&o.DocTokens, "doc-tokens", 0, "pad or cut every document to this many tokens (0: as the dataset has them)")
	return cmd
}
