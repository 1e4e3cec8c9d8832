package compagg

import (
	"context"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/modeltest/benchdata"
	"github.com/as2/as2/train"
)

// BenchmarkTrainEpoch trains one pointwise epoch of each variant (as2's
// recipe) on the first 200 answered WikiQA train questions; it reports
// pairs/s.
func BenchmarkTrainEpoch(b *testing.B) {
	qs, vecs := benchdata.WikiQA(b, "train")
	qs = dataset.Filter(qs, dataset.Answered)[:200]
	pairs := benchdata.Pairs(qs)
	for _, variant := range []string{CA, CompClip} {
		b.Run(variant, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				m, err := New(RecipeHyper(variant), vecs, 1)
				if err != nil {
					b.Fatal(err)
				}
				opts := train.Options{Training: training(false, model.Pointwise)}
				opts.Epochs, opts.KeepBest = 1, false
				if _, err := train.Train(context.Background(), m, qs, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(pairs*b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}

// BenchmarkScore scores the WikiQA test questions with each variant; it
// reports pairs/s.
func BenchmarkScore(b *testing.B) {
	qs, vecs := benchdata.WikiQA(b, "test")
	for _, variant := range []string{CA, CompClip} {
		b.Run(variant, func(b *testing.B) {
			m, err := New(RecipeHyper(variant), vecs, 1)
			if err != nil {
				b.Fatal(err)
			}
			pairs := 0
			for i := 0; i < b.N; i++ {
				for j := range qs {
					if _, err := m.Score(context.Background(), &qs[j]); err != nil {
						b.Fatal(err)
					}
					pairs += len(qs[j].Candidates)
				}
			}
			b.ReportMetric(float64(pairs)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
