package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
)

// benchIndex is as2 bench index: the answer indexes' build time, memory and
// query latency on a big pool of real sentence vectors (issue 12's index
// speed table).
type benchIndex struct {
	vectors, questions, format  string
	size, queries, k            int
	seed                        uint64
	noise                       float64
	kinds                       []string
	rescore, efSearch           []int
	hnsw                        index.HNSWOptions
	weaviateURL, weaviateClass  string
	weaviateReplace, keepRemote bool
}

func newBenchIndexCmd() *cobra.Command {
	c := &benchIndex{}
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build time, memory and query latency of the answer indexes on a pool of up to millions of vectors",
		Long: `Measure the answer indexes on a pool of --size vectors, issue 12's index speed
table. The vectors are the real sentence vectors of --vectors, a flat index
file of as2 index build (as2 data sentences writes every sentence as2 has),
padded out to --size when it holds fewer, by a seeded procedure: each added
vector mixes two stored vectors a and b drawn uniformly, λa + (1−λ)b with λ
uniform in [0, 1), plus Gaussian noise of --noise per component, scaled to
a's norm. The questions are --queries questions drawn (seeded) from ReQA
SQuAD (SQuAD v1.1 dev in the data folder) or from --questions (one per
line), encoded by the file's encoder.

Each index of --index (flat, binary, hnsw, weaviate) is built from all the
vectors, timed, and its memory taken as the growth of the Go heap (weaviate:
the server's, not measured here). Then every question searches it for the
top --k, one at a time: p50, p99 and mean latency, and recall@k against flat,
the exact answer. Binary is searched at each --rescore, HNSW and Weaviate at
each --ef-search. Weaviate needs a running server (scripts/weaviate.sh start); its
class --weaviate-class is emptied first only with --weaviate-replace, and
deleted at the end unless --keep-remote.

Building a 1M-vector HNSW graph takes about ten minutes on 2 cores, and
storing it in Weaviate about fifteen: lines on standard error say what is
being built.`,
		Example: `  as2 data sentences --out sentences.tsv
  as2 index build --encoder use-lite --index flat --answers sentences.tsv --out sentences-use.idx
  as2 bench index --vectors sentences-use.idx --size 1000000
  as2 bench index --vectors sentences-use.idx --size 1000000 --index weaviate --weaviate-replace`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.vectors, "vectors", "", "flat index file of real sentence vectors (as2 index build --index flat)")
	f.IntVar(&c.size, "size", 1_000_000, "vectors in the pool: the file's, padded out by the seeded procedure (or its first --size)")
	f.Uint64Var(&c.seed, "seed", 1, "seed of the padding and of the questions drawn")
	f.Float64Var(&c.noise, "noise", 0.01, "padding: standard deviation of the Gaussian noise added to each component")
	f.IntVar(&c.queries, "queries", 1000, "questions searched")
	f.StringVar(&c.questions, "questions", "", "file of questions, one per line (default: ReQA SQuAD's questions)")
	f.IntVar(&c.k, "k", 10, "answers a search returns")
	f.StringSliceVar(&c.kinds, "index", []string{index.FlatKind, index.BinaryKind, index.HNSWKind}, "indexes measured: flat, binary, hnsw, weaviate")
	f.IntSliceVar(&c.rescore, "rescore", []int{index.DefaultRescore}, "binary: nearest codes rescored by their floats (a list: one row each)")
	f.IntVar(&c.hnsw.M, "m", index.DefaultM, "hnsw: neighbours per node and layer")
	f.IntVar(&c.hnsw.EfConstruction, "ef-construction", index.DefaultEfConstruction, "hnsw: candidates an insertion considers")
	f.IntVar(&c.hnsw.Workers, "workers", runtime.GOMAXPROCS(0), "hnsw: insertions run at once")
	f.IntSliceVar(&c.efSearch, "ef-search", []int{index.DefaultEfSearch}, "hnsw and weaviate: candidates a search keeps (a list: one row each)")
	f.StringVar(&c.weaviateURL, "weaviate-url", weaviate.DefaultURL, "weaviate: the server")
	f.StringVar(&c.weaviateClass, "weaviate-class", "As2Bench", "weaviate: the class the benchmark fills")
	f.BoolVar(&c.weaviateReplace, "weaviate-replace", false, "weaviate: delete the class's objects first if it has any")
	f.BoolVar(&c.keepRemote, "keep-remote", false, "weaviate: keep the class at the end")
	f.StringVar(&c.format, "format", "table", "output: table or json")
	return cmd
}

