package main

import (
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/rank"
)

func newServeCmd() *cobra.Command {
	c := as2.DefaultServerConfig()
	var config string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve rankers and answer indexes over HTTP (rerank, answer-sentence selection, retrieval)",
		Long: `Serve rankers and answer indexes over HTTP. Each --ranker NAME=SPEC loads a
ranker once: builtin (calibrated: /v1/select says whether there is an answer),
a rule-based ranker (` + rank.NamesHelp() + `) or a file as --model reads it.
--cascade, --index (an index file from as2 index build, for /v1/retrieve) and
--hybrid add cascades and indexes. With no ranker or cascade, as2 serves the
built-in model as "builtin". On SIGINT or SIGTERM as2 drains (--drain, then
--grace) and exits 0.

docs/serving.md is the guide: every route and field, long documents, errors,
limits, shutdown, and the same server from Go (as2.NewServer).`,
		Example: `  as2 serve
  curl -s localhost:8080/v1/select -d '{"question": "who wrote hamlet?", "document": "Hamlet is a tragedy. Shakespeare wrote it."}'
  as2 serve --ranker cosinet=m.as2 --ranker bm25=bm25 --addr 127.0.0.1:8080
  curl -s localhost:8080/v1/rerank -d '{"model": "cosinet", "query": "who wrote hamlet?", "documents": ["Hamlet is a tragedy.", "Shakespeare wrote it."]}'
  as2 index build --retriever bm25 --answers faq.txt --out faq.idx
  as2 serve --index faq=faq.idx
  curl -s localhost:8080/v1/retrieve -d '{"index": "faq", "question": "How do I reset my password?", "k": 3, "rerank": "builtin"}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			if config != "" {
				// The file's entries come first; flags add to them or, for
				// addr, limits, drain and grace, override them when given.
				if err := c.MergeFile(config, fs.Changed); err != nil {
					return fmt.Errorf("--config: %w", err)
				}
			}
			srv, err := as2.NewServer(cmd.Context(), c)
			if err != nil {
				// Name the flag (or config key) at fault as a flag.
				var ce *as2.ConfigError
				if errors.As(err, &ce) {
					return fmt.Errorf("--%w", ce)
				}
				return err
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
