package main

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/serve"
	"github.com/as2/as2/trigger"
)

// addIndex loads the index file of one --index NAME=FILE value into srv,
// with as2 search's loader: the same checks, the same question encoder.
func addIndex(srv *serve.Server, spec string) error {
	name, file, ok := strings.Cut(spec, "=")
	if !ok || name == "" || file == "" {
		return fmt.Errorf("--index %q: want NAME=FILE (an index file from as2 index build)", spec)
	}
	x, err := openIndexFile(file, searchOptions{workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return err
	}
	if err := srv.AddIndex(name, serve.Index{Retriever: x.retriever, Texts: x.texts(), Description: x.desc}); err != nil {
		return fmt.Errorf("--index %s: %w", spec, err)
	}
	return nil
}

func newServeCmd() *cobra.Command {
	var (
		addr   string
		specs  []string
		chains []string
		calibs []string
		idxs   []string
		hybrid []string
		config string
		opts   = rank.DefaultOptions()
		limits = serve.DefaultLimits()
		run    = serve.DefaultRunOptions()
		def    string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve rankers and answer indexes over HTTP (rerank, answer-sentence selection, retrieval)",
		Long: `Serve rankers over HTTP. Each --ranker NAME=SPEC loads one ranker once: SPEC is
builtin (the built-in neural model, with its calibration: /v1/select says
whether the document has an answer), a rule-based ranker (` + rank.NamesHelp() + `)
or a model file from as2 train; each --cascade
NAME=SPEC a cascade (see as2 eval --cascade; a stage may be builtin). With
neither, as2 serves the built-in model as "builtin".
Requests name it in "model"; --default names the model of requests that name
none (without --default: the first name in sorted order).

Each --index NAME=FILE loads an index file written by as2 index build (its
question encoder is rebuilt from what the file records, as as2 search does).
POST /v1/retrieve {"index", "question", "k"} returns the k best answers of the
index (id, text, score, rank); with "rerank": NAME, one of the served rankers
reorders the "depth" best (default max(k, 100)): the cascade retrieve:depth →
ranker, each answer keeping its retrieval_score and retrieval_rank. Each
--hybrid NAME=FUSION:INDEX[*WEIGHT],INDEX... serves hybrid retrieval: the
fusion (rrf or relative) of the answer lists of --index indexes over one pool,
each list max(depth, 100) long, e.g. BM25's weighted 2 and a dual encoder's.

Routes: POST /v1/rerank {"model", "query", "documents", "top_n",
"return_documents"}; POST /v1/select {"model", "question", "document" or
"sentences", "top_n"}; POST /v1/retrieve {"index", "question", "k", "rerank",
"depth"}; GET /v1/models (rankers and indexes), /healthz, /readyz, /metrics
(Prometheus); GET / is a page to try the rankers in a browser. Field names
match exactly and bodies must be UTF-8; every error is JSON {"error": {"code",
"message"}}.

Limits: --max-documents, --max-text, --max-body and --max-tokens (413), and
--timeout (504, the scoring stops). At most --concurrent requests are served at
once, --queue more wait up to --queue-wait, the rest get 429 with Retry-After.

On SIGINT or SIGTERM /readyz fails at once, the server keeps serving for
--drain (responses ask clients to close their connections), then stops
accepting and finishes in-flight requests within --grace.`,
		Example: `  as2 serve
  curl -s localhost:8080/v1/select -d '{"question": "who wrote hamlet?", "document": "Hamlet is a tragedy. Shakespeare wrote it."}'
  as2 serve --ranker cosinet=m.as2 --ranker bm25=bm25 --addr 127.0.0.1:8080
  curl -s localhost:8080/v1/rerank -d '{"model": "cosinet", "query": "who wrote hamlet?", "documents": ["Hamlet is a tragedy.", "Shakespeare wrote it."]}'
  as2 index build --encoder bm25 --answers faq.txt --out faq.idx
  as2 serve --index faq=faq.idx
  curl -s localhost:8080/v1/retrieve -d '{"index": "faq", "question": "How do I reset my password?", "k": 3, "rerank": "builtin"}'
  as2 index build --encoder use-lite --answers faq.txt --out faq-use.idx
  as2 serve --index bm25=faq.idx --index use=faq-use.idx --hybrid faq="relative:bm25*2,use"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config != "" {
				cfg, err := serve.ReadConfig(config)
				if err != nil {
					return fmt.Errorf("--config: %w", err)
				}
				// The file's entries come first; flags add to them or, for
				// addr, limits and grace, override them when given.
				specs = append(serve.Pairs(cfg.Rankers), specs...)
				chains = append(serve.Pairs(cfg.Cascades), chains...)
				calibs = append(serve.Pairs(cfg.Calibrations), calibs...)
				idxs = append(serve.Pairs(cfg.Indexes), idxs...)
				hybrid = append(serve.Pairs(cfg.Hybrids), hybrid...)
				fs := cmd.Flags()
				if cfg.Addr != "" && !fs.Changed("addr") {
					addr = cfg.Addr
				}
				if cfg.Grace > 0 && !fs.Changed("grace") {
					run.Grace = cfg.Grace
				}
				if cfg.Drain > 0 && !fs.Changed("drain") {
					run.Drain = cfg.Drain
				}
				if cfg.Default != "" && !fs.Changed("default") {
					def = cfg.Default
				}
				for flag, set := range map[string]func(){
					"max-body":      func() { limits.MaxBodyBytes = cfg.Limits.MaxBody },
					"max-documents": func() { limits.MaxDocuments = cfg.Limits.MaxDocuments },
					"max-text":      func() { limits.MaxTextBytes = cfg.Limits.MaxText },
					"timeout":       func() { limits.Timeout = cfg.Limits.Timeout },
					"max-tokens":    func() { limits.MaxTokens = cfg.Limits.MaxTokens },
					"concurrent":    func() { limits.Concurrent = cfg.Limits.Concurrent },
					"queue":         func() { limits.Queue = cfg.Limits.Queue },
				} {
					if !fs.Changed(flag) && cfg.Limits.Set(flag) {
						set()
					}
				}
			}
			if len(specs) == 0 && len(chains) == 0 {
				specs = []string{builtin.Name + "=" + builtin.Name}
			}
			rankers := map[string]rank.Ranker{}
			// add builds the ranker of one NAME=SPEC flag value.
			add := func(flag, spec, want string, flags func(target string) rankerFlags) error {
				name, target, ok := strings.Cut(spec, "=")
				if !ok || name == "" || target == "" {
					return fmt.Errorf("%s %q: want %s", flag, spec, want)
				}
				if _, dup := rankers[name]; dup {
					return fmt.Errorf("%s %q: the name %s is given twice", flag, spec, name)
				}
				rf := flags(target)
				r, err := rf.build(nil)
				if err != nil {
					return fmt.Errorf("%s %s: %w", flag, spec, err)
				}
				rankers[name] = r
				return nil
			}
			for _, spec := range chains {
				if err := add("--cascade", spec, "NAME=STAGE:K,STAGE:K,...", func(chain string) rankerFlags {
					return rankerFlags{cascade: chain, opts: opts, idf: "pool"}
				}); err != nil {
					return err
				}
			}
			for _, spec := range specs {
				// A SPEC that is neither a rule-based ranker nor an existing
				// file is reported as a missing file, not as an unknown ranker.
				if name, target, ok := strings.Cut(spec, "="); ok && target != "" && target != builtin.Name && !rank.Known(target) {
					if _, err := os.Stat(strings.TrimPrefix(target, "file:")); err != nil {
						if specFile(target) != "" { // a path or a name with an extension: a file was meant
							return fmt.Errorf("--ranker %s: model file %s: file not found", spec, target)
						}
						return fmt.Errorf("--ranker %s: unknown ranker %q (%s, or rule-based: %s) and no model file %s: file not found", spec, target, builtin.Name, rank.NamesHelp(), target)
					}
					if !strings.HasPrefix(target, "file:") {
						spec = name + "=file:" + target
					}
				}
				if err := add("--ranker", spec, "NAME=SPEC (a rule-based ranker or a model file)", func(target string) rankerFlags {
					return specRanker(target, opts)
				}); err != nil {
					return err
				}
			}
			if limits.MaxBodyBytes < 1 || limits.MaxDocuments < 1 || limits.MaxTextBytes < 1 || limits.MaxTokens < 1 || limits.Concurrent < 1 || limits.Queue < 0 {
				return fmt.Errorf("--max-body, --max-documents, --max-text, --max-tokens and --concurrent must be positive, --queue not negative")
			}
			srv, err := serve.New(rankers, limits)
			if err != nil {
				return err
			}
			if def != "" {
				if err := srv.SetDefault(def); err != nil {
					return fmt.Errorf("--default: %w", err)
				}
			}
			// The built-in model brings its calibration; --calibration
			// may replace it.
			for _, spec := range specs {
				if name, target, _ := strings.Cut(spec, "="); target == builtin.Name {
					if err := srv.Calibrate(name, builtin.Calibration()); err != nil {
						return err
					}
				}
			}
			for _, spec := range calibs {
				name, file, ok := strings.Cut(spec, "=")
				if !ok {
					return fmt.Errorf("--calibration %q: want NAME=FILE (from as2 trigger --out)", spec)
				}
				c, err := trigger.LoadCalibration(file)
				if err != nil {
					return fmt.Errorf("--calibration %s: %w", spec, err)
				}
				if err := srv.Calibrate(name, c); err != nil {
					return fmt.Errorf("--calibration %s: %w", spec, err)
				}
			}
			for _, spec := range idxs {
				if err := addIndex(srv, spec); err != nil {
					return err
				}
			}
			for _, spec := range hybrid {
				name, fusion, ok := strings.Cut(spec, "=")
				if !ok || name == "" {
					return fmt.Errorf("--hybrid %s: want NAME=FUSION:INDEX[*WEIGHT],INDEX...", spec)
				}
				h, err := serve.ParseHybrid(fusion)
				if err == nil {
					err = srv.AddHybrid(name, h)
				}
				if err != nil {
					return fmt.Errorf("--hybrid %s: %w", spec, err)
				}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("--addr: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "as2 serving %d ranker(s) and %d index(es) on http://%s\n", len(rankers), len(idxs)+len(hybrid), ln.Addr())
			run.Log = cmd.ErrOrStderr()
			return srv.Run(cmd.Context(), ln, run)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&config, "config", "", "YAML configuration (addr, rankers, cascades, calibrations, indexes, limits, grace); flags add to it or override it")
	fs.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringArrayVar(&specs, "ranker", nil, "NAME=SPEC, repeatable: builtin (the built-in neural model, calibrated), a rule-based ranker or a model file (default builtin=builtin)")
	fs.StringArrayVar(&calibs, "calibration", nil, "NAME=FILE, repeatable: answer-triggering calibration (as2 trigger --out) for a ranker; /v1/select then says whether there is an answer")
	fs.StringArrayVar(&idxs, "index", nil, "NAME=FILE, repeatable: an index file (as2 index build) that POST /v1/retrieve searches")
	fs.StringArrayVar(&hybrid, "hybrid", nil, `NAME=FUSION:INDEX[*WEIGHT],INDEX..., repeatable: an index fusing --index indexes of one pool, e.g. faq="relative:faq-bm25*2,faq-use" (fusion rrf or relative)`)
	fs.StringArrayVar(&chains, "cascade", nil, `NAME=SPEC, repeatable: a cascade of rankers, e.g. fast="bm25:100,cosinet=m.as2:10"`)
	fs.Int64Var(&limits.MaxBodyBytes, "max-body", limits.MaxBodyBytes, "largest request body, in bytes")
	fs.IntVar(&limits.MaxDocuments, "max-documents", limits.MaxDocuments, "most documents or sentences per request")
	fs.IntVar(&limits.MaxTextBytes, "max-text", limits.MaxTextBytes, "longest query, document or sentence, in bytes")
	fs.DurationVar(&limits.Timeout, "timeout", limits.Timeout, "per-request time limit")
	fs.IntVar(&limits.MaxTokens, "max-tokens", limits.MaxTokens, "most tokens in all of a request's documents or sentences (memory grows with them)")
	fs.IntVar(&limits.Concurrent, "concurrent", limits.Concurrent, "requests served at once (each scores on every core)")
	fs.IntVar(&limits.Queue, "queue", limits.Queue, "requests that may wait for a slot; more get 429 with Retry-After")
	fs.DurationVar(&limits.QueueWait, "queue-wait", limits.QueueWait, "longest wait in the queue before 429")
	fs.StringVar(&def, "default", "", "the model of requests that name none (default: the first name in sorted order)")
	fs.DurationVar(&run.Drain, "drain", run.Drain, "on SIGTERM, how long to keep serving with /readyz failing before no longer accepting connections")
	fs.DurationVar(&run.Grace, "grace", run.Grace, "time allowed for in-flight requests once no longer accepting")
	fs.DurationVar(&run.ReadHeaderTimeout, "read-header-timeout", run.ReadHeaderTimeout, "time allowed to read a request's header")
	fs.DurationVar(&run.ReadTimeout, "read-timeout", run.ReadTimeout, "time allowed to read a request's header and body; a slower body is cut off")
	fs.DurationVar(&run.IdleTimeout, "idle-timeout", run.IdleTimeout, "how long an idle keep-alive connection stays open")
	return cmd
}
