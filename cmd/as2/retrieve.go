package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset/catalog"
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
		Long: `Build ReQA SQuAD (Ahmad et al. 2019), the pool of the ENDX paper's answer
retrieval experiments: every sentence of every paragraph of SQuAD v1.1 dev
(as2's sentence splitter), deduplicated by (sentence, paragraph), and the
questions with their gold sentences (the one holding an answer's start).
--half train or test builds the pool of one article-disjoint half only.
Writes as2's ReQA JSONL (see package dataset/reqa), which
"as2 retrieve eval --pool FILE" reads.`,
		Example: `  as2 data reqa --out reqa-squad.jsonl
  as2 data reqa --half test --out reqa-squad-test.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			if path == "" {
				path = catalog.DefaultPath("squad")
			}
			split := half
			if split == "" {
				split = "dev"
			}
			pool, err := reqa.Load(path, split)
			if err != nil {
				return err
			}
			if err := writeAtomic(out, cmd.OutOrStdout(), pool.Write); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d answers and %d questions (%s) to %s\n", len(pool.Answers), len(pool.Questions), split, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "SQuAD file, or folder holding dev-v1.1.json.zip (default $AS2_DATA/squad)")
	cmd.Flags().StringVar(&half, "half", "", "article-disjoint half of dev: train or test (default: all of dev)")
	cmd.Flags().StringVar(&out, "out", "", "JSONL file to write (- for standard output)")
	return cmd
}

func newRetrieveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "retrieve",
		Short: "Answer retrieval: find the best answers of a whole pool for a question",
	}
	cmd.AddCommand(newRetrieveEvalCmd())
	return cmd
}

type retrieveEval struct {
	spec                             retrieverSpec
	pool, load, save, format, rerank string
	fuse                             string  // a second retriever, merged by --fusion
	fuseWeight                       float64 // its list's weight
	fusion                           string  // index.FusionRRF or FusionRelative
	retrievalWeight                  float64 // with rerank: the retrieval score's weight in the final order
	depth                            int
	vectorFlags                      bool // a flag of the vector indexes was given
}

func newRetrieveEvalCmd() *cobra.Command {
	var c retrieveEval
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate a retriever on a ReQA pool: MRR, R@1/5/10 and the ENDX paper's Eq. 15 recall",
		Long: `Retrieve the top --depth answers of a ReQA pool (as2 data reqa) for each of its
questions and print ReQA's measures, as its code computes them: MRR and R@N,
the share of questions with a gold answer in the top N (ties share their mean
rank). The ENDX paper's R@N of Eq. 15 (the mean share of a question's gold
answers in its top N) is printed beside them.

Retrievers: bm25 (an inverted index with rank's BM25: as2's tokenizer, no
stemming, k1 and b as given), or use-lite[:PATH] (USE-Lite sentence vectors,
zero-shot), or a model file (as2 train --arch dual: its answer tower encodes
the pool, its question tower the questions), searched by an --index of
sentence vectors: flat (exact float inner product), binary (sign codes by
Hamming distance, --rescore nearest rescored by their floats) or hnsw (a
graph, approximate: --m, --ef-construction, --ef-search); or a HAS model
file (as2 train --arch has, hash mode), whose answers are stored as binary
matrices and scored exhaustively by the question's attention.
--save-index writes the built index (atomically); --load-index reads one
instead of encoding the pool. To search a pool from the command line, build
an index with "as2 index build" and query it with "as2 search".

