package main

import (
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
)

func newServeCmd() *cobra.Command {
	c := as2.DefaultServerConfig()
	var config string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve rankers and answer indexes over HTTP (rerank, answer-sentence selection, retrieval)",
		Long: `Serve rankers (--ranker, --cascade; default the built-in model as "builtin") and
answer indexes (--index, --hybrid) over HTTP; on SIGINT or SIGTERM drain (--drain,
--grace) and exit 0. docs/serving.md is the guide (and as2.NewServer, from Go).`,
		Example: `  as2 serve --ranker cosinet=m.as2 --ranker bm25=bm25 --index faq=faq.idx
  curl -s localhost:8080/v1/select -d '{"question": "who wrote hamlet?", "document": "Hamlet is a tragedy. Shakespeare wrote it."}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			if fs.Changed("int8") {
				c.Int8, c.Float32 = int8Choice(fs, c.Int8)
			}
			if config != "" {
				// Flags add to the file's entries or override its settings.
				if err := c.MergeFile(config, fs.Changed); err != nil {
					return fmt.Errorf("--config: %w", err)
				}
			}
			srv, err := as2.NewServer(cmd.Context(), c)
			if err != nil {
				return configFlag(err)
			}
			ln, err := net.Listen("tcp", c.Addr)
			if err != nil {
				return fmt.Errorf("--addr: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "as2 serving %d ranker(s) and %d index(es) on http://%s\n", c.ServedRankers(), len(c.Indexes)+len(c.Hybrids), ln.Addr())
			c.Run.Log = cmd.ErrOrStderr()
			return srv.Run(cmd.Context(), ln, c.Run)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&config, "config", "", "YAML configuration (addr, rankers, cascades, calibrations, indexes, hybrids, default, limits, drain, grace); flags add to it or override it")
	fs.StringVar(&c.Addr, "addr", c.Addr, "address to listen on")
	fs.StringArrayVar(&c.Rankers, "ranker", nil, "NAME=SPEC, repeatable: builtin (the built-in neural model, calibrated), a rule-based ranker or a file as --model reads it (default builtin=builtin)")
	fs.StringArrayVar(&c.Calibrations, "calibration", nil, "NAME=FILE, repeatable: answer-triggering calibration (as2 trigger --out) for a ranker; /v1/select then says whether there is an answer")
	fs.StringArrayVar(&c.Indexes, "index", nil, "NAME=FILE, repeatable: an index file (as2 index build) that POST /v1/retrieve searches")
	fs.StringArrayVar(&c.Hybrids, "hybrid", nil, `NAME=FUSION:INDEX[*WEIGHT],INDEX..., repeatable: an index fusing --index indexes of one pool, e.g. faq="relative:faq-bm25*2,faq-use" (fusion rrf or relative)`)
	fs.StringArrayVar(&c.Cascades, "cascade", nil, `NAME=STAGES, repeatable: a cascade of rankers, e.g. fast="bm25:100,cosinet=m.as2:10"`)
	fs.Int64Var(&c.Limits.MaxBodyBytes, "max-body", c.Limits.MaxBodyBytes, "largest request body, in bytes")
	fs.IntVar(&c.Limits.MaxDocuments, "max-documents", c.Limits.MaxDocuments, "most documents or sentences per request")
	fs.IntVar(&c.Limits.MaxTextBytes, "max-text", c.Limits.MaxTextBytes, "longest query, document or sentence, in bytes")
	fs.DurationVar(&c.Limits.Timeout, "timeout", c.Limits.Timeout, "per-request time limit")
	fs.IntVar(&c.Limits.MaxTokens, "max-tokens", c.Limits.MaxTokens, "most tokens in all of a request's documents or sentences (memory grows with them)")
	fs.IntVar(&c.Limits.Concurrent, "concurrent", c.Limits.Concurrent, "requests served at once (each scores on every core)")
	fs.IntVar(&c.Limits.Queue, "queue", c.Limits.Queue, "requests that may wait for a slot; more get 429 with Retry-After")
	fs.DurationVar(&c.Limits.QueueWait, "queue-wait", c.Limits.QueueWait, "longest wait in the queue before 429")
	fs.StringVar(&c.Default, "default", "", "the model of requests that name none (default: the first name in sorted order)")
	fs.BoolVar(&c.Int8, "int8", false, int8FlagHelp)
	fs.DurationVar(&c.Run.Drain, "drain", c.Run.Drain, "on SIGTERM, how long to keep serving with /readyz failing before no longer accepting connections")
	fs.DurationVar(&c.Run.Grace, "grace", c.Run.Grace, "time allowed for in-flight requests once no longer accepting")
	fs.DurationVar(&c.Run.ReadHeaderTimeout, "read-header-timeout", c.Run.ReadHeaderTimeout, "time allowed to read a request's header")
	fs.DurationVar(&c.Run.ReadTimeout, "read-timeout", c.Run.ReadTimeout, "time allowed to read a request's header and body; a slower body is cut off")
	fs.DurationVar(&c.Run.IdleTimeout, "idle-timeout", c.Run.IdleTimeout, "how long an idle keep-alive connection stays open")
	return cmd
}
