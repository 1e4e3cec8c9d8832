package bench

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/index"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/has"
	"github.com/as2/as2/rank"
)

// Progress starts showing a loop over total items called what: step gets
// the items done so far, and done ends it. A nil Progress shows nothing.
type Progress func(what string, total int) (step func(done int), done func())

func (p Progress) start(what string, total int) (step func(int), done func()) {
	if p == nil {
		return func(int) {}, func() {}
	}
	return p(what, total)
}

// HASModel checks that r, an opened model file, is a HAS model of mode
// (has.Hash, has.Attention or has.Pooling).
func HASModel(r rank.Ranker, mode string) (*has.Model, error) {
	m, ok := r.(*has.Model)
	if !ok {
		arch := fmt.Sprintf("%T", r)
		if c, ok := r.(interface{ Config() model.Config }); ok {
			arch = c.Config().Architecture
		}
		return nil, fmt.Errorf("a %s model, want a HAS model (as2 train --arch has)", arch)
	}
	if got := m.Hyper().Mode; got != mode {
		return nil, fmt.Errorf("a HAS model of mode %s, want %s", got, mode)
	}
	return m, nil
}

// PoolMemory is what a pool of answers costs to store.
type PoolMemory struct {
	Sources       []string `json:"sources"`
	Answers       int      `json:"answers"`
	Words         int64    `json:"words"`    // rows of the answers' matrices
	HashBytes     int64    `json:"bytes"`    // the bits, measured
	EncodeSeconds float64  `json:"encode_s"` // encoding the pool with the hash model
}

// What a method stores per answer, for PoolMemory.Bytes.
const (
	StorePooled = "pooled" // one float vector (pooling)
	StoreFloat  = "float"  // a float vector per word (attention)
	StoreBits   = "bits"   // a bit vector per word (HAS)
	StoreNone   = ""       // nothing but the text: encoded again per question (recompute)
)

// Bytes is what storing the pool takes for a method storing store (see
// StorePooled) at dimension d: per answer and in all. The float figures
// are computed for the pool's words (4 bytes an element); the bits are
// measured.
func (p *PoolMemory) Bytes(store string, d int) (per float64, total int64) {
	switch store {
	case StorePooled:
		total = int64(p.Answers) * has.PoolingBytes(d)
	case StoreFloat:
		total = has.FloatAttentionBytes(int(p.Words), d)
	case StoreBits:
		total = p.HashBytes
	default:
		return 0, 0
	}
	if p.Answers == 0 {
		return 0, total
	}
	return float64(total) / float64(p.Answers), total
}

// MeasurePool encodes texts, the pool's distinct answers (from sources),
// with the hash model m into an index.Matrices and measures it.
func MeasurePool(ctx context.Context, m *has.Model, texts, sources []string, progress Progress) (*PoolMemory, error) {
	step, done := progress.start("encoding the pool", len(texts))
	start := time.Now()
	bms, err := m.EncodeAnswersProgress(ctx, texts, step)
	done()
	if err != nil {
		return nil, fmt.Errorf("encoding the pool: %w", err)
	}
	secs := time.Since(start).Seconds()
	x, err := matrices(m.Dim(), bms, 1)
	if err != nil {
		return nil, err
	}
	mem := &PoolMemory{Sources: sources, Answers: x.Len(), HashBytes: x.CodeBytes(), EncodeSeconds: secs}
	for i := range x.Len() {
		mem.Words += int64(x.Matrix(i).Rows())
	}
	return mem, nil
}

// matrices stores bms in an index.Matrices under ids first, first+1, ...
func matrices(dim int, bms []index.BitMatrix, first int) (*index.Matrices, error) {
	x, err := index.NewMatrices(dim)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(bms))
	for i := range ids {
		ids[i] = strconv.Itoa(first + i)
	}
	return x, x.Add(ids, bms)
}

// hasMethod is one way of answering the benchmark's questions.
type hasMethod struct {
	Name, Mode string
	Store      string // what it stores per answer: StorePooled, StoreFloat, StoreBits or StoreNone
	// prepare stores q's candidates (untimed); score then ranks them.
	prepare func(ctx context.Context, texts []string) (any, error)
	score   func(ctx context.Context, question string, stored any) ([]float64, error)
}

