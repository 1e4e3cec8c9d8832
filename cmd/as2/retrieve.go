package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/evaluation/retrieval"
	"github.com/as2/as2/index"
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/rank"
)

func newDataReQACmd() *cobra.Command {
	var path, half, out string
	cmd := &cobra.Command{
		Use:   "reqa",
		Short: "Build the ReQA SQuAD answer-retrieval pool from SQuAD v1.1 dev",
		Long: `Build ReQA SQuAD (Ahmad et al. 2019) from SQuAD v1.1 dev: every sentence of
every paragraph is an answer, each question's gold answer the sentence holding
its answer's start. --half train or test keeps one article-disjoint half.
Writes as2's ReQA JSONL, which as2 index eval --pool reads (docs/retrieval.md).`,
		Example: `  as2 data reqa --out reqa-squad.jsonl
  as2 data reqa --half test --out reqa-squad-test.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			pool, err := reqa.Load(path, half)
			if err != nil {
				return err
			}
			if err := writeAtomic(out, cmd.OutOrStdout(), pool.Write); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d answers and %d questions (%s) to %s\n", len(pool.Answers), len(pool.Questions), pool.Split, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "SQuAD file, or folder holding dev-v1.1.json.zip (default $AS2_DATA/squad)")
	cmd.Flags().StringVar(&half, "half", "", "article-disjoint half of dev: train or test (default: all of dev)")
	cmd.Flags().StringVar(&out, "out", "", "JSONL file to write (- for standard output)")
	return cmd
}

// newRetrieveCmd is as2 retrieve, whose eval is now as2 index eval; kept
// for one release with its old flag --index (for --kind).
func newRetrieveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:        "retrieve",
		Short:      "Answer retrieval (now as2 index eval)",
		Deprecated: "use as2 index eval",
		Hidden:     true,
	}
	eval := newIndexEvalCmd(true)
	eval.Deprecated = "use as2 index eval"
	cmd.AddCommand(eval)
	return cmd
}

type retrieveEval struct {
	flags                    indexFlags
	pool, load, save, format string
	as2.RetrievalEval
}

// newIndexEvalCmd is as2 index eval; oldNames adds --index, the old name
// of --kind, for as2 retrieve eval.
func newIndexEvalCmd(oldNames bool) *cobra.Command {
	var c retrieveEval
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate a retriever on a ReQA pool: MRR, R@1/5/10 and the ENDX paper's Eq. 15 recall",
		Long: `Retrieve the top --depth answers of a ReQA pool (as2 data reqa) for each of its
questions with --retriever (as as2 index build takes it) and print ReQA's MRR
and R@1/5/10, and the ENDX paper's Eq. 15 recall beside them; --rerank runs the
cascade retrieve:--depth → ranker of as2 serve's /v1/retrieve. docs/retrieval.md
is the guide.`,
		Example: `  as2 index eval --pool reqa-squad.jsonl
  as2 index eval --pool reqa-squad-test.jsonl --retriever use-lite --save-index use-lite-test.idx
  as2 index eval --pool reqa-squad-test.jsonl --retriever dual.as2 --kind hnsw
  as2 index eval --pool reqa-squad-test.jsonl --fuse use-lite
  as2 index eval --pool reqa-squad-test.jsonl --depth 20 --rerank builtin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.pool, "pool", "", "ReQA pool file (as2 data reqa)")
	c.flags.add(f, "bm25")
	if oldNames {
		c.flags.addDeprecatedKind(f)
	}
	f.StringVar(&c.load, "load-index", "", "read the index (a stand-alone one, from --save-index) from this file instead of building it")
	f.StringVar(&c.save, "save-index", "", "write the built index (stand-alone: the index alone, no answers' texts) to this file")
	f.IntVar(&c.Depth, "depth", 100, "answers retrieved per question (and reranked, with --rerank)")
	f.StringVar(&c.Fuse, "fuse", "", "hybrid retrieval: a second retriever ("+as2.RetrieverHelp+"), merged with --retriever's list as --fusion says")
	f.Float64Var(&c.FuseWeight, "fuse-weight", 1, "weight of the --fuse list in the fusion (--retriever's: 1)")
	f.StringVar(&c.Fusion, "fusion", index.FusionRRF, "how --fuse merges the lists: rrf (reciprocal rank fusion) or relative (min-max scaled scores)")
	f.StringVar(&c.Rerank, "rerank", "", "ranker of the retrieved answers: "+builtin.Name+", a rule-based ranker ("+rank.NamesHelp()+") or a model file")
	f.Float64Var(&c.RetrievalWeight, "retrieval-weight", 0, "with --rerank: order by the ranker's score plus this times the retrieval score, each min-max scaled over the --depth answers (0: the ranker's order alone)")
	f.IntVar(&c.flags.Workers, "workers", runtime.GOMAXPROCS(0), "questions (and sentence-encoding goroutines, and hnsw insertions) at once")
	formatFlag(f, &c.format)
	return cmd
}

