package as2

import (
	"context"

	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/evaluation/retrieval"
	"github.com/as2/as2/model"
)

// DevRetrieval reads the ReQA pool file (as2 data reqa) and returns what
// measures m's retrieval MRR on it (ReQA's headline measure, Ahmad et al.
// 2019), for train.Run.DevRetrieval: after each in-batch epoch, m encodes
// the pool's answers into an index and its questions search it.
// m must be a model that encodes answers (CheckRetrieverModel).
func DevRetrieval(poolFile string, m model.Model) (func(ctx context.Context) (float64, error), error) {
	pool, err := reqa.ReadFile(poolFile)
	if err != nil {
		return nil, err
	}
	if err := CheckRetrieverModel(m); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (float64, error) {
		x, err := BuildIndex(ctx, pool.IDs(), pool.Texts(), WithRetrieverModel(m))
		if err != nil {
			return 0, err
		}
		res, _, err := retrieval.Evaluate(ctx, x.Retriever(), pool, retrieval.Options{Workers: 1})
		return res.MRR, err
	}, nil
}
