package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/evaluation/tradeoff"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/rank"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure training and inference throughput on this machine",
		Long: `Measure throughput reproducibly: as2 bench train times a training run (by
default the Cosinet paper's WikiQA run: Cosinet_list+BiRNN, 3 epochs, no dev
evaluation, nothing saved); as2 bench infer times scoring a split's candidates;
cascade, serve, has and index measure cascades, the service, HAS's stored
answer pools, and the answer indexes on pools of millions of vectors. Each
prints the machine, the BLAS backend and the command's settings with the
figures. Build with -tags openblas to measure the OpenBLAS backend.`,
	}
	cmd.AddCommand(newBenchTrainCmd(), newBenchInferCmd(), newBenchCascadeCmd(), newBenchServeCmd(), newBenchHASCmd(), newBenchIndexCmd())
	return cmd
}

// machine describes where a benchmark ran.
func machine() string {
	cpu := runtime.GOARCH
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s, %d cores, %s, %s", cpu, runtime.GOMAXPROCS(0), runtime.Version(), nn.BLASName())
}

type benchResult struct {
	Benchmark   string  `json:"benchmark"`
	Machine     string  `json:"machine"`
	Settings    string  `json:"settings"`
	Pairs       int     `json:"pairs"`
	Seconds     float64 `json:"seconds"`
	PairsPerSec float64 `json:"pairs_per_second"`
	P50ms       float64 `json:"p50_ms_per_question,omitempty"`
	P99ms       float64 `json:"p99_ms_per_question,omitempty"`
	Params      int     `json:"params,omitempty"`
}

func printBench(w io.Writer, format string, r benchResult) error {
	if format == "json" {
		return json.NewEncoder(w).Encode(r)
	}
	fmt.Fprintf(w, "%s on %s\n  settings: %s\n  %d pairs in %.2fs: %.0f pairs/s", r.Benchmark, r.Machine, r.Settings, r.Pairs, r.Seconds, r.PairsPerSec)
	if r.Params > 0 {
		fmt.Fprintf(w, ", %d parameters", r.Params)
	}
	if r.P50ms > 0 {
		fmt.Fprintf(w, "; per question p50 %.2f ms, p99 %.2f ms", r.P50ms, r.P99ms)
	}
	fmt.Fprintln(w)
	return nil
}

func newBenchTrainCmd() *cobra.Command {
	t := &trainCmd{}
	var format string
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Time a training run (default: Cosinet_list+BiRNN, WikiQA, 3 epochs)",
		Long: `Time a training run. It takes as2 train's flags, with the Cosinet paper's
WikiQA run as the default (--listwise, BiRNN, 3 epochs, no dev evaluation), and
reports the wall time of training alone (data and embeddings loading excluded)
and the candidate pairs processed per second.`,
		Example: `  as2 bench train
  CGO_ENABLED=1 go build -tags openblas -o as2-openblas ./cmd/as2 && ./as2-openblas bench train`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if t.data.name == "" {
				t.data.name = "wikiqa"
			}
			t.quiet = true
			m, sum, err := t.fit(cmd)
			if err != nil {
				return err
			}
			return printBench(cmd.OutOrStdout(), format, benchResult{
				Benchmark: "train", Machine: machine(), Params: sum.Params,
				Settings: fmt.Sprintf("%s, %s %s, %d epochs, batch %d, seed %d", t.describe(m), t.data.name, t.trainSplit, t.opts.Epochs, t.opts.Batch, t.opts.Seed),
				Pairs:    sum.Pairs, Seconds: sum.Wall.Seconds(), PairsPerSec: float64(sum.Pairs) / sum.Wall.Seconds(),
			})
		},
	}
	t.register(cmd)
	fs := cmd.Flags()
	fs.Lookup("listwise").DefValue, t.listwise = "true", true
	fs.Lookup("dev-split").DefValue, t.devSplit = "none", "none"
	fs.Lookup("out").Usage = "not used by bench"
	fs.StringVar(&format, "format", "table", "output: table or json")
	return cmd
}

