package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/pflag"

	"github.com/as2/as2"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
	"github.com/as2/as2/rank"
)

// indexFlags are the flags of the index family (as2 index build and
// index eval) that say how answers are encoded and indexed: one name per
// concept, --retriever for the model that encodes questions and answers,
// --kind for the index kind (--index names an index file).
type indexFlags struct {
	as2.IndexSettings
	f *pflag.FlagSet
}

// add defines the flags on f; retriever is --retriever's default.
func (s *indexFlags) add(f *pflag.FlagSet, retriever string) {
	s.f = f
	s.BM25 = rank.DefaultOptions()
	f.StringVar(&s.Retriever, "retriever", retriever, as2.RetrieverHelp)
	f.StringVar(&s.Kind, "kind", index.FlatKind, "index kind of sentence vectors: flat (exact), binary (sign codes, then --rescore by floats) or hnsw (graph, approximate); bm25 and HAS retrievers have their own")
	f.IntVar(&s.Rescore, "rescore", index.DefaultRescore, "binary index: nearest codes rescored by their float vectors")
	f.IntVar(&s.HNSW.M, "m", index.DefaultM, "hnsw index: neighbours per node and layer (2×M on the bottom layer)")
	f.IntVar(&s.HNSW.EfConstruction, "ef-construction", index.DefaultEfConstruction, "hnsw index: candidates an insertion considers (build time for graph quality)")
	f.IntVar(&s.HNSW.EfSearch, "ef-search", index.DefaultEfSearch, "hnsw index: candidates a search keeps (speed for recall)")
	f.BoolVar(&s.BM25.Stopwords, "stopwords", false, "bm25: drop English stopwords")
	f.BoolVar(&s.BM25.Stem, "stem", false, "bm25: match words by their Snowball English stems")
	f.Float64Var(&s.BM25.K1, "k1", rank.DefaultOptions().K1, "bm25: term-frequency saturation")
	f.Float64Var(&s.BM25.B, "b", rank.DefaultOptions().B, "bm25: length normalisation")
}

// addDeprecatedKind defines --index, the old name of --kind (index build
// and retrieve eval), kept for one release.
func (s *indexFlags) addDeprecatedKind(f *pflag.FlagSet) {
	f.StringVar(&s.Kind, "index", index.FlatKind, "index kind")
	f.MarkDeprecated("index", "use --kind; --index names an index file")
}

func (s *indexFlags) changed(names ...string) bool {
	for _, n := range names {
		if s.f.Lookup(n) != nil && s.f.Changed(n) {
			return true
		}
	}
	return false
}

// options are the front door's options for the flags given (--index
// counts as --kind).
func (s *indexFlags) options() (index.Options, []as2.IndexOption, error) {
	o, opts, err := s.Options(func(setting string) bool {
		return s.changed(setting) || setting == "kind" && s.changed("index")
	})
	if err != nil {
		return o, nil, fmt.Errorf("--%w", err)
	}
	return o, opts, nil
}

// retrieverError names the flag that gave the retriever of err, if it
// is one that could not be opened.
func retrieverError(flag string, err error) error {
	var re *as2.RetrieverError
	if errors.As(err, &re) {
		return fmt.Errorf("%s %q: %w", flag, re.Spec, re.Err)
	}
	return err
}

// indexFileError names the flag that gave the file in err, whose message
// starts with the path (flagError takes a missing file's from err).
func indexFileError(flag string, err error) error {
	if errors.Is(err, fs.ErrNotExist) && errors.As(err, new(*fs.PathError)) {
		return flagError(flag, "", err)
	}
	return fmt.Errorf("%s %w", flag, err)
}

// weaviateHint adds the flags that resolve a full class to err.
func weaviateHint(err error) error {
	if errors.Is(err, weaviate.ErrNotEmpty) {
		return fmt.Errorf("%w (--weaviate-replace deletes them, or name another --weaviate-class)", err)
	}
	return err
}
