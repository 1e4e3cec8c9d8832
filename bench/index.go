package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
)

// VectorIndex is an index of sentence vectors.
type VectorIndex = index.Index[[]float32, []float32]

// IndexKinds are the indexes IndexOptions.Kinds may name.
var IndexKinds = []string{index.FlatKind, index.BinaryKind, index.HNSWKind, weaviate.Kind}

// IndexOptions say what as2 bench index measures.
type IndexOptions struct {
	Size     int     // vectors in the pool, padded by PadVectors
	Seed     uint64  // of the padding
	Noise    float64 // of the padding
	K        int     // answers a search returns
	Kinds    []string
	Rescore  []int // binary: one row for each
	EfSearch []int // hnsw and weaviate: one row for each
	HNSW     index.HNSWOptions
	// Weaviate is the server and class the weaviate kind fills (its Dim
	// and Create are set here). A class that holds objects is emptied
	// first only with WeaviateReplace; KeepRemote keeps it at the end.
	Weaviate        *weaviate.Options
	WeaviateReplace bool
	KeepRemote      bool
	// Log gets a line on what is being built (minutes for millions of
	// vectors); nil discards them.
	Log func(format string, a ...any)
}

// Check refuses bad options before anything is read. Each error names the
// option as prefix+name, name being as2 bench index's flag ("--" prefix
// there, "" for a Go caller).
func (o *IndexOptions) Check(prefix string) error {
	switch {
	case o.Size < 1:
		return fmt.Errorf("%ssize %d: must be at least 1", prefix, o.Size)
	case o.K < 1:
		return fmt.Errorf("%sk %d: must be at least 1", prefix, o.K)
	case !(o.Noise >= 0 && o.Noise <= 1):
		return fmt.Errorf("%snoise %v: want 0 to 1", prefix, o.Noise)
	}
	for _, k := range o.Kinds {
		if !slices.Contains(IndexKinds, k) {
			return fmt.Errorf("%skind %q: want %s", prefix, k, strings.Join(IndexKinds, ", "))
		}
		if k == weaviate.Kind && o.Weaviate == nil {
			return fmt.Errorf("%skind weaviate: no server given (IndexOptions.Weaviate)", prefix)
		}
	}
	for _, n := range o.Rescore {
		if n < o.K {
			return fmt.Errorf("%srescore %d: want at least %sk (%d)", prefix, n, prefix, o.K)
		}
	}
	for _, ef := range o.EfSearch {
		if ef < 1 {
			return fmt.Errorf("%sef-search %d: must be at least 1", prefix, ef)
		}
	}
	return nil
}

// IndexRow is one index (and search setting) measured.
type IndexRow struct {
	Index       string  `json:"index"`
	Settings    string  `json:"settings"`
	BuildSecs   float64 `json:"build_s"`
	MemoryBytes int64   `json:"memory_bytes"` // Go heap growth; -1: not measured
	P50ms       float64 `json:"p50_ms"`
	P99ms       float64 `json:"p99_ms"`
	MeanMs      float64 `json:"mean_ms"`
	Recall      float64 `json:"recall_at_k"`
}

// IndexReport is as2 bench index: issue 12's index speed table.
type IndexReport struct {
	Machine   string     `json:"machine"`
	Encoder   string     `json:"encoder"`
	Real      int        `json:"real_vectors"`
	Size      int        `json:"size"`
	Dim       int        `json:"dim"`
	Padding   string     `json:"padding"`
	Questions string     `json:"questions"`
	Queries   int        `json:"queries"`
	K         int        `json:"k"`
	Rows      []IndexRow `json:"rows"`
}

