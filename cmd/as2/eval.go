package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/cascade"
	"github.com/as2/as2/trec"
)

type evalCmd struct {
	data        datasetFlags
	ranker      rankerFlags
	metrics     string
	format      string
	run         string
	qrels       string
	writeQrels  string
	ties        string
	tieSeed     uint64
	perQuestion bool
	positions   int
	allQueries  bool
}

func newEvalCmd() *cobra.Command {
	e := &evalCmd{}
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate a ranker on a benchmark, or a TREC run file against qrels",
		Long: `Evaluate a ranker on a benchmark split, or a TREC run file against TREC qrels.

With --dataset, as2 ranks every question of the split's subset with --ranker and
prints MAP, MRR, P@1 and the other --metrics, computed as trec_eval computes
them. Score ties are broken by document order unless --ties random. --run FILE
also writes the rankings as a TREC run file and --write-qrels FILE the labels as
TREC qrels, so that trec_eval can check the numbers.

With --qrels, --run names an existing run file (any system's) that is evaluated
the way trec_eval evaluates it: each question's results re-sorted by score,
ties by document id, over the questions present in both files (--all-queries:
every question of the qrels).

Measures: map, mrr, p@K, recall@K (trec_eval's recall_K), r@K (ReQA's R@K:
a correct answer in the top K), ndcg@K.`,
		Example: `  as2 eval --dataset wikiqa --split test --subset answered --ranker wo+rr
  as2 eval --dataset trecqa --split test --ranker bm25 --format json
  as2 eval --qrels WikiQA-test-filtered.ref --run WikiQA.CNN.test.rank`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return e.exec(cmd) },
	}
	fs := cmd.Flags()
	e.data.register(fs, "answered")
	e.ranker.register(fs)
	fs.StringVar(&e.metrics, "metrics", "map,mrr,p@1,r@5,ndcg@10", "comma-separated measures")
	fs.StringVar(&e.format, "format", "table", "output: table or json")
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

// summary is the JSON shape of an evaluation.
type summary struct {
	Dataset     string             `json:"dataset,omitempty"`
	Split       string             `json:"split,omitempty"`
	Subset      string             `json:"subset,omitempty"`
	Ranker      string             `json:"ranker,omitempty"`
	Qrels       string             `json:"qrels,omitempty"`
	Run         string             `json:"run,omitempty"`
	Questions   int                `json:"questions"`
	Metrics     map[string]float64 `json:"metrics"`
	PerQuestion []questionValues   `json:"per_question,omitempty"`
	// Positions, with --positions: how often each document position is
	// ranked first, against how often a correct answer sits there.
	Positions *evaluation.Positions `json:"positions,omitempty"`
}

type questionValues struct {
	ID      string             `json:"id"`
	Metrics map[string]float64 `json:"metrics"`
}