--fuse RETRIEVER is hybrid retrieval: a second retriever (bm25, use-lite or a
model file, over a flat index) also retrieves --depth answers, and the two
lists are merged: an answer scores the sum over the lists that hold it of w·s,
w 1 for the --retriever list and --fuse-weight for the --fuse list. s is, by
--fusion, rrf: reciprocal rank fusion's 1/(60 + rank) (Cormack et al. 2009),
which needs no score calibration, or relative: the score min-max scaled over
its list to [0, 1] (Weaviate's relative score fusion).

--rerank adds a reranking stage, the cascade retrieve:--depth → ranker that
as2 serve's /v1/retrieve runs with "rerank": the --depth answers retrieved
become one question's candidates, in retrieval order, and the ranker
(builtin, a rule-based ranker, or a model file) orders them; the measures
are then the reranked list's, and the time per question includes the
ranker's. --retrieval-weight W orders the reranked list by the ranker's score
plus W times the retrieval score, each min-max scaled over the --depth
answers (relative score fusion of the two stages).`,
		Example: `  as2 retrieve eval --pool reqa-squad.jsonl
  as2 retrieve eval --pool reqa-squad-test.jsonl --retriever use-lite --save-index use-lite-test.idx
  as2 retrieve eval --pool reqa-squad-test.jsonl --retriever dual.as2 --index hnsw
  as2 retrieve eval --pool reqa-squad-test.jsonl --fuse use-lite
  as2 retrieve eval --pool reqa-squad-test.jsonl --depth 20 --rerank builtin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c.vectorFlags = indexFlagsSet(cmd.Flags())
			return c.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.pool, "pool", "", "ReQA pool file (as2 data reqa)")
	f.StringVar(&c.spec.name, "retriever", "bm25", encoderUsage)
	c.spec.addFlags(f)
	f.StringVar(&c.load, "load-index", "", "read the index from this file instead of building it")
	f.StringVar(&c.save, "save-index", "", "write the built index to this file")
	f.IntVar(&c.depth, "depth", 100, "answers retrieved per question (and reranked, with --rerank)")
	f.StringVar(&c.fuse, "fuse", "", "hybrid retrieval: a second retriever ("+encoderUsage+"), merged with --retriever's list as --fusion says")
	f.Float64Var(&c.fuseWeight, "fuse-weight", 1, "weight of the --fuse list in the fusion (--retriever's: 1)")
	f.StringVar(&c.fusion, "fusion", index.FusionRRF, "how --fuse merges the lists: rrf (reciprocal rank fusion) or relative (min-max scaled scores)")
	f.StringVar(&c.rerank, "rerank", "", "ranker of the retrieved answers: "+builtin.Name+", a rule-based ranker ("+rank.NamesHelp()+") or a model file")
	f.Float64Var(&c.retrievalWeight, "retrieval-weight", 0, "with --rerank: order by the ranker's score plus this times the retrieval score, each min-max scaled over the --depth answers (0: the ranker's order alone)")
	f.IntVar(&c.spec.workers, "workers", runtime.GOMAXPROCS(0), "questions (and sentence-encoding goroutines, and hnsw insertions) at once")
	f.StringVar(&c.format, "format", "table", "output: table or json")
	return cmd
}

