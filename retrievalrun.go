package as2

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/evaluation/retrieval"
	"github.com/as2/as2/index"
	"github.com/as2/as2/internal/atomicfile"
	"github.com/as2/as2/rank"
)

// RetrievalRun is an evaluation of a retriever on a ReQA pool, as as2
// index eval runs it: the index of the pool's answers read from Load or
// built (and written to Save), fused and reranked as RetrievalEval says,
// then every question retrieved and measured (retrieval.Evaluate).
type RetrievalRun struct {
	RetrievalEval
	Index IndexSettings
	// Given reports which Index settings were set (IndexSettings.Options).
	Given func(setting string) bool
	Pool  string // the ReQA pool file (as2 data reqa)
	// Load is an index file of the pool's answers, read instead of
	// building one; Save, a file the built index is written to.
	Load, Save string
	// OpenReranker opens the Rerank ranker (its errors are returned as
	// they are).
	OpenReranker func(spec string) (rank.Ranker, error)
	Log          io.Writer // what is built and written (nil: nothing)
	// Progress, if not nil, starts a bar of a loop over total items.
	Progress func(what string, total int) (step func(int), done func())
}

// Run evaluates. Errors about a setting are *ConfigError naming it
// (retriever and fuse where a *RetrieverError could not be opened, pool,
// load-index, save-index and the RetrievalEval and IndexSettings ones).
func (r RetrievalRun) Run(ctx context.Context) (retrieval.Report, error) {
	var rep retrieval.Report
	if err := r.Check(r.Index.Retriever, r.Index.Kind); err != nil {
		return rep, err
	}
	o, opts, err := r.Index.Options(r.Given)
	if err != nil {
		return rep, err
	}
	var rk rank.Ranker
	if r.Rerank != "" {
		if rk, err = r.OpenReranker(r.Rerank); err != nil {
			return rep, err
		}
	}
	pool, err := reqa.ReadFile(r.Pool)
	if err != nil {
		return rep, configErr("pool", "", err)
	}
	start := time.Now()
	x, err := r.open(ctx, o, opts, pool)
	if err != nil {
		return rep, err
	}
	var second *Index
	if r.Fuse != "" {
		second, err = r.encode(ctx, []IndexOption{WithRetriever(r.Fuse), WithIndexOptions(index.Options{BM25: o.BM25}), WithIndexWorkers(r.Index.Workers)}, r.Fuse != "bm25", pool)
		if err != nil {
			return rep, retrieverErr("fuse", err)
		}
	}
	if x, err = r.Apply(x, second, rk); err != nil {
		return rep, err
	}
	built := time.Since(start)
	step, done := r.progress("retrieving", len(pool.Questions))
	rep, err = x.EvaluateRetrieval(ctx, r.Pool, pool, retrieval.Options{Depth: r.Depth, Workers: r.Index.Workers, Progress: step})
	done()
	rep.Build = built
	return rep, err
}

// retrieverErr names setting for a retriever that could not be opened;
// other errors pass as they are.
func retrieverErr(setting string, err error) error {
	if errors.As(err, new(*RetrieverError)) {
		return configErr(setting, "", err)
	}
	return err
}

// open returns the retriever's index over pool's answers: read from Load,
// or built (and written to Save).
func (r RetrievalRun) open(ctx context.Context, o index.Options, opts []IndexOption, pool *reqa.Pool) (*Index, error) {
	if r.Load != "" {
		if r.Given != nil && r.Given("kind") {
			opts = append(opts, WithKind(r.Index.Kind))
		}
		opts = append(opts, WithBuiltFile(r.Load), WithSearch(index.SearchOptions{EfSearch: o.HNSW.EfSearch, Rescore: o.Rescore}))
		x, err := BuildIndex(ctx, pool.IDs(), pool.Texts(), opts...)
		if errors.As(err, new(*RetrieverError)) {
			return nil, configErr("retriever", "", err)
		} else if err != nil {
			return nil, configErr("load-index", "", err)
		}
		return x, nil
	}
	x, err := r.encode(ctx, opts, r.Index.Retriever != "bm25", pool)
	if err != nil {
		return nil, retrieverErr("retriever", err)
	}
	if r.Save != "" {
		if err := atomicfile.Write(r.Save, cmp.Or[io.Writer](r.Log, io.Discard), x.WriteStored); err != nil {
			return nil, configErr("save-index", "", err)
		}
		r.logf("wrote the index to %s\n", r.Save)
	}
	return x, nil
}

// encode builds the index of pool's answers, with a bar and a timing line
// when slow (not bm25).
func (r RetrievalRun) encode(ctx context.Context, opts []IndexOption, slow bool, pool *reqa.Pool) (*Index, error) {
	step, done := func(int) {}, func() {}
	if slow {
		step, done = r.progress("encoding answers", len(pool.Answers))
	}
	start := time.Now()
	x, err := BuildIndex(ctx, pool.IDs(), pool.Texts(), append(opts, WithIndexProgress(step, nil))...)
	done()
	if err != nil {
		return nil, err
	}
	if slow {
		r.logf("encoded and indexed %d answers in %.0fs\n", x.Len(), time.Since(start).Seconds())
	}
	return x, nil
}

func (r RetrievalRun) progress(what string, total int) (func(int), func()) {
	if r.Progress == nil {
		return func(int) {}, func() {}
	}
	return r.Progress(what, total)
}

func (r RetrievalRun) logf(format string, a ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format, a...)
	}
}
