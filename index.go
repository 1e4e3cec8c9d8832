package as2

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/evaluation/retrieval"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
	"github.com/as2/as2/model"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/serve"
)

// RetrieverHelp says what a retriever spec (WithRetriever) may be, for
// help texts.
const RetrieverHelp = "bm25, use-lite[:PATH], or a model file that encodes answers for an index (as2 train --arch dual: vectors; --arch has: binary matrices)"

// WeaviateKind is the kind of BuildIndex that stores the answers' vectors
// in a Weaviate server (WithWeaviate) instead of the file.
const WeaviateKind = weaviate.Kind

// Index is a pool of answers ready to search: the answers' ids and texts,
// an index of their encodings (package index), and the retriever that
// encodes a question and searches it. OpenIndex reads one from an index
// file, BuildIndex encodes answers into one, and WriteTo writes its file.
// Fuse and Rerank derive an Index that searches its answers in stages
// (hybrid retrieval, a reranking cascade); EvaluateRetrieval measures one
// on a ReQA pool.
type Index struct {
	bundle    *index.Bundle
	enc       *answerEncoder
	retriever index.Retriever
	texts     map[string]string
	// desc, if set, replaces the description of a fused or reranked
	// Index, whose file would not say how it searches: WriteTo refuses it.
	desc string
}

// IndexHit is an answer an Index found for a question.
type IndexHit struct {
	ID, Text string
	// Score is the retriever's: BM25, the vectors' inner product, or HAS's
	// attention score.
	Score float64
}

// IndexOption configures OpenIndex and BuildIndex.
type IndexOption func(*indexConfig)

type indexConfig struct {
	retriever     string      // BuildIndex: the spec
	model         model.Model // BuildIndex: a loaded model instead of a spec
	kind          string      // BuildIndex: "" for the retriever's own
	build         index.Options
	search        index.SearchOptions
	retrieverFile string // OpenIndex: the model file, moved
	workers       int
	encoding      func(done int)
	indexing      func(done int)
	weaviate      weaviate.Options
	replace       bool
	built         index.Stored
	builtFile     string
}

// WithRetriever names what encodes the answers and questions of
// BuildIndex: bm25 (an inverted index, rank's BM25; the default),
// use-lite[:PATH] (USE-Lite sentence vectors, zero-shot; the path
// defaults to uselite.DefaultPath()), or a model file whose architecture
// encodes answers for an index (dual: vectors; a hash-mode HAS: binary
// matrices). OpenIndex takes it from the file.
func WithRetriever(spec string) IndexOption { return func(c *indexConfig) { c.retriever = spec } }

// WithRetrieverModel is WithRetriever with a model already loaded (a dual
// model being trained, say). An index built with it records no file to
// rebuild its question encoder from, so WriteTo refuses it.
func WithRetrieverModel(m model.Model) IndexOption { return func(c *indexConfig) { c.model = m } }

// WithKind is the index kind BuildIndex stores sentence vectors in:
// flat (exact; the default), binary (sign codes, then a rescore by the
// floats), hnsw (a graph, approximate), or WeaviateKind. BM25 and HAS
// retrievers have their own kinds (bm25, matrices) and refuse another.
func WithKind(kind string) IndexOption { return func(c *indexConfig) { c.kind = kind } }

// WithIndexOptions are the kind's build parameters (binary's rescore,
// hnsw's graph, bm25's k1, b, stopwords and stemming).
func WithIndexOptions(o index.Options) IndexOption { return func(c *indexConfig) { c.build = o } }

// WithSearch changes the search-time parameters of an hnsw or binary
// index (zero fields keep the index's own); for another kind it is an
// error.
func WithSearch(o index.SearchOptions) IndexOption { return func(c *indexConfig) { c.search = o } }

// WithRetrieverFile gives OpenIndex the model file an index file records,
// moved: it must have the recorded SHA-256.
func WithRetrieverFile(path string) IndexOption {
	return func(c *indexConfig) { c.retrieverFile = path }
}

// WithIndexWorkers is the goroutines that encode answers (use-lite) and
// insert them into an hnsw graph (default 1).
func WithIndexWorkers(n int) IndexOption { return func(c *indexConfig) { c.workers = n } }

// WithIndexProgress reports BuildIndex's answers encoded and, for hnsw,
// inserted into the graph (either may be nil).
func WithIndexProgress(encoding, indexing func(done int)) IndexOption {
	return func(c *indexConfig) { c.encoding, c.indexing = encoding, indexing }
}

// WithWeaviate says where WeaviateKind stores the vectors (URL and
// Class); a class that already holds objects is refused unless replace,
// which deletes them (they may be another pool's).
func WithWeaviate(o weaviate.Options, replace bool) IndexOption {
	return func(c *indexConfig) { c.weaviate, c.replace = o, replace }
}