// indexBenchRow is one index (and search setting) measured.
type indexBenchRow struct {
	Index       string  `json:"index"`
	Settings    string  `json:"settings"`
	BuildSecs   float64 `json:"build_s"`
	MemoryBytes int64   `json:"memory_bytes"` // Go heap growth; -1: not measured
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
	MeanMs      float64 `json:"mean_ms"`
	Recall      float64 `json:"recall_at_k"`
}

type indexBenchReport struct {
	Machine   string          `json:"machine"`
	Encoder   string          `json:"encoder"`
	Real      int             `json:"real_vectors"`
	Size      int             `json:"size"`
	Dim       int             `json:"dim"`
	Padding   string          `json:"padding"`
	Questions string          `json:"questions"`
	Queries   int             `json:"queries"`
	K         int             `json:"k"`
	Rows      []indexBenchRow `json:"rows"`
}

func (c *benchIndex) check() error {
	switch {
	case c.vectors == "":
		return fmt.Errorf("--vectors is required: a flat index file (as2 index build --index flat)")
	case c.size < 1:
		return fmt.Errorf("--size %d: must be at least 1", c.size)
	case c.queries < 1:
		return fmt.Errorf("--queries %d: must be at least 1", c.queries)
	case c.k < 1:
		return fmt.Errorf("--k %d: must be at least 1", c.k)
	case !(c.noise >= 0 && c.noise <= 1):
		return fmt.Errorf("--noise %v: want 0 to 1", c.noise)
	case c.format != "table" && c.format != "json":
		return fmt.Errorf("--format %q: want table or json", c.format)
	}
	for _, k := range c.kinds {
		if k != index.FlatKind && k != index.BinaryKind && k != index.HNSWKind && k != weaviate.Kind {
			return fmt.Errorf("--index %q: want flat, binary, hnsw or weaviate", k)
		}
	}
	for _, n := range c.rescore {
		if n < c.k {
			return fmt.Errorf("--rescore %d: want at least --k (%d)", n, c.k)
		}
	}
	for _, ef := range c.efSearch {
		if ef < 1 {
			return fmt.Errorf("--ef-search %d: must be at least 1", ef)
		}
	}
	return nil
}

