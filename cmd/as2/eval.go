package main

import (
	"fmt"
	"github.com/spf13/cobra"
	"io"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/internal/atomicfile"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank/cascade"
	"github.com/as2/as2/trec"
)

type evalCmd struct {
	data                                          datasetFlags
	ranker                                        rankerFlags
	metrics, format, run, qrels, writeQrels, ties string
	tieSeed                                       uint64
	perQuestion, allQueries                       bool
	positions                                     int
}

func newEvalCmd() *cobra.Command {
	e := &evalCmd{}
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate a ranker on a benchmark, or a TREC run file against qrels",
		Long: `Evaluate a ranker (default builtin) on a benchmark split with trec_eval's
measures, or any system's TREC --run against --qrels. See docs/evaluation.md.`,
		Example: `  as2 eval --qrels WikiQA-test-filtered.ref --run WikiQA.CNN.test.rank`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return e.exec(cmd) },
	}
	fs := cmd.Flags()
	e.data.register(fs, "answered")
	e.ranker.def = as2.Builtin
	e.ranker.register(fs)
	fs.StringVar(&e.metrics, "metrics", "map,mrr,p@1,r@5,ndcg@10", "comma-separated measures")
	formatFlag(cmd, &e.format)
	fs.StringVar(&e.run, "run", "", "with --dataset: write the rankings to this TREC run file; with --qrels: the run file to evaluate")
	fs.StringVar(&e.qrels, "qrels", "", "evaluate --run against these TREC qrels instead of ranking a dataset")
	fs.StringVar(&e.writeQrels, "write-qrels", "", "with --dataset: write the subset's labels as TREC qrels to this file")
	fs.StringVar(&e.ties, "ties", "position", "order of equal scores: position (document order) or random (seeded by --tie-seed)")
	fs.Uint64Var(&e.tieSeed, "tie-seed", 1, "seed for --ties random")
	fs.BoolVar(&e.perQuestion, "per-question", false, "also print every question's values")
	fs.IntVar(&e.positions, "positions", 0, "also print, for document positions 0 to N-2 and N-1 or later, how often the ranker puts a candidate there first and how often a correct one is there (a position bias check; 0: no)")
	fs.BoolVar(&e.allQueries, "all-queries", false, "with --qrels: average over every qrels question, scoring those missing from the run 0 (trec_eval -c)")
	return cmd
}

func (e *evalCmd) exec(cmd *cobra.Command) error {
	ms, err := evaluation.ParseMeasures(e.metrics)
	if err != nil {
		return fmt.Errorf("--metrics: %w", err)
	}
	switch {
	case e.positions < 0:
		return fmt.Errorf("--positions %d: must be >= 0", e.positions)
	case e.positions > 0 && e.qrels != "":
		return fmt.Errorf("--positions needs --dataset: a run file has no document positions")
	}
	if e.qrels != "" {
		return e.evalRunFile(cmd, ms)
	}
	if e.data.name == "" {
		return fmt.Errorf("give --dataset to evaluate a ranker, or --qrels and --run to evaluate a run file")
	}
	ties, err := evaluation.ParseTies(e.ties)
	if err != nil {
		return fmt.Errorf("--ties: %w", err)
	}
	if err := e.ranker.check(); err != nil {
		return err
	}
	e.data.errOut = cmd.ErrOrStderr()
	all, qs, sub, err := e.data.load("", "")
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return fmt.Errorf("no questions in subset %s of %s", sub, e.data.describe())
	}
	rk, err := e.ranker.build(all)
	if err != nil {
		return err
	}
	bar := newProgress(cmd.ErrOrStderr(), len(qs), "questions")
	rep, err := evaluation.Evaluate(cmd.Context(), rk, qs, evaluation.Options{Measures: ms, Ties: ties, Seed: e.tieSeed, Progress: bar.step})
	bar.done()
	if err != nil {
		return err
	}
	if err := writeFlagFile(cmd, "--run", e.run, func(w io.Writer) error { return evaluation.WriteRun(w, rep, trec.Tag(e.ranker.label())) }); err != nil {
		return err
	}
	if err := writeFlagFile(cmd, "--write-qrels", e.writeQrels, func(w io.Writer) error { return evaluation.WriteQrels(w, qs) }); err != nil {
		return err
	}
	s := evaluation.Summary{Dataset: e.data.name, Split: e.data.source().SplitName(""), Subset: string(sub), Ranker: e.ranker.label(), Note: evaluation.Describe(sub, ties)}
	if e.positions > 0 {
		p := rep.Positions(e.positions)
		s.Positions = &p
	}
	if err := s.Write(cmd.OutOrStdout(), e.format, rep.Result, e.perQuestion); err != nil {
		return err
	}
	if c, ok := rk.(*cascade.Cascade); ok {
		return c.WriteStats(cmd.ErrOrStderr())
	}
	return nil
}

func (e *evalCmd) evalRunFile(cmd *cobra.Command, ms []metric.Measure) error {
	if e.run == "" {
		return fmt.Errorf("--qrels needs --run, the run file to evaluate")
	}
	if e.data.name != "" || e.writeQrels != "" {
		return fmt.Errorf("--qrels evaluates a run file: it does not go with --dataset or --write-qrels")
	}
	qrels, err := dataset.ReadFile(e.qrels, trec.ReadQrels)
	if err != nil {
		return notFound("--qrels", e.qrels, err)
	}
	run, err := dataset.ReadFile(e.run, trec.ReadRun)
	if err != nil {
		return notFound("--run", e.run, err)
	}
	res, err := trec.Evaluate(run, qrels, ms, trec.Options{AllQueries: e.allQueries})
	if err != nil {
		return err
	}
	s := evaluation.RunFileSummary(e.qrels, e.run, e.allQueries)
	return s.Write(cmd.OutOrStdout(), e.format, res, e.perQuestion)
}

// writeAtomic writes path ("-": stdout) whole or not at all (atomicfile).
func writeAtomic(path string, stdout io.Writer, write func(io.Writer) error) error {
	return atomicfile.Write(path, stdout, write)
}

// writeFlagFile is writeAtomic for a flag's file (path "": none), its errors under the flag.
func writeFlagFile(cmd *cobra.Command, flag, path string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if err := writeAtomic(path, cmd.OutOrStdout(), write); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}