func (e *evalCmd) exec(cmd *cobra.Command) error {
	if e.format != "table" && e.format != "json" {
		return fmt.Errorf("--format %q: want table or json", e.format)
	}
	ms, err := parseMeasures(e.metrics)
	if err != nil {
		return err
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
	if e.run != "" {
		if err := writeAtomic(e.run, cmd.OutOrStdout(), func(w io.Writer) error { return evaluation.WriteRun(w, rep, runTag(e.ranker.label())) }); err != nil {
			return fmt.Errorf("--run: %w", err)
		}
	}
	if e.writeQrels != "" {
		if err := writeAtomic(e.writeQrels, cmd.OutOrStdout(), func(w io.Writer) error { return evaluation.WriteQrels(w, qs) }); err != nil {
			return fmt.Errorf("--write-qrels: %w", err)
		}
	}
	s := summary{Dataset: e.data.name, Split: e.data.splitName(""), Subset: string(sub), Ranker: e.ranker.label()}
	if e.positions > 0 {
		p := rep.Positions(e.positions)
		s.Positions = &p
	}
	if err := e.print(cmd.OutOrStdout(), s, rep.Result, evaluation.Describe(sub, ties)); err != nil {
		return err
	}
	printStages(cmd.ErrOrStderr(), rk)
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
	s := summary{Qrels: e.qrels, Run: e.run}
	note := "questions in both files; equal scores ordered by document id, descending, as trec_eval does"
	if e.allQueries {
		note = "every qrels question (missing from the run: 0); equal scores ordered as trec_eval does"
	}
	return e.print(cmd.OutOrStdout(), s, res, note)
}

func (e *evalCmd) print(w io.Writer, s summary, res metric.Result, note string) error {
	s.Questions = len(res.PerQuery)
	s.Metrics = rounded(res.Mean)
	if e.perQuestion {
		for _, q := range res.PerQuery {
			s.PerQuestion = append(s.PerQuestion, questionValues{ID: q.ID, Metrics: rounded(q.Values)})
		}
	}
	if e.format == "json" {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(s)
	}
	if s.Dataset != "" {
		fmt.Fprintf(w, "%s %s, %d questions, ranker %s\n", s.Dataset, s.Split, s.Questions, s.Ranker)
	} else {
		fmt.Fprintf(w, "run %s against qrels %s, %d questions\n", s.Run, s.Qrels, s.Questions)
	}
	fmt.Fprintf(w, "(%s)\n", note)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if e.perQuestion {
		fmt.Fprint(tw, "question")
		for _, m := range res.Measures {
			fmt.Fprintf(tw, "\t%s", m.Name)
		}
		fmt.Fprintln(tw)
		for _, q := range s.PerQuestion {
			fmt.Fprint(tw, q.ID)
			for _, m := range res.Measures {
				fmt.Fprintf(tw, "\t%.4f", q.Metrics[m.Name])
			}
			fmt.Fprintln(tw)
		}
		fmt.Fprint(tw, "all")
		for _, m := range res.Measures {
			fmt.Fprintf(tw, "\t%.4f", s.Metrics[m.Name])
		}
		fmt.Fprintln(tw)
		return tw.Flush()
	}
	for _, m := range res.Measures {
		fmt.Fprintf(tw, "%s\t%.4f\n", m.Name, s.Metrics[m.Name])
	}
	if p := s.Positions; p != nil {
		fmt.Fprintln(tw, "\nposition\tranked first\tcorrect there")
		for i := range p.Top {
			pos := strconv.Itoa(i)
			if i == len(p.Top)-1 {
				pos += "+"
			}
			fmt.Fprintf(tw, "%s\t%.2f%%\t%.2f%%\n", pos, 100*p.Top[i], 100*p.Gold[i])
		}
	}
	return tw.Flush()
}

// printStages reports each stage's work when r is a cascade.
func printStages(w io.Writer, r rank.Ranker) {
	c, ok := r.(*cascade.Cascade)
	if !ok {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "stage\tk\tquestions\tcandidates scored\tmean latency per question")
	for i, st := range c.Stats() {
		fmt.Fprintf(tw, "%d %s\t%d\t%d\t%d\t%s\n", i+1, st.Name, st.K, st.Calls, st.Pairs, st.Latency)
	}
	tw.Flush()
}

// runTag makes a TREC run tag (no white space) from a ranker's label.
func runTag(label string) string {
	return strings.Join(strings.Fields(filepath.Base(label)), "_")
}

// rounded keeps 4 decimals, as trec_eval prints them.
func rounded(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = math.Round(v*1e4) / 1e4
	}
	return out
}

func parseMeasures(list string) ([]metric.Measure, error) {
	var ms []metric.Measure
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == "" {
			continue
		}
		m, err := metric.ParseMeasure(name)
		if err != nil {
			return nil, fmt.Errorf("--metrics: %w", err)
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("--metrics %q names no measure", list)
	}
	return ms, nil
}

// writeAtomic writes a file through write so that it appears whole or not
// at all (mode 0644 less the umask, as a plain create): a failed or
// interrupted write leaves any old file untouched. The
// path "-" writes to stdout instead.
func writeAtomic(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644))
	if err != nil {
		return err
	}
	pending.add(f.Name())
	defer pending.remove(f.Name())
	defer f.Cleanup()
	if err := write(f); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}

// pending holds the temporary files of writes in progress, which main
// removes when a signal makes it exit without waiting for the command.
var pending = pendingFiles{names: map[string]bool{}}

type pendingFiles struct {
	mu    sync.Mutex
	names map[string]bool
}

func (p *pendingFiles) add(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.names[name] = true
}

func (p *pendingFiles) remove(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.names, name)
}

// removeAll deletes every pending file; the writes in progress fail.
func (p *pendingFiles) removeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for name := range p.names {
		os.Remove(name)
		delete(p.names, name)
	}
}