func (c *retrieveEval) run(ctx context.Context, stdout, stderr io.Writer) error {
	if c.pool == "" {
		return fmt.Errorf("--pool is required (build one with as2 data reqa)")
	}
	if c.format != "table" && c.format != "json" {
		return fmt.Errorf("--format %q: want table or json", c.format)
	}
	if c.depth < 10 {
		return fmt.Errorf("--depth %d: want at least 10 (R@10)", c.depth)
	}
	if c.fuse != "" && c.fuse == c.spec.name {
		return fmt.Errorf("--fuse %s: the same retriever as --retriever; fusion needs a second one", c.fuse)
	}
	if !(c.fuseWeight > 0 && c.fuseWeight <= 1e3) {
		return fmt.Errorf("--fuse-weight %v: want more than 0, at most 1000", c.fuseWeight)
	}
	if err := (index.Fused{Fusion: c.fusion}).Check(); err != nil {
		return fmt.Errorf("--%w", err) // --fusion "x": want ...
	}
	if !(c.retrievalWeight >= 0 && c.retrievalWeight <= 1e3) {
		return fmt.Errorf("--retrieval-weight %v: want 0 to 1000", c.retrievalWeight)
	}
	if c.retrievalWeight > 0 && c.rerank == "" {
		return fmt.Errorf("--retrieval-weight %v: only with --rerank", c.retrievalWeight)
	}
	var rk rank.Ranker
	if c.rerank != "" {
		var err error
		if rk, err = openRanker("--rerank", c.rerank); err != nil {
			return err
		}
	}
	pool, err := reqa.ReadFile(c.pool)
	if err != nil {
		return fmt.Errorf("--pool: %w", err)
	}
	start := time.Now()
	r, desc, err := buildRetriever(ctx, "--retriever", &c.spec, c.vectorFlags, c.load, c.save, pool, stderr)
	if err != nil {
		return err
	}
	if c.fuse != "" {
		second := c.spec
		second.name, second.kind = c.fuse, index.FlatKind
		r2, desc2, err := buildRetriever(ctx, "--fuse", &second, false, "", "", pool, stderr)
		if err != nil {
			return err
		}
		r = index.Fused{Retrievers: []index.Retriever{r, r2}, Weights: []float64{1, c.fuseWeight}, Fusion: c.fusion, Depth: c.depth}
		desc = fmt.Sprintf("%s fusion of %s and %s (weight %g; top %d each)", c.fusion, desc, desc2, c.fuseWeight, c.depth)
	}
	if rk != nil {
		texts := make(map[string]string, len(pool.Answers))
		for _, a := range pool.Answers {
			texts[a.ID] = a.Text
		}
		r = index.Reranked{Retriever: r, Ranker: rk, Depth: c.depth, Texts: texts, RetrievalWeight: c.retrievalWeight}
		desc += fmt.Sprintf(" → %s (the %d retrieved reranked)", c.rerank, c.depth)
		if c.retrievalWeight > 0 {
			desc += fmt.Sprintf(", fused with the retrieval score (weight %g)", c.retrievalWeight)
		}
	}
	built := time.Since(start)
	start = time.Now()
	p := newProgress(stderr, len(pool.Questions), "retrieving")
	res, _, err := retrieval.Evaluate(ctx, r, pool, retrieval.Options{Depth: c.depth, Workers: c.spec.workers, Progress: p.step})
	p.done()
	if err != nil {
		return err
	}
	return printRetrieval(stdout, c.format, c.pool, pool, desc, res, built, time.Since(start))
}

// buildRetriever returns the retriever spec names over pool's answers, and
// its description. flag names spec's flag in errors, vectorFlags says that
// a flag of the vector indexes was given for it, and load and save name
// its index files ("": none).
func buildRetriever(ctx context.Context, flag string, spec *retrieverSpec, vectorFlags bool, load, save string, pool *reqa.Pool, stderr io.Writer) (index.Retriever, string, error) {
	var p *progress
	if spec.name != "bm25" {
		p = newProgress(stderr, len(pool.Answers), "encoding answers")
	}
	o, err := spec.open(flag, p.step)
	if err != nil {
		return nil, "", err
	}
	if o.bm25 != nil && vectorFlags {
		return nil, "", fmt.Errorf("--index, --rescore and the hnsw flags are for sentence vectors, not --retriever bm25")
	}
	var x index.Stored
	if load != "" {
		kind := spec.kind
		if o.bm25 != nil {
			kind = index.BM25Kind
		}
		if x, err = readIndexKind("--load-index", load, kind); err != nil {
			return nil, "", err
		}
		// The search-time parameters are the flags', not the file's.
		switch x := x.(type) {
		case *index.Binary:
			x.Rescore = spec.rescore
		case *index.HNSW:
			if err := x.SetEfSearch(spec.hnsw.EfSearch); err != nil {
				return nil, "", fmt.Errorf("--ef-search: %w", err)
			}
		}
		if x.Len() != len(pool.Answers) {
			return nil, "", fmt.Errorf("--load-index %s holds %d answers, the pool %d", load, x.Len(), len(pool.Answers))
		}
	} else {
		if x, err = o.newIndex(spec); err != nil {
			return nil, "", err
		}
		start := time.Now()
		err := o.build(ctx, x, pool.IDs(), pool.Texts(), nil)
		p.done()
		if err != nil {
			return nil, "", err
		}
		if o.bm25 == nil {
			fmt.Fprintf(stderr, "encoded and indexed %d answers in %.0fs\n", x.Len(), time.Since(start).Seconds())
		}
	}
	if err := saveIndex(save, x, stderr); err != nil {
		return nil, "", err
	}
	r, err := o.retriever(x)
	if err != nil {
		return nil, "", err
	}
	desc := o.desc
	if o.bm25 == nil {
		desc += ", " + indexDesc(x)
	}
	return r, desc, nil
}

