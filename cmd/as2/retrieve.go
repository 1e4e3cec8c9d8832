package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/rank"
)

func newDataReQACmd() *cobra.Command {
	var path, half, out string
	cmd := &cobra.Command{
		Use:   "reqa",
		Short: "Build the ReQA SQuAD answer-retrieval pool from SQuAD v1.1 dev",
		Long: `Build ReQA SQuAD (Ahmad et al. 2019) from SQuAD v1.1 dev, or its article-disjoint
--half train or test, as as2's ReQA JSONL for as2 index eval (docs/retrieval.md).`,
		Example: `  as2 data reqa --half test --out reqa-squad-test.jsonl`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			pool, err := reqa.Load(path, half)
			if err != nil {
				return err
			}
			if err := writeFlagFile(cmd, "--out", out, pool.Write); err != nil {
				return err
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

// newRetrieveCmd is as2 retrieve, whose eval is now as2 index eval.
func newRetrieveCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "retrieve", Short: "Answer retrieval (now as2 index eval)", Deprecated: "use as2 index eval", Hidden: true}
	eval := newIndexEvalCmd(true)
	eval.Deprecated = "use as2 index eval"
	cmd.AddCommand(eval)
	return cmd
}

type retrieveEval struct {
	as2.RetrievalRun
	flags  indexFlags
	format string
}

// newIndexEvalCmd is as2 index eval; oldNames adds --index (for --kind).
func newIndexEvalCmd(oldNames bool) *cobra.Command {
	var c retrieveEval
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate a retriever on a ReQA pool: MRR, R@1/5/10 and the ENDX paper's Eq. 15 recall",
		Long: `Retrieve the top --depth answers of a ReQA pool (as2 data reqa) for each question
with --retriever (--fuse: hybrid; --rerank: then rank) and print ReQA's MRR and
R@1/5/10 and the ENDX paper's Eq. 15 recall. See docs/retrieval.md.`,
		Example: `  as2 index eval --pool reqa-squad-test.jsonl --retriever use-lite --depth 20 --rerank builtin`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.Pool, "pool", "", "ReQA pool file (as2 data reqa)")
	c.flags.add(f, "bm25")
	if oldNames {
		c.flags.addDeprecatedKind(f)
	}
	f.StringVar(&c.Load, "load-index", "", "read the index (a stand-alone one, from --save-index) from this file instead of building it")
	f.StringVar(&c.Save, "save-index", "", "write the built index (stand-alone: the index alone, no answers' texts) to this file")
	f.IntVar(&c.Depth, "depth", 100, "answers retrieved per question (and reranked, with --rerank)")
	f.StringVar(&c.Fuse, "fuse", "", "hybrid retrieval: a second retriever ("+as2.RetrieverHelp+"), merged with --retriever's list as --fusion says")
	f.Float64Var(&c.FuseWeight, "fuse-weight", 1, "weight of the --fuse list in the fusion (--retriever's: 1)")
	f.StringVar(&c.Fusion, "fusion", index.FusionRRF, "how --fuse merges the lists: rrf (reciprocal rank fusion) or relative (min-max scaled scores)")
	f.StringVar(&c.Rerank, "rerank", "", "ranker of the retrieved answers: "+builtin.Name+", a rule-based ranker ("+rank.NamesHelp()+") or a model file")
	f.Float64Var(&c.RetrievalWeight, "retrieval-weight", 0, "with --rerank: order by the ranker's score plus this times the retrieval score, each min-max scaled over the --depth answers (0: the ranker's order alone)")
	f.IntVar(&c.flags.Workers, "workers", runtime.GOMAXPROCS(0), "questions (and sentence-encoding goroutines, and hnsw insertions) at once")
	formatFlag(cmd, &c.format)
	return cmd
}