func (c *retrieveEval) run(ctx context.Context, stdout, stderr io.Writer) error {
	if c.pool == "" {
		return fmt.Errorf("--pool is required (build one with as2 data reqa)")
	}
	if err := checkFormat(c.format); err != nil {
		return err
	}
	if err := c.Check(c.flags.Retriever, c.flags.Kind); err != nil {
		return fmt.Errorf("--%w", err)
	}
	o, opts, err := c.flags.options()
	if err != nil {
		return err
	}
	var rk rank.Ranker
	if c.Rerank != "" {
		if rk, err = openRanker("--rerank", c.Rerank); err != nil {
			return err
		}
	}
	pool, err := reqa.ReadFile(c.pool)
	if err != nil {
		return fmt.Errorf("--pool: %w", err)
	}
	start := time.Now()
	x, err := c.open(ctx, o, opts, pool, stderr)
	if err != nil {
		return err
	}
	var second *as2.Index
	if c.Fuse != "" {
		second, err = openPool(ctx, []as2.IndexOption{as2.WithRetriever(c.Fuse), as2.WithIndexOptions(index.Options{BM25: o.BM25}),
			as2.WithIndexWorkers(c.flags.Workers)}, c.Fuse != "bm25", pool, stderr)
		if err != nil {
			return retrieverError("--fuse", err)
		}
	}
	if x, err = c.Apply(x, second, rk); err != nil {
		return err
	}
	built := time.Since(start)
	p := newProgress(stderr, len(pool.Questions), "retrieving")
	report, err := x.EvaluateRetrieval(ctx, c.pool, pool, retrieval.Options{Depth: c.Depth, Workers: c.flags.Workers, Progress: p.step})
	p.done()
	if err != nil {
		return err
	}
	report.Build = built
	return report.Write(stdout, c.format)
}

// open returns the --retriever's index over pool's answers: read from
// --load-index, or built (and written to --save-index).
func (c *retrieveEval) open(ctx context.Context, o index.Options, opts []as2.IndexOption, pool *reqa.Pool, stderr io.Writer) (*as2.Index, error) {
	if c.load != "" {
		if c.flags.changed("kind", "index") {
			opts = append(opts, as2.WithKind(c.flags.Kind))
		}
		opts = append(opts, as2.WithBuiltFile(c.load), as2.WithSearch(index.SearchOptions{EfSearch: o.HNSW.EfSearch, Rescore: o.Rescore}))
		x, err := as2.BuildIndex(ctx, pool.IDs(), pool.Texts(), opts...)
		if errors.As(err, new(*as2.RetrieverError)) {
			return nil, retrieverError("--retriever", err)
		} else if err != nil {
			return nil, indexFileError("--load-index", err)
		}
		return x, nil
	}
	x, err := openPool(ctx, opts, c.flags.Retriever != "bm25", pool, stderr)
	if err != nil {
		return nil, retrieverError("--retriever", err)
	}
	if c.save != "" {
		if err := writeAtomic(c.save, stderr, x.WriteStored); err != nil {
			return nil, fmt.Errorf("--save-index: %w", err)
		}
		fmt.Fprintf(stderr, "wrote the index to %s\n", c.save)
	}
	return x, nil
}

// openPool encodes pool's answers into an index, with a progress bar and
// a timing line when slow is true (not bm25).
func openPool(ctx context.Context, opts []as2.IndexOption, slow bool, pool *reqa.Pool, stderr io.Writer) (*as2.Index, error) {
	var p *progress
	if slow {
		p = newProgress(stderr, len(pool.Answers), "encoding answers")
	}
	start := time.Now()
	x, err := as2.BuildIndex(ctx, pool.IDs(), pool.Texts(), append(opts, as2.WithIndexProgress(p.step, nil))...)
	p.done()
	if err != nil {
		return nil, err
	}
	if slow {
		fmt.Fprintf(stderr, "encoded and indexed %d answers in %.0fs\n", x.Len(), time.Since(start).Seconds())
	}
	return x, nil
}