// hasMethods are the methods the given models (by mode; has.Hash is
// required) allow, in Table 6's order.
func hasMethods(models map[string]*has.Model) []hasMethod {
	var out []hasMethod
	recompute := func(name, mode string) hasMethod {
		m := models[mode]
		return hasMethod{Name: name, Mode: mode, Store: StoreNone,
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
		return hasMethod{Name: name, Mode: mode, Store: store,
			prepare: func(ctx context.Context, texts []string) (any, error) { return m.EncodeFloatAnswers(ctx, texts) },
			score: func(ctx context.Context, question string, stored any) ([]float64, error) {
				return m.ScoreFloatAnswers(ctx, question, stored.([][]float32))
			}}
	}
	if models[has.Pooling] != nil {
		out = append(out, floats("pooling (store)", has.Pooling, StorePooled))
	}
	if models[has.Attention] != nil {
		out = append(out, recompute("attention (recompute)", has.Attention), floats("attention (store)", has.Attention, StoreFloat))
	}
	m := models[has.Hash]
	if m == nil {
		return out
	}
	out = append(out, recompute("HAS (recompute)", has.Hash), hasMethod{Name: "HAS (store, bits)", Mode: has.Hash, Store: StoreBits,
		prepare: func(ctx context.Context, texts []string) (any, error) {
			bms, err := m.EncodeAnswers(ctx, texts)
			if err != nil {
				return nil, err
			}
			return matrices(m.Dim(), bms, 0)
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

// Run ranks qs by the method, timing each question's scoring (storing
// its candidates is not timed); step gets the questions done so far.
func (meth hasMethod) Run(ctx context.Context, qs []dataset.Question, step func(done int)) (HASRow, error) {
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
		if step != nil {
			step(len(times))
		}
		return s, err
	})
	rep, err := evaluation.Evaluate(ctx, r, qs, evaluation.Options{Measures: []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("p@1")}})
	if err != nil {
		return HASRow{}, err
	}
	lat := Summarize(times)
	return HASRow{Method: meth.Name, MAP: rep.Result.Mean["map"], P1: rep.Result.Mean["p@1"], MeanMs: lat.Mean, P50Ms: lat.P50}, nil
}

// HASRow is one method measured.
type HASRow struct {
	Method         string  `json:"method"`
	MAP            float64 `json:"map"`
	P1             float64 `json:"p@1"`
	MeanMs         float64 `json:"mean_ms"`
	P50Ms          float64 `json:"p50_ms"`
	BytesPerAnswer float64 `json:"bytes_per_answer,omitempty"`
	PoolBytes      int64   `json:"pool_bytes,omitempty"`
}

// HASReport is as2 bench has: the HAS paper's Table 6.
type HASReport struct {
	Machine    string      `json:"machine"`
	Data       string      `json:"data"`
	Questions  int         `json:"questions"`
	Candidates int         `json:"candidates"`
	Pool       *PoolMemory `json:"pool,omitempty"`
	Rows       []HASRow    `json:"rows"`
}

// HAS ranks qs (described by data) by every method the models allow (by
// mode; has.Hash is required) and, given the pool's memory, adds what each
// method's storing takes.
func HAS(ctx context.Context, models map[string]*has.Model, qs []dataset.Question, data string, pool *PoolMemory, progress Progress) (HASReport, error) {
	if models[has.Hash] == nil {
		return HASReport{}, fmt.Errorf("no HAS model of mode %s: the benchmark is of it", has.Hash)
	}
	rep := HASReport{Machine: Machine(), Questions: len(qs), Data: data, Pool: pool}
	for _, q := range qs {
		rep.Candidates += len(q.Candidates)
	}
	for _, meth := range hasMethods(models) {
		step, done := progress.start(meth.Name, len(qs))
		row, err := meth.Run(ctx, qs, step)
		done()
		if err != nil {
			return HASReport{}, fmt.Errorf("%s: %w", meth.Name, err)
		}
		if pool != nil {
			row.BytesPerAnswer, row.PoolBytes = pool.Bytes(meth.Store, models[meth.Mode].Dim())
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

// Write prints r in format (see Formats).
func (r HASReport) Write(w io.Writer, format string) error { return writeReport(w, format, r, r.table) }

// table prints r for people.
func (r HASReport) table(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d questions, %.1f candidates each, on %s\n", r.Data, r.Questions, float64(r.Candidates)/float64(max(r.Questions, 1)), r.Machine)
	if r.Pool != nil {
		fmt.Fprintf(w, "pool: %d distinct answers, %d words (%s), encoded by the HAS model in %.1fs\n", r.Pool.Answers, r.Pool.Words, strings.Join(r.Pool.Sources, ","), r.Pool.EncodeSeconds)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tMAP\tP@1\tms/question (mean)\tms/question (p50)\tbytes/answer\tpool memory\t")
	for _, row := range r.Rows {
		per, total := "-", "-"
		if row.PoolBytes > 0 {
			per, total = fmt.Sprintf("%.0f", row.BytesPerAnswer), HumanBytes(row.PoolBytes)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.1f\t%.1f\t%s\t%s\t\n", row.Method, 100*row.MAP, 100*row.P1, row.MeanMs, row.P50Ms, per, total)
	}
	return tw.Flush()
}
