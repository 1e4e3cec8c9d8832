package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/index"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/has"
	"github.com/as2/as2/rank"
)

func newBenchHASCmd() *cobra.Command {
	var (
		data                      datasetFlags
		hashFile, attFile, poolMF string
		pool                      []string
		limit                     int
		format                    string
		quiet                     bool
	)
	cmd := &cobra.Command{
		Use:   "has",
		Short: "Memory and time per question of HAS against its float baselines (the HAS paper's Table 6)",
		Long: `Measure what storing answers costs, as the HAS paper's Table 6 does.

Memory: the distinct sentences of --pool (DATASET:SPLIT list; by default every
sentence of SQuAD v1.1 dev, WikiQA and TrecQA) are encoded by the --hash model
into binary matrices (an index.Matrices, 1 bit per word-state element), and
the bytes per answer and in all are reported for each way of storing them:
pooled float vectors (pooling), float word states (attention, store: 4 bytes
an element, counted for the same words) and the bits (HAS).

Time and accuracy: every question of the dataset (e.g. WikiQA test augmented
to 500 candidates with as2 data augment --size 500) is ranked by each method,
one question at a time on all cores; the time per question counts encoding
the question and scoring its candidates from what is stored (store), or
encoding the candidates too (recompute). Storing the candidates is not timed.
MAP and P@1 come from the same rankings.

Methods: HAS (store, scored from the bits) and HAS (recompute) with --hash;
attention (store) and attention (recompute) with --attention, a model of
--has-mode attention; pooling (store) with --pooling, one of --has-mode
pooling. Train them with the same encoder (scripts/has-table.sh).`,
		Example: `  as2 data augment --dataset wikiqa --split test --size 500 --out wikiqa-test500.jsonl
  as2 bench has --hash has.as2 --attention att.as2 --pooling pool.as2 --dataset jsonl --path wikiqa-test500.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if hashFile == "" {
				return fmt.Errorf("--hash is required: a HAS model (as2 train --arch has)")
			}
			if data.name == "" {
				return fmt.Errorf("--dataset is required: questions with their candidates, e.g. --dataset jsonl --path wikiqa-test500.jsonl")
			}
			if limit < 0 {
				return fmt.Errorf("--questions %d: want 0 (all) or more", limit)
			}
			models := map[string]*has.Model{}
			for _, f := range []struct{ flag, path, mode string }{{"--hash", hashFile, has.Hash}, {"--attention", attFile, has.Attention}, {"--pooling", poolMF, has.Pooling}} {
				if f.path == "" {
					continue
				}
				m, err := loadHAS(f.flag, f.path, f.mode)
				if err != nil {
					return err
				}
				models[f.mode] = m
			}
			_, qs, _, err := data.load("", "")
			if err != nil {
				return err
			}
			if limit > 0 && limit < len(qs) {
				qs = qs[:limit]
			}
			stderr := cmd.ErrOrStderr()
			if quiet {
				stderr = io.Discard
			}
			var mem *poolMemory
			if len(pool) > 0 && pool[0] != "none" {
				if mem, err = measurePool(ctx, models[has.Hash], data, pool, stderr); err != nil {
					return err
				}
			}
			var rows []hasBenchRow
			for _, meth := range hasMethods(models) {
				p := newProgress(stderr, len(qs), meth.name)
				row, err := meth.run(ctx, qs, p.step)
				p.done()
				if err != nil {
					return fmt.Errorf("%s: %w", meth.name, err)
				}
				if mem != nil {
					row.BytesPerAnswer, row.PoolBytes = mem.bytes(meth.store, models[meth.mode].Dim())
				}
				rows = append(rows, row)
			}
			cands := 0
			for _, q := range qs {
				cands += len(q.Candidates)
			}
			rep := hasBenchReport{Machine: machine(), Questions: len(qs), Candidates: cands, Data: data.describe(), Pool: mem, Rows: rows}
			return rep.print(cmd.OutOrStdout(), format)
		},
	}
	fs := cmd.Flags()
	data.register(fs, "answered")
	fs.StringVar(&hashFile, "hash", "", "HAS model (as2 train --arch has), required")
	fs.StringVar(&attFile, "attention", "", "the float-attention baseline (as2 train --arch has --has-mode attention)")
	fs.StringVar(&poolMF, "pooling", "", "the pooling baseline (as2 train --arch has --has-mode pooling)")
	fs.StringSliceVar(&pool, "pool", strings.Split(defaultSentencePool, ","), "answer pool for the memory figures: DATASET:SPLIT list (every candidate sentence, deduplicated), or none")
	fs.IntVar(&limit, "questions", 0, "time the first N questions only (0: all)")
	fs.StringVar(&format, "format", "table", "output: table or json")
	fs.BoolVar(&quiet, "quiet", false, "no progress bars")
	return cmd
}

// loadHAS loads a HAS model of mode from path.
func loadHAS(flag, path, mode string) (*has.Model, error) {
	loaded, err := model.Load(path)
	if err != nil {
		return nil, notFound(flag, path, err)
	}
	m, ok := loaded.(*has.Model)
	if !ok {
		return nil, fmt.Errorf("%s %s: a %s model, want a HAS model (as2 train --arch has)", flag, path, loaded.Config().Architecture)
	}
	if got := m.Hyper().Mode; got != mode {
		return nil, fmt.Errorf("%s %s: a HAS model of mode %s, want %s", flag, path, got, mode)
	}
	return m, nil
}

// poolMemory is what a pool of answers costs to store.
type poolMemory struct {
	Sources       []string `json:"sources"`
	Answers       int      `json:"answers"`
	Words         int64    `json:"words"`    // rows of the answers' matrices
	HashBytes     int64    `json:"bytes"`    // the bits, measured
	EncodeSeconds float64  `json:"encode_s"` // encoding the pool with the hash model
}

// bytes is what storing the pool takes for a method storing store
// ("pooled", "float" or "bits") at dimension d: per answer and in all.
func (p *poolMemory) bytes(store string, d int) (per float64, total int64) {
	switch store {
	case "pooled":
		total = int64(p.Answers) * has.PoolingBytes(d)
	case "float":
		total = has.FloatAttentionBytes(int(p.Words), d)
	case "bits":
		total = p.HashBytes
	default: // recompute stores nothing but the texts
		return 0, 0
	}
	return float64(total) / float64(p.Answers), total
}

// measurePool encodes the distinct candidate sentences of the pool's
// splits with the hash model m into an index.Matrices.
func measurePool(ctx context.Context, m *has.Model, d datasetFlags, pool []string, stderr io.Writer) (*poolMemory, error) {
	texts, err := poolSentences(d, pool)
	if err != nil {
		return nil, err
	}
	p := newProgress(stderr, len(texts), "encoding the pool")
	start := time.Now()
	bms, err := m.EncodeAnswersProgress(ctx, texts, p.step)
	p.done()
	if err != nil {
		return nil, fmt.Errorf("--pool: %w", err)
	}
	secs := time.Since(start).Seconds()
	x, err := index.NewMatrices(m.Dim())
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(texts))
	for i := range ids {
		ids[i] = fmt.Sprint(i + 1)
	}
	if err := x.Add(ids, bms); err != nil {
		return nil, err
	}
	mem := &poolMemory{Sources: pool, Answers: x.Len(), HashBytes: x.CodeBytes(), EncodeSeconds: secs}
	for i := range x.Len() {
		mem.Words += int64(x.Matrix(i).Rows())
	}
	return mem, nil
}

// loadSplit loads the questions of a DATASET:SPLIT spec (its subset sub)
// with d's other settings; flag names the spec's flag in errors.
func loadSplit(d datasetFlags, flag, spec string, sub dataset.Subset) ([]dataset.Question, error) {
	name, split, ok := strings.Cut(spec, ":")
	if !ok || name == "" || split == "" {
		return nil, fmt.Errorf("%s %q: want DATASET:SPLIT, e.g. trecqa:train-all", flag, spec)
	}
	d.name, d.path = name, ""
	_, kept, _, err := d.load(split, sub)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, spec, err)
	}
	return kept, nil
}

// hasMethod is one way of answering the benchmark's questions.
type hasMethod struct {
	name, mode string
	store      string // what it stores per answer: pooled, float, bits, or "" (recompute)
	// prepare stores q's candidates (untimed); score then ranks them.
	prepare func(ctx context.Context, texts []string) (any, error)
	score   func(ctx context.Context, question string, stored any) ([]float64, error)
}

// hasMethods are the methods the given models allow, in Table 6's order.
func hasMethods(models map[string]*has.Model) []hasMethod {
	var out []hasMethod
	recompute := func(name, mode string) hasMethod {
		m := models[mode]
		return hasMethod{name: name, mode: mode,
			prepare: func(_ context.Context, texts []string) (any, error) { return texts, nil },
			score: func(ctx context.Context, question string, stored any) ([]float64, error) {
				q := &dataset.Question{Text: question}
				for _, t := range stored.([]string) {
					q.Candidates = append(q.Candidates, dataset.Candidate{Text: t})
				}
				return m.Score(ctx, q)
			}}
	}
	floats := func(name, mode, store string) hasMethod {
		m := models[mode]
		return hasMethod{name: name, mode: mode, store: store,
			prepare: func(ctx context.Context, texts []string) (any, error) { return m.EncodeFloatAnswers(ctx, texts) },
			score: func(ctx context.Context, question string, stored any) ([]float64, error) {
				return m.ScoreFloatAnswers(ctx, question, stored.([][]float32))
			}}
	}
	if models[has.Pooling] != nil {
		out = append(out, floats("pooling (store)", has.Pooling, "pooled"))
	}
	if models[has.Attention] != nil {
		out = append(out, recompute("attention (recompute)", has.Attention), floats("attention (store)", has.Attention, "float"))
	}
	m := models[has.Hash]
	out = append(out, recompute("HAS (recompute)", has.Hash), hasMethod{name: "HAS (store, bits)", mode: has.Hash, store: "bits",
		prepare: func(ctx context.Context, texts []string) (any, error) {
			bms, err := m.EncodeAnswers(ctx, texts)
			if err != nil {
				return nil, err
			}
			x, err := index.NewMatrices(m.Dim())
			if err != nil {
				return nil, err
			}
			ids := make([]string, len(bms))
			for i := range ids {
				ids[i] = fmt.Sprint(i)
			}
			return x, x.Add(ids, bms)
		},
		score: func(ctx context.Context, question string, stored any) ([]float64, error) {
			x := stored.(*index.Matrices)
			q, err := m.EncodeQuestion(ctx, question)
			if err != nil {
				return nil, err
			}
			idx := make([]int, x.Len())
			for i := range idx {
				idx[i] = i
			}
			return x.Score(ctx, q, idx)
		}})
	return out
}

// run ranks qs by the method, timing each question's scoring.
func (meth hasMethod) run(ctx context.Context, qs []dataset.Question, step func(int)) (hasBenchRow, error) {
	var times []time.Duration
	r := rank.Func(func(ctx context.Context, q *dataset.Question) ([]float64, error) {
		texts := make([]string, len(q.Candidates))
		for i, c := range q.Candidates {
			texts[i] = c.Text
		}
		stored, err := meth.prepare(ctx, texts)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		s, err := meth.score(ctx, q.Text, stored)
		times = append(times, time.Since(start))
		step(1)
		return s, err
	})
	rep, err := evaluation.Evaluate(ctx, r, qs, evaluation.Options{Measures: []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("p@1")}})
	if err != nil {
		return hasBenchRow{}, err
	}
	slices.Sort(times)
	var sum time.Duration
	for _, t := range times {
		sum += t
	}
	return hasBenchRow{Method: meth.name, MAP: rep.Result.Mean["map"], P1: rep.Result.Mean["p@1"],
		MeanMs: millis(sum / time.Duration(max(len(times), 1))), P50Ms: millis(evaluation.Percentile(times, 0.5))}, nil
}

type hasBenchRow struct {
	Method         string  `json:"method"`
	MAP            float64 `json:"map"`
	P1             float64 `json:"p@1"`
	MeanMs         float64 `json:"mean_ms"`
	P50Ms          float64 `json:"p50_ms"`
	BytesPerAnswer float64 `json:"bytes_per_answer,omitempty"`
	PoolBytes      int64   `json:"pool_bytes,omitempty"`
}

type hasBenchReport struct {
	Machine    string        `json:"machine"`
	Data       string        `json:"data"`
	Questions  int           `json:"questions"`
	Candidates int           `json:"candidates"`
	Pool       *poolMemory   `json:"pool,omitempty"`
	Rows       []hasBenchRow `json:"rows"`
}

func (r hasBenchReport) print(w io.Writer, format string) error {
	switch format {
	case "json":
		return json.NewEncoder(w).Encode(r)
	case "table":
	default:
		return fmt.Errorf("--format %q: want table or json", format)
	}
	fmt.Fprintf(w, "%s: %d questions, %.1f candidates each, on %s\n", r.Data, r.Questions, float64(r.Candidates)/float64(max(r.Questions, 1)), r.Machine)
	if r.Pool != nil {
		fmt.Fprintf(w, "pool: %d distinct answers, %d words (%s), encoded by the HAS model in %.1fs\n", r.Pool.Answers, r.Pool.Words, strings.Join(r.Pool.Sources, ","), r.Pool.EncodeSeconds)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tMAP\tP@1\tms/question (mean)\tms/question (p50)\tbytes/answer\tpool memory\t")
	for _, row := range r.Rows {
		per, total := "-", "-"
		if row.PoolBytes > 0 {
			per, total = fmt.Sprintf("%.0f", row.BytesPerAnswer), humanBytes(row.PoolBytes)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.1f\t%.1f\t%s\t%s\t\n", row.Method, 100*row.MAP, 100*row.P1, row.MeanMs, row.P50Ms, per, total)
	}
	return tw.Flush()
}

// humanBytes writes n in MiB or GiB.
func humanBytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