// Indexes measures the answer indexes of o.Kinds on a pool of o.Size
// vectors: flat's (real sentence vectors, under ids), padded out by
// PadVectors. Each is built from every vector (timed, its memory the
// growth of the Go heap), then searched for each question, one at a time,
// at each search setting: latency, and recall@k against flat, which is
// exact. enc encodes the questions (from source) and is named encName.
func Indexes(ctx context.Context, flat *index.Flat, ids []string, enc index.Encoder[[]float32, []float32], encName string, questions []string, source string, o IndexOptions) (IndexReport, error) {
	if err := o.Check(""); err != nil {
		return IndexReport{}, err
	}
	if len(questions) == 0 {
		return IndexReport{}, fmt.Errorf("no questions to search with")
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	logf("encoding %d questions with %s", len(questions), encName)
	qs := make([][]float32, len(questions))
	for i, t := range questions {
		var err error
		if qs[i], err = enc.EncodeQuestion(ctx, t); err != nil {
			return IndexReport{}, fmt.Errorf("encoding question %q: %w", t, err)
		}
	}
	ids, vecs, real, err := PadVectors(flat, ids, o.Size, o.Seed, o.Noise)
	if err != nil {
		return IndexReport{}, err
	}
	rep := IndexReport{Machine: Machine(), Encoder: encName, Real: real, Size: len(vecs), Dim: len(vecs[0]),
		Padding: fmt.Sprintf("seed %d, noise %g", o.Seed, o.Noise), Questions: source, Queries: len(qs), K: o.K}

	// Flat first: its hits are the truth the others' recall is taken against.
	var truth [][]index.Hit
	kinds := append([]string{index.FlatKind}, slices.DeleteFunc(slices.Clone(o.Kinds), func(k string) bool { return k == index.FlatKind })...)
	for _, kind := range kinds {
		if kind == weaviate.Kind {
			rows, err := o.weaviate(ctx, ids, vecs, qs, truth, logf)
			if err != nil {
				return IndexReport{}, fmt.Errorf("weaviate: %w", err)
			}
			rep.Rows = append(rep.Rows, rows...)
			continue
		}
		logf("building %s over %d vectors", kind, len(vecs))
		x, secs, mem, err := BuildIndex(ctx, kind, o.HNSW, ids, vecs, logf)
		if err != nil {
			return IndexReport{}, err
		}
		for _, set := range o.settings(kind) {
			desc, err := set(x)
			if err != nil {
				return IndexReport{}, err
			}
			row, hits, err := timeSearches(ctx, x.Search, qs, o.K, truth)
			if err != nil {
				return IndexReport{}, fmt.Errorf("%s: %w", kind, err)
			}
			if truth == nil {
				truth, row.Recall = hits, 1
			}
			row.Index, row.Settings, row.BuildSecs, row.MemoryBytes = kind, desc, secs, mem
			logf("%s %s: p50 %.2f ms, recall@%d %.4f", kind, desc, row.P50ms, o.K, row.Recall)
			rep.Rows = append(rep.Rows, row)
		}
		// x is dead here: its memory goes back before the next is built.
		runtime.GC()
		debug.FreeOSMemory()
	}
	return rep, nil
}

// BuildIndex builds an index of kind (flat, binary or hnsw) over vecs,
// logging a long build's progress: the index, the seconds and the growth
// of the Go heap.
func BuildIndex(ctx context.Context, kind string, hnsw index.HNSWOptions, ids []string, vecs [][]float32, logf func(string, ...any)) (VectorIndex, float64, int64, error) {
	if len(vecs) == 0 {
		return nil, 0, 0, fmt.Errorf("building %s: no vectors", kind)
	}
	dim := len(vecs[0])
	before := HeapBytes()
	start := time.Now()
	var x VectorIndex
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
	default:
		err = fmt.Errorf("want flat, binary or hnsw")
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("building %s: %w", kind, err)
	}
	secs := time.Since(start).Seconds()
	// A small index can take less than the garbage collected meanwhile:
	// that is no memory, not less than none.
	return x, secs, max(HeapBytes()-before, 0), nil
}