// vectorModel is a model that encodes questions and answers into vectors
// scored by inner product (dual.Model).
type vectorModel interface {
	Dim() int
	Encode(ctx context.Context, texts []string, question bool, progress func(done int)) ([][]float32, error)
}

// vectorEncoder is a vectorModel as an index.Encoder.
type vectorEncoder struct {
	m        vectorModel
	progress func(done int)
}

func (e vectorEncoder) EncodeAnswers(ctx context.Context, texts []string) ([][]float32, error) {
	return e.m.Encode(ctx, texts, false, e.progress)
}

func (e vectorEncoder) EncodeQuestion(ctx context.Context, text string) ([]float32, error) {
	vs, err := e.m.Encode(ctx, []string{text}, true, nil)
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// vectorRetriever encodes pool's answers with m into a Flat index.
func vectorRetriever(ctx context.Context, m vectorModel, pool *reqa.Pool, progress func(int)) (index.Retriever, error) {
	x, err := index.NewFlat(m.Dim())
	if err != nil {
		return nil, err
	}
	enc := vectorEncoder{m, progress}
	if err := index.Build(ctx, enc, x, pool.IDs(), pool.Texts()); err != nil {
		return nil, err
	}
	return index.NewRetriever[[]float32, []float32](enc, x), nil
}

// saveIndex writes x to path (--save-index) atomically; "" writes nothing.
func saveIndex(path string, x io.WriterTo, stderr io.Writer) error {
	if path == "" {
		return nil
	}
	err := writeAtomic(path, stderr, func(w io.Writer) error {
		_, err := x.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("--save-index: %w", err)
	}
	fmt.Fprintf(stderr, "wrote the index to %s\n", path)
	return nil
}

func printRetrieval(w io.Writer, format, file string, pool *reqa.Pool, desc string, res retrieval.Result, built, searched time.Duration) error {
	if format == "json" {
		return json.NewEncoder(w).Encode(map[string]any{
			"pool": file, "split": pool.Split, "answers": len(pool.Answers), "questions": res.Questions,
			"retriever": desc, "mrr": res.MRR, "cutoffs": res.Cutoffs, "r_at": res.Success, "recall_eq15_at": res.RecallEq15,
			"build_seconds": built.Seconds(), "search_seconds": searched.Seconds(),
		})
	}
	fmt.Fprintf(w, "%s (%s): %d answers, %d questions\n", file, pool.Split, len(pool.Answers), res.Questions)
	fmt.Fprintf(w, "retriever: %s; built in %.1fs, %.2f ms per question\n", desc, built.Seconds(),
		searched.Seconds()*1000/float64(max(res.Questions, 1)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head, row := "MRR\t", fmt.Sprintf("%.2f\t", 100*res.MRR)
	for i, n := range res.Cutoffs {
		head += fmt.Sprintf("R@%d\t", n)
		row += fmt.Sprintf("%.2f\t", 100*res.Success[i])
	}
	for i, n := range res.Cutoffs {
		head += fmt.Sprintf("Eq.15 R@%d\t", n)
		row += fmt.Sprintf("%.2f\t", 100*res.RecallEq15[i])
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, row)
	return tw.Flush()
}