// WithBuilt gives BuildIndex an index already built over the answers
// (read with index.Read) instead of encoding them again: it must hold as
// many answers, encoded by the retriever.
func WithBuilt(x index.Stored) IndexOption { return func(c *indexConfig) { c.built = x } }

// WithBuiltFile is WithBuilt with the index read from a file (a
// stand-alone index, as Stored().WriteTo writes it). With WithKind, an
// index of another kind is refused.
func WithBuiltFile(path string) IndexOption { return func(c *indexConfig) { c.builtFile = path } }

func newIndexConfig(opts []IndexOption) *indexConfig {
	c := &indexConfig{retriever: "bm25", workers: 1}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BuildIndex encodes the answers (texts[i] under ids[i], ids unique) with
// the retriever WithRetriever names into an index of the WithKind kind,
// ready to search and to write as an index file.
func BuildIndex(ctx context.Context, ids, texts []string, opts ...IndexOption) (*Index, error) {
	if len(ids) != len(texts) {
		return nil, fmt.Errorf("as2: %d ids for %d answers", len(ids), len(texts))
	}
	c := newIndexConfig(opts)
	enc, err := c.openEncoder()
	if err != nil {
		return nil, err
	}
	var x index.Stored
	switch {
	case c.built != nil || c.builtFile != "":
		if x, err = c.readBuilt(len(ids)); err != nil {
			return nil, err
		}
	case c.kind == WeaviateKind:
		if x, err = enc.buildWeaviate(ctx, c, ids, texts); err != nil {
			return nil, err
		}
	default:
		if x, err = enc.newIndex(c); err != nil {
			return nil, err
		}
		if err := enc.build(ctx, x, ids, texts, c.indexing); err != nil {
			return nil, err
		}
	}
	y, err := newIndex(&index.Bundle{Encoder: enc.params, IDs: ids, Texts: texts, Index: x}, enc, c.search)
	if err != nil && c.builtFile != "" {
		return nil, fmt.Errorf("%s: %w", c.builtFile, err)
	}
	return y, err
}

// readBuilt returns the built index of WithBuilt or WithBuiltFile, which
// must hold n answers.
func (c *indexConfig) readBuilt(n int) (index.Stored, error) {
	x, name := c.built, "a built index"
	if x == nil {
		f, err := os.Open(c.builtFile)
		if err != nil {
			return nil, err // names the path, and wraps fs.ErrNotExist
		}
		defer f.Close()
		if x, err = index.Read(f); err != nil {
			return nil, fmt.Errorf("%s: %w", c.builtFile, err)
		}
		name = c.builtFile + ": the file"
	}
	switch {
	case c.kind != "" && x.Kind() != c.kind:
		return nil, fmt.Errorf("%s holds a %q index, not a %q one", name, x.Kind(), c.kind)
	case x.Len() != n:
		return nil, fmt.Errorf("as2: %s of %d answers for %d", name, x.Len(), n)
	}
	return x, nil
}

// OpenIndex opens the index file at path (as2 index build, or WriteTo)
// for searching, rebuilding its question encoder from what the file
// records: bm25's parameters, or a model file's path and SHA-256 (a
// changed file is refused; WithRetrieverFile points at a moved copy). An
// index whose answers live in Weaviate searches that server: an
// unreachable one fails the searches, not the opening.
func OpenIndex(ctx context.Context, path string, opts ...IndexOption) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // names the path, and wraps fs.ErrNotExist
	}
	defer f.Close()
	x, err := ReadIndex(ctx, f, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// ReadIndex is OpenIndex from a reader.
func ReadIndex(ctx context.Context, r io.Reader, opts ...IndexOption) (*Index, error) {
	c := newIndexConfig(opts)
	b, err := index.ReadBundle(r)
	if err != nil {
		return nil, err
	}
	enc, err := openRecorded(b.Encoder, c)
	if err != nil {
		return nil, err
	}
	return newIndex(b, enc, c.search)
}

func newIndex(b *index.Bundle, enc *answerEncoder, search index.SearchOptions) (*Index, error) {
	if err := search.Apply(b.Index); err != nil {
		return nil, err
	}
	r, err := enc.retriever(b.Index)
	if err != nil {
		return nil, err
	}
	texts := make(map[string]string, len(b.IDs))
	for i, id := range b.IDs {
		texts[id] = b.Texts[i]
	}
	return &Index{bundle: b, enc: enc, retriever: r, texts: texts}, nil
}

// Search returns the k best answers for question, best first.
func (x *Index) Search(ctx context.Context, question string, k int) ([]IndexHit, error) {
	hits, err := x.retriever.Retrieve(ctx, question, k)
	if err != nil {
		return nil, err
	}
	out := make([]IndexHit, len(hits))
	for i, h := range hits {
		out[i] = IndexHit{ID: h.ID, Text: x.texts[h.ID], Score: h.Score}
	}
	return out, nil
}

// Retriever is the index as an index.Retriever (hits carry ids only).
func (x *Index) Retriever() index.Retriever { return x.retriever }

// Len is the number of answers.
func (x *Index) Len() int { return len(x.bundle.IDs) }

// IDs are the answers' ids, in the order built.
func (x *Index) IDs() []string { return x.bundle.IDs }

// Text is the text of the answer with id ("" if none).
func (x *Index) Text(id string) string { return x.texts[id] }

// Stored is the index of the answers' encodings.
func (x *Index) Stored() index.Stored { return x.bundle.Index }

// QuestionVectors is the encoder of a sentence-vector index's questions
// (nil for bm25 and HAS), for callers that search vectors themselves.
func (x *Index) QuestionVectors() index.Encoder[[]float32, []float32] { return x.enc.vec }

// Description says what encodes the answers and what holds them, for
// people: "use-lite zero-shot, hnsw index (M 16, efConstruction 200,
// efSearch 100)".
func (x *Index) Description() string {
	if x.desc != "" {
		return x.desc
	}
	if x.enc.bm25 != nil || x.enc.mat != nil { // their index is their own: nothing to add
		return x.enc.desc
	}
	return x.enc.desc + ", " + index.Describe(x.bundle.Index)
}

// WriteTo writes the index file (as2's checked, versioned index format,
// kind "bundle"): the answers, their index, and how to rebuild the
// question encoder.
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	switch {
	case x.enc.params == nil:
		return 0, errors.New("as2: an index built WithRetrieverModel has no file to record: build it WithRetriever")
	case x.desc != "":
		return 0, errors.New("as2: a fused or reranked index has no file format: write the indexes it was made from")
	}
	return x.bundle.WriteTo(w)
}