// logSteps is a progress callback for a long build of total answers: a
// line (format, with the answers done, total and seconds since start) each
// time another of steps parts is done.
func logSteps(logf func(string, ...any), format string, total, steps int, start time.Time) func(done int) {
	if logf == nil {
		return func(int) {}
	}
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
func (o *IndexOptions) settings(kind string) []func(VectorIndex) (string, error) {
	var out []func(VectorIndex) (string, error)
	switch kind {
	case index.BinaryKind:
		for _, n := range o.Rescore {
			out = append(out, func(x VectorIndex) (string, error) {
				x.(*index.Binary).Rescore = n
				return fmt.Sprintf("rescore %d", n), nil
			})
		}
	case index.HNSWKind:
		for _, ef := range o.EfSearch {
			out = append(out, func(x VectorIndex) (string, error) {
				h := x.(*index.HNSW)
				opts := h.Options()
				return fmt.Sprintf("M %d, efConstruction %d, efSearch %d, %d build workers", opts.M, opts.EfConstruction, ef, opts.Workers), h.SetEfSearch(ef)
			})
		}
	default:
		out = append(out, func(VectorIndex) (string, error) { return "exact", nil })
	}
	return out
}

// timeSearches runs every question through search for the top k, one at
// a time: the latencies, recall@k against truth (if any; else 0), and the
// hits.
func timeSearches(ctx context.Context, search func(context.Context, []float32, int) ([]index.Hit, error), qs [][]float32, k int, truth [][]index.Hit) (IndexRow, [][]index.Hit, error) {
	if truth != nil && len(truth) != len(qs) {
		return IndexRow{}, nil, fmt.Errorf("%d true answer lists for %d questions", len(truth), len(qs))
	}
	lat := make([]time.Duration, len(qs))
	hits := make([][]index.Hit, len(qs))
	recall := 0.0
	for i, q := range qs {
		start := time.Now()
		h, err := search(ctx, q, k)
		if err != nil {
			return IndexRow{}, nil, err
		}
		lat[i] = time.Since(start)
		hits[i] = h
		if truth != nil {
			recall += Recall(truth[i], h, k)
		}
	}
	s := Summarize(lat)
	return IndexRow{P50ms: s.P50, P99ms: s.P99, MeanMs: s.Mean, Recall: recall / float64(max(len(qs), 1))}, hits, nil
}

// Recall is recall@k: the share of want's first k ids among got's first
// k. Nothing wanted is recalled in full.
func Recall(want, got []index.Hit, k int) float64 {
	if len(want) == 0 || k < 1 {
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

// weaviate stores the vectors in the class o.Weaviate opens and times the
// questions' searches over loopback HTTP at each ef.
func (o *IndexOptions) weaviate(ctx context.Context, ids []string, vecs [][]float32, qs [][]float32, truth [][]index.Hit, logf func(string, ...any)) ([]IndexRow, error) {
	wo := *o.Weaviate
	wo.Dim, wo.Create = len(vecs[0]), true
	x, err := weaviate.OpenEmpty(ctx, wo, o.WeaviateReplace)
	if err != nil {
		return nil, err
	}
	logf("storing %d vectors in weaviate class %s at %s", len(vecs), x.Class(), x.URL())
	start := time.Now()
	if err := x.AddProgress(ctx, ids, vecs, logSteps(logf, "weaviate: %d of %d stored, %.0fs", len(vecs), 10, start)); err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()
	if x.Len() != len(vecs) {
		return nil, fmt.Errorf("class %s at %s holds %d objects after adding %d", x.Class(), x.URL(), x.Len(), len(vecs))
	}
	var rows []IndexRow
	for _, ef := range o.EfSearch {
		if err := x.SetEf(ctx, ef); err != nil {
			return nil, err
		}
		row, _, err := timeSearches(ctx, x.Search, qs, o.K, truth)
		if err != nil {
			return nil, err
		}
		row.Index, row.Settings, row.BuildSecs, row.MemoryBytes = weaviate.Kind, fmt.Sprintf("ef %d, the server's other defaults", ef), secs, -1
		logf("weaviate %s: p50 %.2f ms, recall@%d %.4f", row.Settings, row.P50ms, o.K, row.Recall)
		rows = append(rows, row)
	}
	if !o.KeepRemote {
		if err := x.Delete(ctx); err != nil {
			return nil, fmt.Errorf("deleting the class: %w", err)
		}
	}
	return rows, nil
}

// Write prints r in format (see Formats).
func (r IndexReport) Write(w io.Writer, format string) error {
	return writeReport(w, format, r, r.table)
}

// table prints r for people.
func (r IndexReport) table(w io.Writer) error {
	fmt.Fprintf(w, "answer indexes on %s\n", r.Machine)
	fmt.Fprintf(w, "pool: %d vectors of %d dimensions (%s): %d real, %d padded (%s)\n", r.Size, r.Dim, r.Encoder, r.Real, r.Size-r.Real, r.Padding)
	fmt.Fprintf(w, "questions: %d of %s, top %d, one at a time\n", r.Queries, r.Questions, r.K)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "index\tsettings\tbuild (s)\tmemory\tp50 (ms)\tp99 (ms)\tmean (ms)\trecall@%d\t\n", r.K)
	for _, row := range r.Rows {
		mem := "server"
		if row.MemoryBytes >= 0 {
			mem = HumanBytes(row.MemoryBytes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\t%.2f\t%.2f\t%.2f\t%.4f\t\n", row.Index, row.Settings, row.BuildSecs, mem, row.P50ms, row.P99ms, row.MeanMs, row.Recall)
	}
	return tw.Flush()
}

// Questions returns n questions drawn without replacement (seeded) from
// the file path (one a line, blank lines skipped) or, if path is "", from
// ReQA SQuAD (SQuAD v1.1 dev in the data folder), and where they came
// from. A missing file's error wraps fs.ErrNotExist.
func Questions(path string, n int, seed uint64) ([]string, string, error) {
	var texts []string
	source := path
	if path == "" {
		pool, err := reqa.Load(catalog.DefaultPath("squad"), "dev")
		if err != nil {
			return nil, "", fmt.Errorf("the questions (ReQA SQuAD): %w", err)
		}
		for _, q := range pool.Questions {
			texts = append(texts, q.Text)
		}
		source = "ReQA SQuAD (SQuAD v1.1 dev)"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		if texts, err = readLines(f); err != nil {
			return nil, "", fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(texts) == 0 {
		return nil, "", fmt.Errorf("%s: no questions", source)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	rng.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
	return texts[:min(max(n, 0), len(texts))], source, nil
}

// readLines returns r's non-blank lines, trimmed; an error names the line
// it stopped at (one over a MiB).
func readLines(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if t := strings.TrimSpace(sc.Text()); t != "" {
			out = append(out, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return out, nil
}