func (c *benchIndex) run(ctx context.Context, stdout, stderr io.Writer) error {
	if err := c.check(); err != nil {
		return err
	}
	b, err := readIndexFile("--vectors", c.vectors, index.ReadBundle)
	if err != nil {
		return err
	}
	flat, ok := b.Index.(*index.Flat)
	if !ok {
		return fmt.Errorf("--vectors %s holds a %s index: want a flat one (as2 index build --index flat)", c.vectors, b.Index.Kind())
	}
	o, err := openFromParams(b.Encoder, "", runtime.GOMAXPROCS(0))
	if err != nil {
		return fmt.Errorf("--vectors %s: %w", c.vectors, err)
	}
	if o.vec == nil {
		return fmt.Errorf("--vectors %s: %s does not encode questions as vectors", c.vectors, o.desc)
	}
	texts, source, err := c.questionTexts()
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	logf("encoding %d questions with %s", len(texts), o.desc)
	qs := make([][]float32, len(texts))
	for i, t := range texts {
		if qs[i], err = o.vec.EncodeQuestion(ctx, t); err != nil {
			return fmt.Errorf("encoding question %q: %w", t, err)
		}
	}
	ids, vecs, real := padVectors(flat, b.IDs, c.size, c.seed, c.noise)
	rep := indexBenchReport{Machine: machine(), Encoder: o.desc, Real: real, Size: len(vecs), Dim: len(vecs[0]),
		Padding: fmt.Sprintf("seed %d, noise %g", c.seed, c.noise), Questions: source, Queries: len(qs), K: c.k}

	// Flat first: its hits are the truth the others' recall is taken against.
	var truth [][]index.Hit
	kinds := append([]string{index.FlatKind}, slices.DeleteFunc(slices.Clone(c.kinds), func(k string) bool { return k == index.FlatKind })...)
	for _, kind := range kinds {
		if kind == weaviate.Kind {
			rows, err := c.benchWeaviate(ctx, ids, vecs, qs, truth, logf)
			if err != nil {
				return err
			}
			rep.Rows = append(rep.Rows, rows...)
			continue
		}
		logf("building %s over %d vectors", kind, len(vecs))
		x, secs, mem, err := buildIndex(ctx, kind, len(vecs[0]), c.hnsw, ids, vecs, logf)
		if err != nil {
			return err
		}
		for _, set := range c.settings(kind) {
			desc, err := set(x)
			if err != nil {
				return err
			}
			row, hits, err := timeSearches(ctx, x.Search, qs, c.k, truth)
			if err != nil {
				return fmt.Errorf("%s: %w", kind, err)
			}
			if truth == nil {
				truth, row.Recall = hits, 1
			}
			row.Index, row.Settings, row.BuildSecs, row.MemoryBytes = kind, desc, secs, mem
			logf("%s %s: p50 %.2f ms, recall@%d %.4f", kind, desc, row.P50ms, c.k, row.Recall)
			rep.Rows = append(rep.Rows, row)
		}
		// x is dead here: its memory goes back before the next is built.
		runtime.GC()
		debug.FreeOSMemory()
	}
	return rep.print(stdout, c.format)
}

