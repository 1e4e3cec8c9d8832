package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
	"github.com/as2/as2/model"
	"github.com/as2/as2/rank"
)

// retrieverSpec is a retriever and the index of its answers as the flags
// of "as2 retrieve eval" and "as2 index build" name them; this file is the
// one place that turns it into an encoder and an index, so both commands
// (and "as2 search", from what a bundle recorded) build the same thing.
type retrieverSpec struct {
	name, kind string // bm25, use-lite[:PATH] or a model file; flat, binary or hnsw
	rescore    int
	workers    int
	stopwords  bool
	stem       bool
	k1, b      float64
	hnsw       index.HNSWOptions
	// weaviate: where as2 index build stores the vectors (--index weaviate)
	weaviateURL, weaviateClass string
	weaviateReplace            bool
}

// encoderUsage is the usage of the flag that names the retriever.
const encoderUsage = "bm25, use-lite[:PATH], or a model file that encodes answers for an index (as2 train --arch dual: vectors; --arch has: binary matrices)"

// addFlags defines the flags of s but the retriever's own (retrieve eval
// calls it --retriever, index build --encoder).
func (s *retrieverSpec) addFlags(f *pflag.FlagSet) {
	f.StringVar(&s.kind, "index", index.FlatKind, "index of sentence vectors: flat (exact), binary (sign codes, then --rescore by floats), hnsw (graph, approximate) or, for as2 index build, weaviate (stored in a Weaviate server)")
	f.IntVar(&s.rescore, "rescore", index.DefaultRescore, "binary index: nearest codes rescored by their float vectors")
	f.IntVar(&s.hnsw.M, "m", index.DefaultM, "hnsw index: neighbours per node and layer (2×M on the bottom layer)")
	f.IntVar(&s.hnsw.EfConstruction, "ef-construction", index.DefaultEfConstruction, "hnsw index: candidates an insertion considers (build time for graph quality)")
	f.IntVar(&s.hnsw.EfSearch, "ef-search", index.DefaultEfSearch, "hnsw index: candidates a search keeps (speed for recall)")
	f.BoolVar(&s.stopwords, "stopwords", false, "bm25: drop English stopwords")
	f.BoolVar(&s.stem, "stem", false, "bm25: match words by their Snowball English stems")
	f.Float64Var(&s.k1, "k1", rank.DefaultOptions().K1, "bm25: term-frequency saturation")
	f.Float64Var(&s.b, "b", rank.DefaultOptions().B, "bm25: length normalisation")
}

// indexFlagsSet reports whether a flag of the vector indexes was given,
// which a bm25 retriever refuses.
func indexFlagsSet(f *pflag.FlagSet) bool {
	for _, n := range []string{"rescore", "m", "ef-construction", "ef-search"} {
		if f.Changed(n) {
			return true
		}
	}
	return f.Changed("index") && f.Lookup("index").Value.String() != index.FlatKind && f.Lookup("index").Value.String() != index.BM25Kind
}