func newBenchInferCmd() *cobra.Command {
	var (
		data                 datasetFlags
		modelFile, embedFile string
		repeat, concurrency  int
		format               string
	)
	cmd := &cobra.Command{
		Use:   "infer",
		Short: "Time scoring every candidate of a split (default: Cosinet+BiRNN on WikiQA test)",
		Long: `Time scoring: every question of the split (all its questions) is scored
--repeat times by --concurrency clients, each scoring one question at a time
as a service would, and the candidate pairs per second and per-question
latency percentiles are reported. Without
--model, a Cosinet+BiRNN with the default settings and random weights is
timed (its speed does not depend on the weights).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data.name == "" {
				data.name = "wikiqa"
			}
			if repeat < 1 {
				return fmt.Errorf("--repeat %d: must be at least 1", repeat)
			}
			_, qs, _, err := data.load("", "")
			if err != nil {
				return err
			}
			var r rank.Ranker
			label := modelFile
			if modelFile != "" {
				rf := rankerFlags{model: modelFile}
				if r, err = rf.build(nil); err != nil {
					return err
				}
			} else {
				if embedFile == "" {
					embedFile = defaultEmbeddings()
				}
				vecs, err := embed.Load(embedFile, "auto")
				if err != nil {
					return fmt.Errorf("--embeddings: %w", err)
				}
				enc, err := encoder.NewStatic[float32](vecs)
				if err != nil {
					return fmt.Errorf("--embeddings: %w", err)
				}
				a, err := model.Lookup("cosinet")
				if err != nil {
					return err
				}
				if r, err = a.New(false, nil, enc, 1); err != nil {
					return err
				}
				label = "cosinet+birnn (untrained)"
			}
			if concurrency < 1 {
				return fmt.Errorf("--concurrency %d: must be at least 1", concurrency)
			}
			tp, err := evaluation.MeasureThroughput(cmd.Context(), r, qs, repeat, concurrency)
			if err != nil {
				return err
			}
			return printBench(cmd.OutOrStdout(), format, benchResult{
				Benchmark: "infer", Machine: machine(),
				Settings: fmt.Sprintf("%s, %s subset %s, %d questions x %d, %d concurrent clients scoring one question at a time", label, data.describe(), data.subset, len(qs), repeat, concurrency),
				Pairs:    tp.Pairs, Seconds: tp.Wall.Seconds(), PairsPerSec: tp.PairsPerSecond(), P50ms: millis(tp.P50), P99ms: millis(tp.P99),
			})
		},
	}
	fs := cmd.Flags()
	data.register(fs, "all")
	fs.StringVar(&modelFile, "model", "", "model file to time (default: an untrained Cosinet+BiRNN)")
	fs.StringVar(&embedFile, "embeddings", "", "word vectors for the untrained model (default: as for as2 train)")
	fs.IntVar(&repeat, "repeat", 3, "passes over the questions")
	fs.IntVar(&concurrency, "concurrency", 1, "clients scoring questions at the same time (the number of cores measures throughput)")
	fs.StringVar(&format, "format", "table", "output: table or json")
	return cmd
}

// twoStages checks the flags of a two-stage cascade sweep and builds its
// rankers: each spec is a model file or a rule-based ranker.
func twoStages(first, last, ks string) (fr, lr rank.Ranker, kList []int, err error) {
	if last == "" {
		return nil, nil, nil, fmt.Errorf("--last is required: a model file or rule-based ranker")
	}
	if kList, err = parseKs(ks); err != nil {
		return nil, nil, nil, err
	}
	build := func(flag, spec string) (rank.Ranker, error) {
		rf := specRanker(spec, rank.DefaultOptions())
		r, err := rf.build(nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		return r, nil
	}
	if fr, err = build("--first", first); err != nil {
		return nil, nil, nil, err
	}
	if lr, err = build("--last", last); err != nil {
		return nil, nil, nil, err
	}
	return fr, lr, kList, nil
}

// parseKs reads --k.
func parseKs(ks string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("--k %q: want positive integers separated by commas", ks)
		}
		out = append(out, k)
	}
	return out, nil
}

func newBenchCascadeCmd() *cobra.Command {
	var (
		data              datasetFlags
		first, last, ks   string
		plotPrefix, title string
		format            string
	)
	cmd := &cobra.Command{
		Use:   "cascade",
		Short: "Accuracy and latency of two-stage cascades as the number passed on (k) varies",
		Long: `Measure the trade-off of a two-stage cascade: --first ranks every candidate and
passes its best k to --last, for each k of --k, and --last alone on every
candidate. For each it reports P@1, MAP and the mean latency per question
(questions scored one at a time), as a table and, with --plot PREFIX, as a
figure like the sequential reranking paper's Figure 2 (PREFIX.png and
PREFIX.svg). Large pools show the effect: see as2 data augment.`,
		Example: `  as2 data augment --dataset wikiqa --split test --size 300 --out wikiqa-test++.jsonl
  as2 bench cascade --dataset jsonl --path wikiqa-test++.jsonl --first bm25 --last m.as2 --k 5,10,25,50,100 --plot cascade`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fr, lr, kList, err := twoStages(first, last, ks)
			if err != nil {
				return err
			}
			if data.name == "" {
				return fmt.Errorf("--dataset is required")
			}
			_, qs, _, err := data.load("", "")
			if err != nil {
				return err
			}
			points, err := tradeoff.Sweep(cmd.Context(), fr, lr, first, last, kList, qs)
			if err != nil {
				return err
			}
			if plotPrefix != "" {
				if title == "" {
					title = fmt.Sprintf("%s → %s on %s (%d questions)", first, filepath.Base(last), data.name, len(qs))
				}
				if err := tradeoff.Plot(points, title, plotPrefix+".png", plotPrefix+".svg"); err != nil {
					return fmt.Errorf("--plot: %w", err)
				}
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				return json.NewEncoder(w).Encode(map[string]any{"machine": machine(), "first": first, "last": last, "questions": len(qs), "points": points})
			}
			base := points[0]
			fmt.Fprintf(w, "%s → %s, %s (%d questions), on %s\n", first, last, data.describe(), len(qs), machine())
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "k\tcandidates to last stage\tP@1\tMAP\tms/question\t% of last-stage P@1\tlatency vs last stage\t")
			for _, p := range points {
				k := strconv.Itoa(p.K)
				if p.K == 0 {
					k = "all"
				}
				fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.2f\t%.2f\t%.1f%%\t%.2fx\t\n", k, p.Candidate, 100*p.P1, 100*p.MAP,
					float64(p.Latency.Microseconds())/1000, 100*p.P1/max(base.P1, 1e-12), float64(p.Latency)/float64(max(base.Latency, 1)))
			}
			return tw.Flush()
		},
	}
	fs := cmd.Flags()
	data.register(fs, "answered")
	fs.StringVar(&first, "first", "bm25", "first stage: a rule-based ranker or a model file")
	fs.StringVar(&last, "last", "", "last stage: a model file or a rule-based ranker (required)")
	fs.StringVar(&ks, "k", "1,5,10,25,50,100", "candidates the first stage passes on, comma-separated")
	fs.StringVar(&plotPrefix, "plot", "", "write the trade-off figure to PREFIX.png and PREFIX.svg")
	fs.StringVar(&title, "title", "", "figure title")
	fs.StringVar(&format, "format", "table", "output: table or json")
	return cmd
}

// millis is d in milliseconds, to the microsecond, as the benchmarks
// report latencies.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
