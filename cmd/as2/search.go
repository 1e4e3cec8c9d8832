package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/as2/as2"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
)

func newIndexCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "index", Short: "Answer indexes: build one from a pool of answers, search it, evaluate a retriever"}
	cmd.AddCommand(newIndexBuildCmd(), newIndexSearchCmd(), newIndexEvalCmd(false))
	return cmd
}

type indexBuild struct {
	flags          indexFlags
	answers, out   string
	weaviate       weaviate.Options
	replace, quiet bool
}

func newIndexBuildCmd() *cobra.Command {
	var c indexBuild
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Encode a file of answers once into an index file for as2 index search",
		Long: `Encode every answer of --answers once with --retriever and write the index, with
what as2 index search needs, to --out; vector retrievers index by --kind. See
docs/retrieval.md.`,
		Example: `  as2 index build --retriever use-lite --kind hnsw --answers reqa-test.jsonl --out reqa-test-use.idx`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	c.flags.add(f, "")
	f.Lookup("kind").Usage = "index kind of sentence vectors: flat (exact), binary (sign codes, then --rescore by floats), hnsw (graph, approximate) or weaviate (stored in a Weaviate server); bm25 and HAS retrievers have their own"
	f.StringVar(&c.flags.Retriever, "encoder", "", "the retriever")
	f.MarkDeprecated("encoder", "use --retriever")
	f.StringVar(&c.flags.Retriever, "model", "", "the retriever's model file")
	f.MarkDeprecated("model", "use --retriever")
	c.flags.addDeprecatedKind(f)
	f.StringVar(&c.answers, "answers", "", "answers: a ReQA pool (as2 data reqa), or text with one answer per line (ID<TAB>TEXT, or the line number is the id)")
	f.StringVar(&c.out, "out", "", "index file to write (- for standard output)")
	f.StringVar(&c.weaviate.URL, "weaviate-url", weaviate.DefaultURL, "weaviate index: the server (scripts/weaviate.sh start runs one here)")
	f.StringVar(&c.weaviate.Class, "weaviate-class", weaviate.DefaultClass, "weaviate index: the class (collection) that holds the answers")
	f.BoolVar(&c.replace, "weaviate-replace", false, "weaviate index: delete the class's objects first if it has any")
	f.IntVar(&c.flags.Workers, "workers", runtime.GOMAXPROCS(0), "sentence-encoding goroutines (use-lite), and hnsw insertions at once")
	f.BoolVar(&c.quiet, "quiet", false, "no progress bar and no summary")
	return cmd
}

func (c *indexBuild) run(ctx context.Context, stdout, stderr io.Writer) error {
	switch r, e, m := c.flags.changed("retriever"), c.flags.changed("encoder"), c.flags.changed("model"); {
	case r && e || r && m || e && m:
		return fmt.Errorf("give one of --retriever, --encoder and --model (the old names of --retriever)")
	case c.flags.Retriever == "":
		return fmt.Errorf("--retriever is required: bm25, use-lite[:PATH] or a model file")
	case c.answers == "":
		return fmt.Errorf("--answers is required")
	case c.out == "":
		return fmt.Errorf("--out is required")
	}
	_, opts, err := c.flags.options()
	if err != nil {
		return err
	}
	ids, texts, err := as2.ReadAnswersFile(c.answers)
	if err != nil {
		return indexFileError("--answers", err)
	}
	start := time.Now()
	progress, end := as2.IndexBars(c.flags.Kind, len(texts), progressBars(stderr, c.quiet))
	x, err := as2.BuildIndex(ctx, ids, texts, append(opts, progress, as2.WithWeaviate(c.weaviate, c.replace))...)
	end()
	if err != nil {
		return weaviateHint(retrieverError("--retriever", err))
	}
	if err := writeAtomic(c.out, stdout, x.Write); err != nil {
		return fmt.Errorf("--out %s: %w", c.out, err)
	}
	if !c.quiet {
		fmt.Fprintf(stderr, "wrote %s: %d answers, %s; %.1fs\n", c.out, x.Len(), x.Description(), time.Since(start).Seconds())
	}
	return nil
}

type search struct {
	as2.SearchSettings
	index, question, questions, retrieverFile string
	workers                                   int
}

func newIndexSearchCmd() *cobra.Command {
	var c search
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Find the best answers for questions in an index file (as2 index build)",
		Long: `Print the --top answers (rank, score, id, text) of an index file (as2 index build)
for --question, or each line of --questions (- for standard input). See
docs/retrieval.md.`,
		Example: `  as2 index search --index faq.idx --question "How do I reset my password?"`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.index, "index", "", "index file (as2 index build)")
	f.StringVar(&c.question, "question", "", "the question")
	f.StringVar(&c.questions, "questions", "", "file of questions, one per line (- for standard input)")
	f.IntVar(&c.Top, "top", 10, "answers per question")
	f.StringVar(&c.Format, "format", "tsv", "output: tsv or json (one object per question)")
	// 0 keeps the index's own value, which is what leaving them out means.
	f.IntVar(&c.EfSearch, "ef-search", 0, "hnsw index: candidates a search keeps (default: the index's own)")
	f.IntVar(&c.Rescore, "rescore", 0, "binary index: nearest codes rescored (default: the index's own)")
	f.StringVar(&c.retrieverFile, "retriever-file", "", "the retriever's model file, if no longer where the index records it (its SHA-256 must match)")
	f.IntVar(&c.workers, "workers", runtime.GOMAXPROCS(0), "sentence-encoding goroutines (use-lite)")
	return cmd
}

// newSearchCmd is as2 search, the old name of as2 index search.
func newSearchCmd() *cobra.Command {
	cmd := newIndexSearchCmd()
	cmd.Deprecated, cmd.Hidden = "use as2 index search", true
	f := cmd.Flags()
	f.AddFlag(&pflag.Flag{Name: "encoder-path", Usage: "the model file, moved", Value: f.Lookup("retriever-file").Value})
	f.MarkDeprecated("encoder-path", "use --retriever-file")
	return cmd
}

func (c *search) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case c.index == "":
		return fmt.Errorf("--index is required (build one with as2 index build)")
	case (c.question == "") == (c.questions == ""):
		return fmt.Errorf("give --question or --questions, one of them")
	}
	if err := c.Check(); err != nil {
		return fmt.Errorf("--%w", err)
	}
	x, err := as2.OpenIndex(ctx, c.index, as2.WithSearch(index.SearchOptions{EfSearch: c.EfSearch, Rescore: c.Rescore}),
		as2.WithRetrieverFile(c.retrieverFile), as2.WithIndexWorkers(c.workers))
	if err != nil {
		return indexFileError("--index", err)
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	noHits := func(q string) { fmt.Fprintf(stderr, "as2: no answer found for %q\n", q) }
	if c.questions == "" {
		return x.SearchQuestions(ctx, out, c.SearchSettings, c.question, nil, "", noHits)
	}
	in, name := stdin, "standard input"
	if c.questions != "-" {
		f, err := os.Open(c.questions)
		if err != nil {
			return notFound("--questions", c.questions, err)
		}
		defer f.Close()
		in, name = f, c.questions
	}
	if err := x.SearchQuestions(ctx, out, c.SearchSettings, "", in, name, noHits); err != nil {
		return fmt.Errorf("--questions %w", err)
	}
	return nil
}
