package main

import (
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "as2",
		Short: "Answer sentence selection: rank candidate sentences so that an answer comes first",
		Long: `as2 ranks the candidate sentences of a question (the sentences of a document
in their order, or the hits of a search engine) so that a sentence that answers
the question comes first. It reads the public AS2 benchmarks (WikiQA, TrecQA,
SQuAD-sent) and its own JSONL/TSV formats, evaluates rankers with trec_eval's
exact definitions, and ranks from the command line.

Benchmarks are looked up under $AS2_DATA (default ../shared/data) when --path
is not given.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.AddCommand(newEvalCmd(), newRankCmd(), newDataCmd(), newTrainCmd(), newEmbeddingsCmd(), newBenchCmd(), newServeCmd(), newTriggerCmd(), newTuneCmd())
	return root
}
