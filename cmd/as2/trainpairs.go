package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/evaluation/retrieval"
	"github.com/as2/as2/model"
	"github.com/as2/as2/train"
)

// fitInBatch trains m, a dual encoder, under t.inBatch on the
// (question, correct answer) pairs of the training questions and of
// --also, with --dev-pool's retrieval MRR measured after each epoch.
func (t *trainCmd) fitInBatch(cmd *cobra.Command, m model.Trainable, trainQs []dataset.Question, opts train.Options) (*train.Summary, error) {
	im, ok := m.(model.InBatchTrainable)
	if !ok {
		return nil, fmt.Errorf("--objective %s: a %s model cannot be trained on pairs (try --arch dual)", t.inBatch.Name(), m.Config().Architecture)
	}
	pairs := train.Pairs(trainQs)
	counts := []string{fmt.Sprintf("%s %s: %d", t.data.name, t.trainSplit, len(pairs))}
	for _, a := range t.also {
		qs, err := loadSplit(t.data, "--also", a, dataset.Answered)
		if err != nil {
			return nil, err
		}
		more := train.Pairs(qs)
		pairs = append(pairs, more...)
		counts = append(counts, fmt.Sprintf("%s: %d", a, len(more)))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "training pairs: %s (%d in all)\n", strings.Join(counts, ", "), len(pairs))
	ibo := train.InBatchOptions{Options: opts, InBatch: t.inBatch}
	if t.devPool != "" {
		pool, err := reqa.ReadFile(t.devPool)
		if err != nil {
			return nil, fmt.Errorf("--dev-pool: %w", err)
		}
		vm, ok := m.(vectorModel)
		if !ok {
			return nil, fmt.Errorf("--dev-pool: a %s model has no answer vectors", m.Config().Architecture)
		}
		ibo.DevRetrieval = func(ctx context.Context) (float64, error) {
			r, err := vectorRetriever(ctx, vm, pool, nil)
			if err != nil {
				return 0, err
			}
			res, _, err := retrieval.Evaluate(ctx, r, pool, retrieval.Options{Workers: 1})
			return res.MRR, err
		}
	}
	return train.InBatch(cmd.Context(), im, pairs, ibo)
}