// openedRetriever is a retriever's encoder, ready to encode answers and
// questions.
type openedRetriever struct {
	desc string
	// params record how to open it again (index.Bundle's Encoder).
	params map[string]string
	bm25   *rank.Options                                     // for bm25, else one of:
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

// Encoder parameter keys of index bundles.
const (
	paramRetriever = "retriever" // bm25, use-lite or model
	paramPath      = "path"      // use-lite and model: the file, absolute
	paramSHA256    = "sha256"    // use-lite and model: the file's digest
	paramK1        = "k1"
	paramB         = "b"
	paramStopwords = "stopwords"
	paramStem      = "stem" // absent from bundles written before stemming: false
)

// open loads the retriever s names; answers encoded report to progress.
// flag names the retriever's flag in errors.
func (s *retrieverSpec) open(flag string, progress func(int)) (*openedRetriever, error) {
	name := s.name
	switch {
	case name == "bm25":
		if !(s.k1 >= 0 && s.k1 < 1e6 && s.b >= 0 && s.b <= 1) {
			return nil, fmt.Errorf("--k1 %g, --b %g: want k1 ≥ 0 and b in [0, 1]", s.k1, s.b)
		}
		opts := rank.DefaultOptions()
		opts.Stopwords, opts.Stem, opts.K1, opts.B = s.stopwords, s.stem, s.k1, s.b
		stemming := "no stemming"
		if s.stem {
			stemming = "Snowball stems"
		}
		return &openedRetriever{
			desc: fmt.Sprintf("bm25 (k1 %g, b %g, stopwords %v, as2 tokenizer, %s)", s.k1, s.b, s.stopwords, stemming),
			params: map[string]string{paramRetriever: "bm25", paramK1: strconv.FormatFloat(s.k1, 'g', -1, 64),
				paramB: strconv.FormatFloat(s.b, 'g', -1, 64), paramStopwords: strconv.FormatBool(s.stopwords),
				paramStem: strconv.FormatBool(s.stem)},
			bm25: &opts,
		}, nil
	case name == uselite.Kind || strings.HasPrefix(name, uselite.Kind+":"):
		path := strings.TrimPrefix(strings.TrimPrefix(name, uselite.Kind), ":")
		if path == "" {
			path = uselite.DefaultPath()
		}
		return openUSELite(flag, path, "", s.workers, progress)
	default:
		if _, err := os.Stat(name); err != nil {
			return nil, fmt.Errorf("%s %q: want bm25, use-lite[:PATH] or a model file (%v)", flag, name, err)
		}
		return openModel(flag, name, "", progress)
	}
}

// openUSELite loads USE-Lite from path, checking its digest when want is
// given.
func openUSELite(flag, path, want string, workers int, progress func(int)) (*openedRetriever, error) {
	sum, err := checkDigest(flag, path, want)
	if err != nil {
		return nil, err
	}
	enc, err := uselite.LoadEncoder(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return &openedRetriever{
		desc:   "use-lite zero-shot",
		params: map[string]string{paramRetriever: uselite.Kind, paramPath: absPath(path), paramSHA256: sum},
		vec:    index.SentenceEncoder{Embed: enc.Embed, Workers: workers, Progress: progress},
		dim:    enc.Dim(),
	}, nil
}

// openModel loads a model file whose architecture encodes answers into
// vectors (dual) or binary matrices (a hash-mode HAS), checking its digest
// when want is given.
func openModel(flag, path, want string, progress func(int)) (*openedRetriever, error) {
	sum, err := checkDigest(flag, path, want)
	if err != nil {
		return nil, err
	}
	loaded, err := model.Load(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	desc := loaded.Config().Architecture
	if a, err := model.Lookup(desc); err == nil {
		desc += " (" + a.Describe(loaded) + ")"
	}
	o := &openedRetriever{
		desc:   desc + " from " + path,
		params: map[string]string{paramRetriever: "model", paramPath: absPath(path), paramSHA256: sum},
	}
	switch m := loaded.(type) {
	case vectorModel:
		o.vec, o.dim = vectorEncoder{m, progress}, m.Dim()
	case matrixModel: // a HAS model of another mode says so when encoding
		o.mat, o.dim = matrixEncoder{m, progress}, m.Dim()
	default:
		return nil, fmt.Errorf("%s %s: a %s model does not encode answers for an index (dual models and HAS do)", flag, path, loaded.Config().Architecture)
	}
	return o, nil
}

// checkDigest returns the SHA-256 of the file at path, and an error if want
// is given and differs: an index's vectors are only meaningful with the
// model that encoded them.
func checkDigest(flag, path, want string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", notFound(flag, path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s %s: %w", flag, path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if want != "" && sum != want {
		return "", fmt.Errorf("%s %s: the file changed since the index was built (sha256 %.12s…, the index was built with %.12s…)", flag, path, sum, want)
	}
	return sum, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// openFromParams opens the retriever an index bundle recorded; path, if
// given, replaces the recorded file (it must have the recorded digest).
func openFromParams(params map[string]string, path string, workers int) (*openedRetriever, error) {
	file := params[paramPath]
	if path != "" {
		file = path
	}
	switch kind := params[paramRetriever]; kind {
	case "bm25":
		s := retrieverSpec{name: "bm25"}
		var err1, err2, err3 error
		s.k1, err1 = strconv.ParseFloat(params[paramK1], 64)
		s.b, err2 = strconv.ParseFloat(params[paramB], 64)
		s.stopwords, err3 = strconv.ParseBool(params[paramStopwords])
		stem, recorded := params[paramStem]
		var err4 error
		if recorded {
			s.stem, err4 = strconv.ParseBool(stem)
		}
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return nil, fmt.Errorf("the index records bm25 parameters k1 %q, b %q, stopwords %q, stem %q", params[paramK1], params[paramB], params[paramStopwords], stem)
		}
		return s.open("--index", nil)
	case uselite.Kind:
		return openUSELite("the index's use-lite model", file, params[paramSHA256], workers, nil)
	case "model":
		return openModel("the index's model", file, params[paramSHA256], nil)
	default:
		return nil, fmt.Errorf("the index records retriever %q, which this build does not know", kind)
	}
}

// newIndex returns an empty index of the kind s names for o's answers.
func (o *openedRetriever) newIndex(s *retrieverSpec) (index.Stored, error) {
	if o.bm25 != nil {
		return index.NewBM25(*o.bm25), nil
	}
	if o.mat != nil {
		return index.NewMatrices(o.dim)
	}
	switch s.kind {
	case index.FlatKind:
		return index.NewFlat(o.dim)
	case index.BinaryKind:
		x, err := index.NewBinary(o.dim)
		if err != nil {
			return nil, err
		}
		x.Rescore = s.rescore
		return x, nil
	case index.HNSWKind:
		opts := s.hnsw
		opts.Workers = max(s.workers, 1) // a parallel build: its graph depends on timing
		return index.NewHNSW(o.dim, opts)
	case weaviate.Kind:
		return nil, fmt.Errorf("--index weaviate is for as2 index build, which stores the vectors in Weaviate once")
	}
	return nil, fmt.Errorf("--index %q: want flat, binary or hnsw", s.kind)
}

// buildWeaviate encodes texts and stores them under ids in the Weaviate
// class s names, creating it; a class that already holds objects is
// emptied first only with --weaviate-replace (it may be another pool's).
// It returns the bundle's record of where they live.
func (o *openedRetriever) buildWeaviate(ctx context.Context, s *retrieverSpec, ids, texts []string, encoded func()) (*index.Remote, error) {
	if o.vec == nil {
		return nil, fmt.Errorf("--index weaviate stores sentence vectors, not the answers of %s", o.desc)
	}
	x, err := openEmptyClass(ctx, weaviate.Options{URL: s.weaviateURL, Class: s.weaviateClass, Dim: o.dim, Create: true}, s.weaviateReplace)
	if err != nil {
		return nil, fmt.Errorf("--index weaviate: %w", err)
	}
	vecs, err := o.vec.EncodeAnswers(ctx, texts)
	encoded()
	if err != nil {
		return nil, fmt.Errorf("encoding answers: %w", err)
	}
	if err := x.AddContext(ctx, ids, vecs); err != nil {
		return nil, fmt.Errorf("--index weaviate: %w", err)
	}
	if x.Len() != len(ids) {
		return nil, fmt.Errorf("--index weaviate: class %s at %s holds %d objects after adding %d answers", x.Class(), x.URL(), x.Len(), len(ids))
	}
	return x.Remote(), nil
}

// openEmptyClass opens (creating) the Weaviate class opts names for new
// answers: one that already holds objects is emptied only if replace (it
// may be another pool's).
func openEmptyClass(ctx context.Context, opts weaviate.Options, replace bool) (*weaviate.Index, error) {
	x, err := weaviate.Open(ctx, opts)
	if err != nil || x.Len() == 0 {
		return x, err
	}
	if !replace {
		return nil, fmt.Errorf("class %s at %s already holds %d objects: --weaviate-replace deletes them, or name another --weaviate-class", x.Class(), x.URL(), x.Len())
	}
	if err := x.Delete(ctx); err != nil {
		return nil, err
	}
	return weaviate.Open(ctx, opts)
}

// describe says what o and its index x are, for people.
func (o *openedRetriever) describe(x index.Stored) string {
	if o.bm25 != nil || o.mat != nil { // their index is their own: nothing to add
		return o.desc
	}
	return o.desc + ", " + indexDesc(x)
}

// indexDesc describes x for the output.
func indexDesc(x index.Stored) string {
	switch x := x.(type) {
	case *index.Binary:
		return fmt.Sprintf("binary index (%d rescored)", x.Rescore)
	case *index.HNSW:
		o := x.Options()
		return fmt.Sprintf("hnsw index (M %d, efConstruction %d, efSearch %d)", o.M, o.EfConstruction, o.EfSearch)
	case *index.Remote:
		return fmt.Sprintf("%s index (class %s at %s)", x.Engine, x.Params["class"], x.Params["url"])
	}
	return x.Kind() + " index"
}

// build encodes texts and adds them to x under ids; an HNSW graph, whose
// insertions take longer than the encoding on big pools, reports them to
// indexing (which may be nil).
func (o *openedRetriever) build(ctx context.Context, x index.Stored, ids, texts []string, indexing func(int)) error {
	switch x := x.(type) {
	case *index.BM25:
		return index.Build(ctx, index.Terms{Options: *o.bm25}, x, ids, texts)
	case *index.Matrices:
		if o.mat == nil {
			return fmt.Errorf("a matrices index for %s", o.desc)
		}
		return index.Build(ctx, o.mat, x, ids, texts)
	case *index.HNSW:
		if o.vec == nil {
			return fmt.Errorf("an hnsw index for %s", o.desc)
		}
		vecs, err := o.vec.EncodeAnswers(ctx, texts)
		if err != nil {
			return fmt.Errorf("encoding answers: %w", err)
		}
		return x.AddProgress(ctx, ids, vecs, indexing)
	case index.Index[[]float32, []float32]:
		if o.vec == nil {
			return fmt.Errorf("a %s index for %s", x.(index.Stored).Kind(), o.desc)
		}
		return index.Build(ctx, o.vec, x, ids, texts)
	}
	return fmt.Errorf("a %s index", x.Kind())
}

// retriever returns the retriever of x, which holds answers o encoded.
func (o *openedRetriever) retriever(x index.Stored) (index.Retriever, error) {
	switch x := x.(type) {
	case *index.BM25:
		if o.bm25 == nil {
			return nil, fmt.Errorf("a bm25 index for %s", o.desc)
		}
		return index.NewRetriever(index.Terms{Options: *o.bm25}, x), nil
	case *index.Matrices:
		if o.mat == nil {
			return nil, fmt.Errorf("a matrices index for %s", o.desc)
		}
		return index.NewRetriever(o.mat, x), nil
	case index.Index[[]float32, []float32]:
		if o.vec == nil {
			return nil, fmt.Errorf("a %s index for %s", x.(index.Stored).Kind(), o.desc)
		}
		return index.NewRetriever(o.vec, x), nil
	case *index.Remote:
		if x.Engine != weaviate.Kind {
			return nil, fmt.Errorf("answers stored in %q, which this build does not reach", x.Engine)
		}
		if o.vec == nil {
			return nil, fmt.Errorf("a weaviate index for %s", o.desc)
		}
		// No request yet: an unreachable server fails the searches.
		wx, err := weaviate.FromRemote(x, weaviate.Options{})
		if err != nil {
			return nil, err
		}
		return index.NewRetriever(o.vec, index.Index[[]float32, []float32](wx)), nil
	}
	return nil, fmt.Errorf("a %s index", x.Kind())
}

// readIndexKind reads an index file of kind (the stand-alone files of
// retrieve eval --save-index).
func readIndexKind(flag, path, kind string) (index.Stored, error) {
	var read func(io.Reader) (index.Stored, error)
	switch kind {
	case index.FlatKind:
		read = func(r io.Reader) (index.Stored, error) { return index.ReadFlat(r) }
	case index.BinaryKind:
		read = func(r io.Reader) (index.Stored, error) { return index.ReadBinary(r) }
	case index.HNSWKind:
		read = func(r io.Reader) (index.Stored, error) { return index.ReadHNSW(r) }
	case index.BM25Kind:
		read = func(r io.Reader) (index.Stored, error) { return index.ReadBM25(r) }
	case index.MatricesKind:
		read = func(r io.Reader) (index.Stored, error) { return index.ReadMatrices(r) }
	default:
		return nil, fmt.Errorf("--index %q: want flat, binary or hnsw", kind)
	}
	return readIndexFile(flag, path, read)
}

func readIndexFile[T any](flag, path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, notFound(flag, path, err)
	}
	defer f.Close()
	x, err := read(f)
	if err != nil {
		return zero, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return x, nil
}
