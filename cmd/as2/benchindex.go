package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/bench"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
)

// benchIndex's flags: the index speed table of issue 12.
type benchIndex struct {
	vectors, questions, format string
	queries                    int
	opts                       bench.IndexOptions
}

func newBenchIndexCmd() *cobra.Command {
	c := &benchIndex{opts: bench.IndexOptions{Weaviate: &weaviate.Options{}}}
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build time, memory and query latency of the answer indexes on a pool of up to millions of vectors",
		Long: `Measure each --kind on --vectors's sentence vectors padded out to --size: build
time, memory, search latency and recall@k against flat (docs/evaluation.md#speed).`,
		Example: `  as2 bench index --vectors sentences-use.idx --size 1000000`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	o := &c.opts
	f.StringVar(&c.vectors, "vectors", "", "flat index file of real sentence vectors (as2 index build --kind flat)")
	f.IntVar(&o.Size, "size", 1_000_000, "vectors in the pool: the file's, padded out by the seeded procedure (or its first --size)")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the padding and of the questions drawn")
	f.Float64Var(&o.Noise, "noise", 0.01, "padding: standard deviation of the Gaussian noise added to each component")
	f.IntVar(&c.queries, "queries", 1000, "questions searched")
	f.StringVar(&c.questions, "questions", "", "file of questions, one per line (default: ReQA SQuAD's questions)")
	f.IntVar(&o.K, "k", 10, "answers a search returns")
	kinds := []string{index.FlatKind, index.BinaryKind, index.HNSWKind}
	f.StringSliceVar(&o.Kinds, "kind", kinds, "index kinds measured: "+strings.Join(bench.IndexKinds, ", "))
	// --index was this list's name until index files took it.
	f.StringSliceVar(&o.Kinds, "index", kinds, "index kinds measured")
	f.MarkDeprecated("index", "use --kind; --index names an index file")
	f.IntSliceVar(&o.Rescore, "rescore", []int{index.DefaultRescore}, "binary: nearest codes rescored by their floats (a list: one row each)")
	f.IntVar(&o.HNSW.M, "m", index.DefaultM, "hnsw: neighbours per node and layer")
	f.IntVar(&o.HNSW.EfConstruction, "ef-construction", index.DefaultEfConstruction, "hnsw: candidates an insertion considers")
	f.IntVar(&o.HNSW.Workers, "workers", runtime.GOMAXPROCS(0), "hnsw: insertions run at once")
	f.IntSliceVar(&o.EfSearch, "ef-search", []int{index.DefaultEfSearch}, "hnsw and weaviate: candidates a search keeps (a list: one row each)")
	f.StringVar(&o.Weaviate.URL, "weaviate-url", weaviate.DefaultURL, "weaviate: the server")
	f.StringVar(&o.Weaviate.Class, "weaviate-class", "As2Bench", "weaviate: the class the benchmark fills")
	f.BoolVar(&o.WeaviateReplace, "weaviate-replace", false, "weaviate: delete the class's objects first if it has any")
	f.BoolVar(&o.KeepRemote, "keep-remote", false, "weaviate: keep the class at the end")
	formatFlag(cmd, &c.format)
	return cmd
}

func (c *benchIndex) run(ctx context.Context, stdout, stderr io.Writer) error {
	switch {
	case c.vectors == "":
		return fmt.Errorf("--vectors is required: a flat index file (as2 index build --kind flat)")
	case c.queries < 1:
		return fmt.Errorf("--queries %d: must be at least 1", c.queries)
	}
	if err := c.opts.Check("--"); err != nil {
		return err
	}
	x, err := as2.OpenIndex(ctx, c.vectors, as2.WithIndexWorkers(runtime.GOMAXPROCS(0)))
	if err != nil {
		return indexFileError("--vectors", err)
	}
	flat, enc, err := x.FlatVectors()
	if err != nil {
		return fmt.Errorf("--vectors %s %w", c.vectors, err)
	}
	texts, source, err := bench.Questions(c.questions, c.queries, c.opts.Seed)
	switch {
	case err == nil:
	case c.questions == "":
		return fmt.Errorf("%w; or give --questions FILE", err)
	case errors.Is(err, fs.ErrNotExist):
		return notFound("--questions", c.questions, err)
	default:
		return fmt.Errorf("--questions: %w", err)
	}
	c.opts.Log = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	rep, err := bench.Indexes(ctx, flat, x.IDs(), enc, x.Description(), texts, source, c.opts)
	if err != nil {
		return err
	}
	return rep.Write(stdout, c.format)
}
