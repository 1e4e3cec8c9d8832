package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/rank"
)

// BenchmarkRank scores WikiQA test's answered questions with each of the
// built-in rankers, reporting pairs/s; it needs AS2_DATA (else it skips).
// Profile it with -cpuprofile (notes/2026-11-28-builtin-speed.md).
func BenchmarkRank(b *testing.B) {
	data := os.Getenv("AS2_DATA")
	if data == "" {
		b.Skip("AS2_DATA is not set: the benchmark ranks WikiQA test")
	}
	all, err := catalog.Load("wikiqa", filepath.Join(data, "wikiqa"), "test", catalog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	qs := dataset.Filter(all, dataset.Answered)
	pairs := 0
	for _, q := range qs {
		pairs += len(q.Candidates)
	}
	for _, v := range []struct {
		name string
		open func() (rank.Ranker, error)
	}{
		{"int8", builtin.Int8Ranker},
		{"float32", builtin.Ranker},
	} {
		b.Run(v.name, func(b *testing.B) {
			r, err := v.open()
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				for i := range qs {
					if _, err := r.Score(context.Background(), &qs[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(pairs*b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
