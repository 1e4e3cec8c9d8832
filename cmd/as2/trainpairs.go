package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/evaluation/retrieval"
	"github.com/as2/as2/model"
	"github.com/as2/as2/train"
)

// inBatchData adds to run, for m under an in-batch objective, the
// (question, correct answer) pairs of --also's splits and --dev-pool's
// retrieval MRR after each epoch.
func (t *trainCmd) inBatchData(stderr io.Writer, m model.Trainable, run *train.Run) error {
	n := len(train.Pairs(run.Questions))
	counts := []string{fmt.Sprintf("%s %s: %d", t.data.name, t.trainSplit, n)}
	for _, a := range t.dev.Also {
		qs, err := loadSplit(t.data, "--also", a, dataset.Answered)
		if err != nil {
			return err
		}
		more := train.Pairs(qs)
		run.Pairs, n = append(run.Pairs, more...), n+len(more)
		counts = append(counts, fmt.Sprintf("%s: %d", a, len(more)))
	}
	run.Dataset = strings.Join(append([]string{t.data.name}, t.dev.Also...), "+")
	fmt.Fprintf(stderr, "training pairs: %s (%d in all)\n", strings.Join(counts, ", "), n)
	if t.dev.DevPool == "" {
		return nil
	}
	pool, err := reqa.ReadFile(t.dev.DevPool)
	if err != nil {
		return fmt.Errorf("--dev-pool: %w", err)
	}
	if err := as2.CheckRetrieverModel(m); err != nil {
		return fmt.Errorf("--dev-pool: %w", err)
	}
	run.DevRetrieval = func(ctx context.Context) (float64, error) {
		x, err := as2.BuildIndex(ctx, pool.IDs(), pool.Texts(), as2.WithRetrieverModel(m))
		if err != nil {
			return 0, err
		}
		res, _, err := retrieval.Evaluate(ctx, x.Retriever(), pool, retrieval.Options{Workers: 1})
		return res.MRR, err
	}
	return nil
}