func (c *retrieveEval) run(ctx context.Context, stdout, stderr io.Writer) error {
	if c.Pool == "" {
		return fmt.Errorf("--pool is required (build one with as2 data reqa)")
	}
	c.Index, c.Given, c.Log, c.Progress = c.flags.IndexSettings, c.flags.given, stderr, progressBars(stderr, false)
	c.OpenReranker = func(spec string) (rank.Ranker, error) { return openRanker("--rerank", spec) }
	report, err := c.Run(ctx)
	var ce *as2.ConfigError
	switch {
	case !errors.As(err, &ce):
		if err != nil {
			return err
		}
		return report.Write(stdout, c.format)
	case ce.Setting == "load-index":
		return indexFileError("--load-index", ce.Err)
	case errors.As(ce.Err, new(*as2.RetrieverError)):
		return retrieverError("--"+ce.Setting, ce.Err)
	}
	return fmt.Errorf("--%w", err)
}

// indexFlags say how answers are encoded (--retriever) and indexed (--kind).
type indexFlags struct {
	as2.IndexSettings
	f *pflag.FlagSet
}

// add defines the flags on f; retriever is --retriever's default.
func (s *indexFlags) add(f *pflag.FlagSet, retriever string) {
	s.f = f
	s.BM25 = rank.DefaultOptions()
	f.StringVar(&s.Retriever, "retriever", retriever, as2.RetrieverHelp)
	f.StringVar(&s.Kind, "kind", index.FlatKind, "index kind of sentence vectors: flat (exact), binary (sign codes, then --rescore by floats) or hnsw (graph, approximate); bm25 and HAS retrievers have their own")
	f.IntVar(&s.Rescore, "rescore", index.DefaultRescore, "binary index: nearest codes rescored by their float vectors")
	f.IntVar(&s.HNSW.M, "m", index.DefaultM, "hnsw index: neighbours per node and layer (2×M on the bottom layer)")
	f.IntVar(&s.HNSW.EfConstruction, "ef-construction", index.DefaultEfConstruction, "hnsw index: candidates an insertion considers (build time for graph quality)")
	f.IntVar(&s.HNSW.EfSearch, "ef-search", index.DefaultEfSearch, "hnsw index: candidates a search keeps (speed for recall)")
	f.BoolVar(&s.BM25.Stopwords, "stopwords", false, "bm25: drop English stopwords")
	f.BoolVar(&s.BM25.Stem, "stem", false, "bm25: match words by their Snowball English stems")
	f.Float64Var(&s.BM25.K1, "k1", rank.DefaultOptions().K1, "bm25: term-frequency saturation")
	f.Float64Var(&s.BM25.B, "b", rank.DefaultOptions().B, "bm25: length normalisation")
}

// addDeprecatedKind defines --index, the old name of --kind.
func (s *indexFlags) addDeprecatedKind(f *pflag.FlagSet) {
	f.StringVar(&s.Kind, "index", index.FlatKind, "index kind")
	f.MarkDeprecated("index", "use --kind; --index names an index file")
}

func (s *indexFlags) changed(names ...string) bool {
	for _, n := range names {
		if s.f.Lookup(n) != nil && s.f.Changed(n) {
			return true
		}
	}
	return false
}

// given reports whether a setting's flag was given (--index counts as --kind).
func (s *indexFlags) given(setting string) bool {
	return s.changed(setting) || setting == "kind" && s.changed("index")
}

// options are the front door's options for the flags given.
func (s *indexFlags) options() (index.Options, []as2.IndexOption, error) {
	o, opts, err := s.Options(s.given)
	return o, opts, configFlag(err)
}

// retrieverError names the flag of a retriever that could not be opened.
func retrieverError(flag string, err error) error {
	var re *as2.RetrieverError
	if errors.As(err, &re) {
		return fmt.Errorf("%s %q: %w", flag, re.Spec, re.Err)
	}
	return err
}

// indexFileError names the flag of the file err's message starts with.
func indexFileError(flag string, err error) error {
	if errors.Is(err, fs.ErrNotExist) && errors.As(err, new(*fs.PathError)) {
		return flagError(flag, "", err)
	}
	return fmt.Errorf("%s %w", flag, err)
}

// weaviateHint adds the flags that resolve a full class to err.
func weaviateHint(err error) error {
	if errors.Is(err, weaviate.ErrNotEmpty) {
		return fmt.Errorf("%w (--weaviate-replace deletes them, or name another --weaviate-class)", err)
	}
	return err
}