// Write is WriteTo for callers that want only the error, such as a
// function that writes a file atomically.
func (x *Index) Write(w io.Writer) error {
	_, err := x.WriteTo(w)
	return err
}

// WriteStored writes x's index alone (Stored), without the answers' texts
// or the question encoder: a stand-alone index that WithBuiltFile reads.
func (x *Index) WriteStored(w io.Writer) error {
	_, err := x.bundle.Index.WriteTo(w)
	return err
}

// Fuse is hybrid retrieval (index.Fused): x's and second's depth best
// answers, second's list weighted by weight, merged by fusion
// (index.FusionRRF or FusionRelative). second must hold x's answers.
func (x *Index) Fuse(second *Index, weight float64, fusion string, depth int) (*Index, error) {
	f := index.Fused{Retrievers: []index.Retriever{x.retriever, second.retriever}, Weights: []float64{1, weight}, Fusion: fusion, Depth: depth}
	switch {
	case !(weight > 0):
		return nil, fmt.Errorf("as2: fusion weight %g: want more than 0", weight)
	case depth < 1:
		return nil, fmt.Errorf("as2: fusion depth %d: want at least 1", depth)
	case !slices.Equal(x.IDs(), second.IDs()):
		return nil, errors.New("as2: fusion of indexes of different answers")
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	if fusion == "" {
		fusion = index.FusionRRF
	}
	y := *x
	y.retriever = f
	y.desc = fmt.Sprintf("%s fusion of %s and %s (weight %g; top %d each)", fusion, x.Description(), second.Description(), weight, depth)
	return &y, nil
}

// Rerank is the cascade retrieve → rank (index.Reranked): x's depth best
// answers, ordered by r (named name, for Description), with the retrieval
// score's weight retrievalWeight (0: r's order alone).
func (x *Index) Rerank(r rank.Ranker, name string, depth int, retrievalWeight float64) (*Index, error) {
	switch {
	case depth < 1:
		return nil, fmt.Errorf("as2: rerank depth %d: want at least 1", depth)
	case !(retrievalWeight >= 0):
		return nil, fmt.Errorf("as2: retrieval weight %g: want 0 or more", retrievalWeight)
	}
	y := *x
	y.retriever = index.Reranked{Retriever: x.retriever, Ranker: r, Depth: depth, Texts: x.texts, RetrievalWeight: retrievalWeight}
	y.desc = fmt.Sprintf("%s → %s (the %d retrieved reranked)", x.Description(), name, depth)
	if retrievalWeight > 0 {
		y.desc += fmt.Sprintf(", fused with the retrieval score (weight %g)", retrievalWeight)
	}
	return &y, nil
}

// IndexSettings say how answers are encoded and indexed, as as2 index
// build and index eval take them: the retriever spec, the index kind and
// the kinds' parameters.
type IndexSettings struct {
	Retriever, Kind string
	Rescore         int
	HNSW            index.HNSWOptions
	BM25            rank.Options
	Workers         int
}

// Options are the IndexOptions for s, and the index.Options among them.
// Only the settings given(setting) reports as set are passed (nil: all),
// so that a vector index's setting given for bm25 or HAS is refused rather
// than ignored. Errors are *ConfigError.
func (s IndexSettings) Options(given func(setting string) bool) (index.Options, []IndexOption, error) {
	if given == nil {
		given = func(string) bool { return true }
	}
	var o index.Options
	if !(s.BM25.K1 >= 0 && s.BM25.K1 < 1e6 && s.BM25.B >= 0 && s.BM25.B <= 1) {
		return o, nil, configErr("k1", fmt.Sprintf("%g, --b %g", s.BM25.K1, s.BM25.B), errors.New("want k1 ≥ 0 and b in [0, 1]"))
	}
	if given("rescore") {
		o.Rescore = s.Rescore
	}
	if given("m") {
		o.HNSW.M = s.HNSW.M
	}
	if given("ef-construction") {
		o.HNSW.EfConstruction = s.HNSW.EfConstruction
	}
	if given("ef-search") {
		o.HNSW.EfSearch = s.HNSW.EfSearch
	}
	bm := s.BM25
	o.BM25 = &bm
	opts := []IndexOption{WithRetriever(s.Retriever), WithIndexOptions(o), WithIndexWorkers(s.Workers)}
	// flat is every vector retriever's default, and was accepted (and
	// meant nothing) for bm25 and HAS: only another kind is passed.
	if given("kind") && s.Kind != index.FlatKind {
		opts = append(opts, WithKind(s.Kind))
	}
	return o, opts, nil
}

// RetrievalEval is how as2 index eval retrieves beyond its retriever:
// Depth answers a question, optionally fused with a second retriever's
// (Fuse, weighted FuseWeight, merged by Fusion) and reranked (Rerank, with
// the retrieval score weighted RetrievalWeight).
type RetrievalEval struct {
	Depth                       int
	Fuse, Fusion, Rerank        string
	FuseWeight, RetrievalWeight float64
}

// Check refuses settings that do not go together, for retriever and an
// index of kind. Errors are *ConfigError, naming as2 index eval's flag.
func (e RetrievalEval) Check(retriever, kind string) error {
	switch {
	case e.Depth < 10:
		return configErr("depth", fmt.Sprint(e.Depth), errors.New("want at least 10 (R@10)"))
	case e.Fuse != "" && e.Fuse == retriever:
		return configErr("fuse", e.Fuse, errors.New("the same retriever as --retriever; fusion needs a second one"))
	case !(e.FuseWeight > 0 && e.FuseWeight <= 1e3):
		return configErr("fuse-weight", fmt.Sprint(e.FuseWeight), errors.New("want more than 0, at most 1000"))
	case !(e.RetrievalWeight >= 0 && e.RetrievalWeight <= 1e3):
		return configErr("retrieval-weight", fmt.Sprint(e.RetrievalWeight), errors.New("want 0 to 1000"))
	case e.RetrievalWeight > 0 && e.Rerank == "":
		return configErr("retrieval-weight", fmt.Sprint(e.RetrievalWeight), errors.New("only with --rerank"))
	case kind == WeaviateKind:
		return configErr("kind", kind, errors.New("for as2 index build, which stores the vectors in Weaviate once"))
	}
	if e.Fusion != "" && !slices.Contains(index.Fusions, e.Fusion) {
		return configErr("fusion", fmt.Sprintf("%q", e.Fusion), fmt.Errorf("want %s", strings.Join(index.Fusions, " or ")))
	}
	return nil
}

// Apply is the retriever e describes on top of x: x fused with second
// (nil: no fusion), then reranked by rk (nil: no reranking).
func (e RetrievalEval) Apply(x, second *Index, rk rank.Ranker) (*Index, error) {
	var err error
	if second != nil {
		if x, err = x.Fuse(second, e.FuseWeight, e.Fusion, e.Depth); err != nil {
			return nil, err
		}
	}
	if rk != nil {
		if x, err = x.Rerank(rk, e.Rerank, e.Depth, e.RetrievalWeight); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// EvaluateRetrieval retrieves with x for every question of pool, whose
// answers x must hold, and measures the rankings (retrieval.Evaluate): the
// report of as2 index eval, its search timed, the pool named file; the
// caller adds the time it took to build x.
func (x *Index) EvaluateRetrieval(ctx context.Context, file string, pool *reqa.Pool, opts retrieval.Options) (retrieval.Report, error) {
	start := time.Now()
	res, _, err := retrieval.Evaluate(ctx, x.retriever, pool, opts)
	if err != nil {
		return retrieval.Report{}, err
	}
	return retrieval.Report{File: file, Pool: pool, Retriever: x.Description(), Result: res, Search: time.Since(start)}, nil
}

// ServeIndex is the index as serve.Server.AddIndex takes it.
func (x *Index) ServeIndex() serve.Index {
	return serve.Index{Retriever: x.retriever, Texts: x.texts, Description: x.Description()}
}

// CheckRetrieverModel reports whether m encodes answers for an index
// (WithRetrieverModel): dual models (vectors) and HAS (binary matrices)
// do.
func CheckRetrieverModel(m model.Model) error {
	_, err := fromModel(m, "", nil, nil)
	return err
}

// answerEncoder is a retriever's encoder, ready to encode answers and
// questions into one of three representations.
type answerEncoder struct {
	desc string
	// params record how to open it again (index.Bundle's Encoder).
	params map[string]string
	bm25   *rank.Options                                     // bm25, else one of:
	vec    index.Encoder[[]float32, []float32]               // sentence vectors
	mat    index.Encoder[index.BitMatrix, index.MatrixQuery] // HAS: binary answer matrices
	dim    int
}

// matrixModel is a model that stores answers as binary matrices (HAS).
type matrixModel interface {
	Dim() int
	EncodeAnswersProgress(ctx context.Context, texts []string, progress func(done int)) ([]index.BitMatrix, error)
	EncodeQuestion(ctx context.Context, text string) (index.MatrixQuery, error)
}

// matrixEncoder is a matrixModel as an index.Encoder.
type matrixEncoder struct {
	matrixModel
	progress func(done int)
}

func (e matrixEncoder) EncodeAnswers(ctx context.Context, texts []string) ([]index.BitMatrix, error) {
	return e.EncodeAnswersProgress(ctx, texts, e.progress)
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

// Encoder parameter keys of index files.
const (
	paramRetriever = "retriever" // bm25, use-lite or model
	paramPath      = "path"      // use-lite and model: the file, absolute
	paramSHA256    = "sha256"    // use-lite and model: the file's digest
	paramK1        = "k1"
	paramB         = "b"
	paramStopwords = "stopwords"
	paramStem      = "stem" // absent from files written before stemming: false
)

// RetrieverError is BuildIndex's error for a retriever spec it cannot
// open, so that a caller can name where the spec came from.
type RetrieverError struct {
	Spec string
	Err  error
}

func (e *RetrieverError) Error() string { return fmt.Sprintf("retriever %q: %v", e.Spec, e.Err) }

func (e *RetrieverError) Unwrap() error { return e.Err }

// openEncoder opens the retriever c names.
func (c *indexConfig) openEncoder() (*answerEncoder, error) {
	if c.model != nil {
		return fromModel(c.model, c.model.Config().Architecture, nil, c.encoding)
	}
	e, err := c.openSpec(c.retriever)
	if err != nil {
		return nil, &RetrieverError{Spec: c.retriever, Err: err}
	}
	return e, nil
}

func (c *indexConfig) openSpec(spec string) (*answerEncoder, error) {
	switch {
	case spec == "bm25":
		opts := rank.DefaultOptions()
		if c.build.BM25 != nil {
			opts = *c.build.BM25
		}
		return bm25Encoder(opts)
	}
	if path, ok := uselite.SpecPath(spec); ok {
		return openUSELite(path, "", c)
	}
	if _, err := os.Stat(spec); err != nil {
		return nil, fmt.Errorf("want bm25, use-lite[:PATH] or a model file (%w)", err)
	}
	return openModel(spec, "", c)
}

func bm25Encoder(o rank.Options) (*answerEncoder, error) {
	if !(o.K1 >= 0 && o.K1 < 1e6 && o.B >= 0 && o.B <= 1) {
		return nil, fmt.Errorf("bm25 k1 %g, b %g: want k1 ≥ 0 and b in [0, 1]", o.K1, o.B)
	}
	stemming := "no stemming"
	if o.Stem {
		stemming = "Snowball stems"
	}
	return &answerEncoder{
		desc: fmt.Sprintf("bm25 (k1 %g, b %g, stopwords %v, as2 tokenizer, %s)", o.K1, o.B, o.Stopwords, stemming),
		params: map[string]string{paramRetriever: "bm25", paramK1: strconv.FormatFloat(o.K1, 'g', -1, 64),
			paramB: strconv.FormatFloat(o.B, 'g', -1, 64), paramStopwords: strconv.FormatBool(o.Stopwords),
			paramStem: strconv.FormatBool(o.Stem)},
		bm25: &o,
	}, nil
}

// openUSELite loads USE-Lite from path, checking its digest when want is
// given.
func openUSELite(path, want string, c *indexConfig) (*answerEncoder, error) {
	sum, err := checkDigest(path, want, nil)
	if err != nil {
		return nil, err
	}
	enc, err := uselite.LoadEncoder(path)
	if err != nil {
		return nil, err
	}
	return &answerEncoder{
		desc:   "use-lite zero-shot",
		params: map[string]string{paramRetriever: uselite.Kind, paramPath: absPath(path), paramSHA256: sum},
		vec:    index.SentenceEncoder{Embed: enc.Embed, Workers: c.workers, Progress: c.encoding},
		dim:    enc.Dim(),
	}, nil
}

// openModel loads a model file whose architecture encodes answers into
// vectors (dual) or binary matrices (a hash-mode HAS), checking its digest
// when want is given.
func openModel(path, want string, c *indexConfig) (*answerEncoder, error) {
	var m model.Model
	sum, err := checkDigest(path, want, func(r io.Reader) (err error) {
		m, err = model.Read(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	desc := m.Config().Architecture
	if a, err := model.Lookup(desc); err == nil {
		desc += " (" + a.Describe(m) + ")"
	}
	return fromModel(m, desc+" from "+path, map[string]string{paramRetriever: "model", paramPath: absPath(path), paramSHA256: sum}, c.encoding)
}

func fromModel(m model.Model, desc string, params map[string]string, progress func(int)) (*answerEncoder, error) {
	e := &answerEncoder{desc: desc, params: params}
	switch m := m.(type) {
	case vectorModel:
		e.vec, e.dim = vectorEncoder{m, progress}, m.Dim()
	case matrixModel: // a HAS model of another mode says so when encoding
		e.mat, e.dim = matrixEncoder{m, progress}, m.Dim()
	default:
		return nil, fmt.Errorf("a %s model does not encode answers for an index (dual models and HAS do)", m.Config().Architecture)
	}
	return e, nil
}

// checkDigest returns the SHA-256 of the file at path, and an error if want
// is given and differs: an index's vectors are only meaningful with the
// model that encoded them. read, if not nil, reads the file as it is
// hashed, so that a model file is read once; a changed file is reported
// as such before read's error.
func checkDigest(path, want string, read func(io.Reader) error) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	var readErr error
	if read != nil {
		readErr = read(io.TeeReader(f, h))
	}
	if _, err := io.Copy(h, f); err != nil { // what read left, or all
		return "", fmt.Errorf("%s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	switch {
	case want != "" && sum != want:
		return "", fmt.Errorf("%s: the file changed since the index was built (sha256 %.12s…, the index was built with %.12s…)", path, sum, want)
	case readErr != nil:
		return "", fmt.Errorf("%s: %w", path, readErr)
	}
	return sum, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// openRecorded opens the retriever an index file recorded;
// c.retrieverFile, if given, replaces the recorded file (it must have the
// recorded digest).
func openRecorded(params map[string]string, c *indexConfig) (*answerEncoder, error) {
	file := params[paramPath]
	if c.retrieverFile != "" {
		file = c.retrieverFile
	}
	switch kind := params[paramRetriever]; kind {
	case "bm25":
		o := rank.DefaultOptions()
		var err1, err2, err3, err4 error
		o.K1, err1 = strconv.ParseFloat(params[paramK1], 64)
		o.B, err2 = strconv.ParseFloat(params[paramB], 64)
		o.Stopwords, err3 = strconv.ParseBool(params[paramStopwords])
		stem, recorded := params[paramStem]
		if recorded {
			o.Stem, err4 = strconv.ParseBool(stem)
		}
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, fmt.Errorf("the index records bm25 parameters k1 %q, b %q, stopwords %q, stem %q", params[paramK1], params[paramB], params[paramStopwords], stem)
		}
		return bm25Encoder(o)
	case uselite.Kind:
		e, err := openUSELite(file, params[paramSHA256], c)
		if err != nil {
			return nil, fmt.Errorf("the index's use-lite model: %w", err)
		}
		return e, nil
	case "model":
		e, err := openModel(file, params[paramSHA256], c)
		if err != nil {
			return nil, fmt.Errorf("the index's model: %w", err)
		}
		return e, nil
	default:
		return nil, fmt.Errorf("the index records retriever %q, which this build does not know", kind)
	}
}

// newIndex returns an empty index for e's answers: bm25's and HAS's own
// kind, or the sentence-vector kind c names.
func (e *answerEncoder) newIndex(c *indexConfig) (index.Stored, error) {
	kind := c.kind
	own := ""
	switch {
	case e.bm25 != nil:
		own = index.BM25Kind
	case e.mat != nil:
		own = index.MatricesKind
	case kind == "":
		kind = index.FlatKind
	}
	opts := c.build
	if kind != "" && kind != own && !slices.Contains(index.VectorKinds, kind) {
		return nil, fmt.Errorf("index kind %q: want flat, binary or hnsw (or %s, which BuildIndex stores in Weaviate)", kind, WeaviateKind)
	}
	if own != "" {
		if kind != "" && kind != own {
			return nil, fmt.Errorf("index kind %q is for sentence vectors; %s has its own (%s)", kind, e.desc, own)
		}
		if opts.Rescore != 0 || opts.HNSW != (index.HNSWOptions{}) {
			return nil, fmt.Errorf("rescore and the hnsw options are for sentence vectors; %s has its own index (%s)", e.desc, own)
		}
		kind = own
	}
	opts.BM25 = e.bm25
	if opts.HNSW.Workers == 0 {
		opts.HNSW.Workers = max(c.workers, 1) // a parallel build: its graph depends on timing
	}
	return index.New(kind, e.dim, opts)
}

// build encodes texts and adds them to x under ids; an HNSW graph, whose
// insertions take longer than the encoding on big pools, reports them to
// indexing (which may be nil).
func (e *answerEncoder) build(ctx context.Context, x index.Stored, ids, texts []string, indexing func(int)) error {
	switch x := x.(type) {
	case *index.BM25:
		return index.Build(ctx, index.Terms{Options: *e.bm25}, x, ids, texts)
	case *index.Matrices:
		return index.Build(ctx, e.mat, x, ids, texts)
	case *index.HNSW:
		vecs, err := e.vec.EncodeAnswers(ctx, texts)
		if err != nil {
			return fmt.Errorf("encoding answers: %w", err)
		}
		return x.AddProgress(ctx, ids, vecs, indexing)
	case index.Vectors:
		return index.Build(ctx, e.vec, x, ids, texts)
	}
	return fmt.Errorf("a %s index", x.Kind())
}

// retriever returns the retriever of x, which holds answers e encoded.
func (e *answerEncoder) retriever(x index.Stored) (index.Retriever, error) {
	switch x := x.(type) {
	case *index.BM25:
		if e.bm25 != nil {
			return index.NewRetriever(index.Terms{Options: *e.bm25}, x), nil
		}
	case *index.Matrices:
		if e.mat != nil {
			return index.NewRetriever(e.mat, x), nil
		}
	case index.Vectors:
		if e.vec != nil {
			return index.NewRetriever(e.vec, x), nil
		}
	case *index.Remote:
		if x.Engine != weaviate.Kind {
			return nil, fmt.Errorf("answers stored in %q, which this build does not reach", x.Engine)
		}
		if e.vec != nil {
			// No request yet: an unreachable server fails the searches.
			wx, err := weaviate.FromRemote(x, weaviate.Options{})
			if err != nil {
				return nil, err
			}
			return index.NewRetriever(e.vec, index.Index[[]float32, []float32](wx)), nil
		}
	default:
		return nil, fmt.Errorf("a %s index, which this build cannot search", x.Kind())
	}
	return nil, fmt.Errorf("a %s index for %s", x.Kind(), e.desc)
}

// buildWeaviate encodes texts and stores them under ids in the Weaviate
// class c names, creating it; a class that already holds objects is
// emptied first only if c.replace (it may be another pool's). It returns
// the index file's record of where they live.
func (e *answerEncoder) buildWeaviate(ctx context.Context, c *indexConfig, ids, texts []string) (*index.Remote, error) {
	if e.vec == nil {
		return nil, fmt.Errorf("a weaviate index stores sentence vectors, not the answers of %s", e.desc)
	}
	opts := c.weaviate
	opts.Dim, opts.Create = e.dim, true
	x, err := weaviate.OpenEmpty(ctx, opts, c.replace)
	if err != nil {
		return nil, fmt.Errorf("weaviate: %w", err)
	}
	vecs, err := e.vec.EncodeAnswers(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("encoding answers: %w", err)
	}
	if err := x.AddProgress(ctx, ids, vecs, c.indexing); err != nil {
		return nil, fmt.Errorf("weaviate: %w", err)
	}
	if x.Len() != len(ids) {
		return nil, fmt.Errorf("weaviate: class %s at %s holds %d objects after adding %d answers", x.Class(), x.URL(), x.Len(), len(ids))
	}
	return x.Remote(), nil
}

// ReadAnswers reads a file of answers for BuildIndex, in one of two
// forms:
//   - a ReQA pool (as2 data reqa), recognised by its header line: its
//     answers, under their ids;
//   - plain text, one answer per line (UTF-8; blank lines are skipped). If
//     the first answer line holds a tab, every line must be ID<TAB>TEXT;
//     otherwise the answer's id is its line number (1-based) and tabs are
//     part of the text. Ids must be unique.
//
// name names the file in errors, which give its line: "NAME:LINE: ...".
func ReadAnswers(r io.Reader, name string) (ids, texts []string, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if isReQA(data) {
		pool, err := reqa.Read(bytes.NewReader(data), name)
		if err != nil {
			return nil, nil, err
		}
		return pool.IDs(), pool.Texts(), nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	seen := map[string]int{}
	tabbed := -1 // unknown until the first answer line
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !utf8.ValidString(line) {
			return nil, nil, fmt.Errorf("%s:%d: not valid UTF-8", name, n)
		}
		if tabbed < 0 {
			tabbed = 0
			if strings.Contains(line, "\t") {
				tabbed = 1
			}
		}
		id, text := strconv.Itoa(n), line
		if tabbed == 1 {
			var ok bool
			id, text, ok = strings.Cut(line, "\t")
			switch {
			case !ok:
				return nil, nil, fmt.Errorf("%s:%d: no tab: the first answer line has ID<TAB>TEXT, so every line must", name, n)
			case strings.TrimSpace(id) == "":
				return nil, nil, fmt.Errorf("%s:%d: an empty id", name, n)
			case strings.TrimSpace(text) == "":
				return nil, nil, fmt.Errorf("%s:%d: answer %q has no text", name, n, id)
			case len(id) > 1<<16:
				return nil, nil, fmt.Errorf("%s:%d: an id of %d bytes (at most 65536)", name, n, len(id))
			}
		}
		if prev, dup := seen[id]; dup {
			return nil, nil, fmt.Errorf("%s:%d: id %q already on line %d", name, n, id, prev)
		}
		seen[id] = n
		ids, texts = append(ids, id), append(texts, text)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = errors.New("a line longer than 1 MiB")
		}
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(ids) == 0 {
		return nil, nil, fmt.Errorf("%s: no answers", name)
	}
	return ids, texts, nil
}

// ReadAnswersFile is ReadAnswers from the file at path.
func ReadAnswersFile(path string) (ids, texts []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err // names the path, and wraps fs.ErrNotExist
	}
	defer f.Close()
	return ReadAnswers(f, path)
}

// ScanQuestions calls fn with each question of r, one per line (blank
// lines skipped, spaces trimmed), and its line number (1-based); it stops
// at fn's first error or ctx's end. name names r in errors:
// "NAME:LINE: ...".
func ScanQuestions(ctx context.Context, r io.Reader, name string, fn func(line int, question string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		q := strings.TrimSpace(sc.Text())
		if q == "" {
			continue
		}
		if err := fn(n, q); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// The formats of HitWriter.
const (
	HitsTSV  = "tsv"  // a header, then a row per hit: [line] rank score id answer
	HitsJSON = "json" // an object per question: its hits, the question, [line]
)

// HitWriter writes an Index's hits for questions, as as2 index search
// prints them.
type HitWriter struct {
	w     io.Writer
	json  bool
	lines bool
}

// oneLine keeps a tsv row on one line whatever the answer holds.
var oneLine = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// NewHitWriter returns a HitWriter of format (HitsTSV or HitsJSON) to w;
// lines adds each question's line number to its rows (a first tsv
// column, json's "line"). A tsv header is written at once.
func NewHitWriter(w io.Writer, format string, lines bool) (*HitWriter, error) {
	if format != HitsTSV && format != HitsJSON {
		return nil, fmt.Errorf("format %q: want %s or %s", format, HitsTSV, HitsJSON)
	}
	hw := &HitWriter{w: w, json: format == HitsJSON, lines: lines}
	if !hw.json {
		head := "rank\tscore\tid\tanswer\n"
		if lines {
			head = "question\t" + head
		}
		if _, err := io.WriteString(w, head); err != nil {
			return nil, err
		}
	}
	return hw, nil
}

// Write writes the hits for question, read from line line.
func (hw *HitWriter) Write(line int, question string, hits []IndexHit) error {
	if hw.json {
		type hit struct {
			Rank   int     `json:"rank"`
			Score  float64 `json:"score"`
			ID     string  `json:"id"`
			Answer string  `json:"answer"`
		}
		hs := make([]hit, len(hits))
		for i, h := range hits {
			hs[i] = hit{i + 1, h.Score, h.ID, h.Text}
		}
		row := map[string]any{"question": question, "hits": hs}
		if hw.lines {
			row["line"] = line
		}
		return json.NewEncoder(hw.w).Encode(row)
	}
	var b strings.Builder
	for i, h := range hits {
		if hw.lines {
			fmt.Fprintf(&b, "%d\t", line)
		}
		fmt.Fprintf(&b, "%d\t%.4f\t%s\t%s\n", i+1, h.Score, oneLine.Replace(h.ID), oneLine.Replace(h.Text))
	}
	_, err := io.WriteString(hw.w, b.String())
	return err
}

// isReQA reports whether data starts with a ReQA pool's header line.
func isReQA(data []byte) bool {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var head struct{ Type, Format string }
	return bytes.HasPrefix(first, []byte("{")) && json.Unmarshal(first, &head) == nil && head.Type == "header" && head.Format == reqa.Format
}