// questionTexts are the questions searched: --queries of them, drawn
// without replacement (seeded), and where they came from.
func (c *benchIndex) questionTexts() ([]string, string, error) {
	var texts []string
	source := c.questions
	if c.questions == "" {
		pool, err := reqa.Load(catalog.DefaultPath("squad"), "dev")
		if err != nil {
			return nil, "", fmt.Errorf("the questions (ReQA SQuAD; or give --questions FILE): %w", err)
		}
		for _, q := range pool.Questions {
			texts = append(texts, q.Text)
		}
		source = "ReQA SQuAD (SQuAD v1.1 dev)"
	} else {
		f, err := os.Open(c.questions)
		if err != nil {
			return nil, "", notFound("--questions", c.questions, err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if t := strings.TrimSpace(sc.Text()); t != "" {
				texts = append(texts, t)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, "", fmt.Errorf("--questions %s: %w", c.questions, err)
		}
		if len(texts) == 0 {
			return nil, "", fmt.Errorf("--questions %s: no questions", c.questions)
		}
	}
	rng := rand.New(rand.NewPCG(c.seed, 3))
	rng.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
	return texts[:min(c.queries, len(texts))], source, nil
}

// padVectors returns size vectors, their ids and how many are real: x's (the first size, under
// their ids), then, if x holds fewer, seeded mixtures of them: two stored
// vectors a and b drawn uniformly, λa + (1−λ)b with λ uniform in [0, 1),
// plus Gaussian noise of standard deviation noise per component, scaled to
// a's norm (so a pool of unit vectors stays one). The mixtures lie between
// real sentences, where a question's near neighbours are, so they compete
// with the real answers instead of sitting apart as random vectors would.
func padVectors(x *index.Flat, xids []string, size int, seed uint64, noise float64) ([]string, [][]float32, int) {
	n := min(x.Len(), size)
	ids, vecs := make([]string, size), make([][]float32, size)
	for i := range n {
		ids[i], vecs[i] = xids[i], x.Vector(i)
	}
	rng := rand.New(rand.NewPCG(seed, 4))
	dim := x.Dim()
	for i := n; i < size; i++ {
		a, b := x.Vector(rng.IntN(n)), x.Vector(rng.IntN(n))
		l := rng.Float64()
		v := make([]float32, dim)
		var sv, sa float64
		for j := range v {
			e := l*float64(a[j]) + (1-l)*float64(b[j]) + noise*rng.NormFloat64()
			v[j] = float32(e)
			sv += e * e
			sa += float64(a[j]) * float64(a[j])
		}
		if sv > 0 {
			s := float32(math.Sqrt(sa / sv))
			for j := range v {
				v[j] *= s
			}
		}
		ids[i], vecs[i] = fmt.Sprintf("pad-%d", i-n+1), v
	}
	return ids, vecs, n
}

// vectorIndex is an index of sentence vectors.
type vectorIndex = index.Index[[]float32, []float32]

// heapBytes is the Go heap in use after a collection.
func heapBytes() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// buildIndex builds an index of kind over vecs: the index, the seconds
// and the heap it took.
func buildIndex(ctx context.Context, kind string, dim int, hnsw index.HNSWOptions, ids []string, vecs [][]float32, logf func(string, ...any)) (vectorIndex, float64, int64, error) {
	before := heapBytes()
	start := time.Now()
	var x vectorIndex
	var err error
	switch kind {
	case index.FlatKind:
		var f *index.Flat
		if f, err = index.NewFlat(dim); err == nil {
			x, err = f, f.Add(ids, vecs)
		}
	case index.BinaryKind:
		var bx *index.Binary
		if bx, err = index.NewBinary(dim); err == nil {
			x, err = bx, bx.Add(ids, vecs)
		}
	case index.HNSWKind:
		var h *index.HNSW
		if h, err = index.NewHNSW(dim, hnsw); err == nil {
			x, err = h, h.AddProgress(ctx, ids, vecs, logSteps(logf, "hnsw: %d of %d inserted, %.0fs", len(vecs), 20, start))
		}
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("building %s: %w", kind, err)
	}
	secs := time.Since(start).Seconds()
	return x, secs, heapBytes() - before, nil
}

// logSteps is a progress callback for a long build of total answers: a
// line (format, with the answers done, total and seconds since start) each
// time another of steps parts is done.
func logSteps(logf func(string, ...any), format string, total, steps int, start time.Time) func(done int) {
	every := max(total/steps, 1)
	next := every
	return func(done int) {
		if done >= next {
			logf("  "+format, done, total, time.Since(start).Seconds())
			next = (done/every + 1) * every
		}
	}
}

// settings are the search settings measured on an index of kind: each
// sets one on the index and says what it is.
func (c *benchIndex) settings(kind string) []func(vectorIndex) (string, error) {
	var out []func(vectorIndex) (string, error)
	switch kind {
	case index.BinaryKind:
		for _, n := range c.rescore {
			out = append(out, func(x vectorIndex) (string, error) {
				x.(*index.Binary).Rescore = n
				return fmt.Sprintf("rescore %d", n), nil
			})
		}
	case index.HNSWKind:
		for _, ef := range c.efSearch {
			out = append(out, func(x vectorIndex) (string, error) {
				h := x.(*index.HNSW)
				o := h.Options()
				return fmt.Sprintf("M %d, efConstruction %d, efSearch %d, %d build workers", o.M, o.EfConstruction, ef, o.Workers), h.SetEfSearch(ef)
			})
		}
	default:
		out = append(out, func(vectorIndex) (string, error) { return "exact", nil })
	}
	return out
}

// timeSearches runs every question through search, one at a time: the
// latencies, recall@k against truth (if any), and the hits.
func timeSearches(ctx context.Context, search func(context.Context, []float32, int) ([]index.Hit, error), qs [][]float32, k int, truth [][]index.Hit) (indexBenchRow, [][]index.Hit, error) {
	lat := make([]time.Duration, len(qs))
	hits := make([][]index.Hit, len(qs))
	var total time.Duration
	recall := 0.0
	for i, q := range qs {
		start := time.Now()
		h, err := search(ctx, q, k)
		if err != nil {
			return indexBenchRow{}, nil, err
		}
		lat[i] = time.Since(start)
		total += lat[i]
		hits[i] = h
		if truth != nil {
			recall += overlap(truth[i], h, k)
		}
	}
	slices.Sort(lat)
	return indexBenchRow{P50ms: millis(evaluation.Percentile(lat, 0.5)), P99ms: millis(evaluation.Percentile(lat, 0.99)),
		MeanMs: millis(total / time.Duration(len(qs))), Recall: recall / float64(len(qs))}, hits, nil
}

// overlap is the share of want's first k ids among got's.
func overlap(want, got []index.Hit, k int) float64 {
	if len(want) == 0 {
		return 1
	}
	in := map[string]bool{}
	for _, h := range got[:min(k, len(got))] {
		in[h.ID] = true
	}
	n := 0
	for _, h := range want[:min(k, len(want))] {
		if in[h.ID] {
			n++
		}
	}
	return float64(n) / float64(min(k, len(want)))
}

// benchWeaviate stores the vectors in the Weaviate class c names and
// times the questions' searches over loopback HTTP at each --ef-search.
func (c *benchIndex) benchWeaviate(ctx context.Context, ids []string, vecs [][]float32, qs [][]float32, truth [][]index.Hit, logf func(string, ...any)) ([]indexBenchRow, error) {
	x, err := openEmptyClass(ctx, weaviate.Options{URL: c.weaviateURL, Class: c.weaviateClass, Dim: len(vecs[0]), Create: true}, c.weaviateReplace)
	if err != nil {
		return nil, fmt.Errorf("--index weaviate: %w", err)
	}
	logf("storing %d vectors in weaviate class %s at %s", len(vecs), x.Class(), x.URL())
	start := time.Now()
	if err := x.AddProgress(ctx, ids, vecs, logSteps(logf, "weaviate: %d of %d stored, %.0fs", len(vecs), 10, start)); err != nil {
		return nil, fmt.Errorf("--index weaviate: %w", err)
	}
	secs := time.Since(start).Seconds()
	if x.Len() != len(vecs) {
		return nil, fmt.Errorf("--index weaviate: class %s at %s holds %d objects after adding %d", x.Class(), x.URL(), x.Len(), len(vecs))
	}
	var rows []indexBenchRow
	for _, ef := range c.efSearch {
		if err := x.SetEf(ctx, ef); err != nil {
			return nil, fmt.Errorf("--index weaviate: %w", err)
		}
		row, _, err := timeSearches(ctx, x.Search, qs, c.k, truth)
		if err != nil {
			return nil, fmt.Errorf("--index weaviate: %w", err)
		}
		row.Index, row.Settings, row.BuildSecs, row.MemoryBytes = weaviate.Kind, fmt.Sprintf("ef %d, the server's other defaults", ef), secs, -1
		logf("weaviate %s: p50 %.2f ms, recall@%d %.4f", row.Settings, row.P50ms, c.k, row.Recall)
		rows = append(rows, row)
	}
	if !c.keepRemote {
		if err := x.Delete(ctx); err != nil {
			return nil, fmt.Errorf("--index weaviate: deleting the class: %w", err)
		}
	}
	return rows, nil
}

func (r indexBenchReport) print(w io.Writer, format string) error {
	if format == "json" {
		return json.NewEncoder(w).Encode(r)
	}
	fmt.Fprintf(w, "answer indexes on %s\n", r.Machine)
	fmt.Fprintf(w, "pool: %d vectors of %d dimensions (%s): %d real, %d padded (%s)\n", r.Size, r.Dim, r.Encoder, r.Real, r.Size-r.Real, r.Padding)
	fmt.Fprintf(w, "questions: %d of %s, top %d, one at a time\n", r.Queries, r.Questions, r.K)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "index\tsettings\tbuild (s)\tmemory\tp50 (ms)\tp99 (ms)\tmean (ms)\trecall@%d\t\n", r.K)
	for _, row := range r.Rows {
		mem := "server"
		if row.MemoryBytes >= 0 {
			mem = humanBytes(row.MemoryBytes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\t%.2f\t%.2f\t%.2f\t%.4f\t\n", row.Index, row.Settings, row.BuildSecs, mem, row.P50ms, row.P99ms, row.MeanMs, row.Recall)
	}
	return tw.Flush()
}
