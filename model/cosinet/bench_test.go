package cosinet

import (
	"context"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/modeltest/benchdata"
	"github.com/as2/as2/train"
)

// BenchmarkTrainEpoch trains one listwise epoch of Cosinet+BiRNN on the first
// 200 answered WikiQA train questions; it reports pairs/s.
func BenchmarkTrainEpoch(b *testing.B) {
	qs, vecs := benchdata.WikiQA(b, "train")
	qs = dataset.Filter(qs, dataset.Filtered)[:200]
	pairs := benchdata.Pairs(qs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := New(RecipeHyper(), vecs, 1)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := train.Train(context.Background(), m, qs, train.Options{Training: model.Training{Objective: model.Listwise, Epochs: 1, LR: 2e-4, Batch: 2}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(pairs*b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkScore scores the WikiQA test questions; it reports pairs/s.
func BenchmarkScore(b *testing.B) {
	qs, vecs := benchdata.WikiQA(b, "test")
	m, err := New(RecipeHyper(), vecs, 1)
	if err != nil {
		b.Fatal(err)
	}
	pairs := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range qs {
			if _, err := m.Score(context.Background(), &qs[j]); err != nil {
				b.Fatal(err)
			}
			pairs += len(qs[j].Candidates)
		}
	}
	b.ReportMetric(float64(pairs)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkScore100 scores one question with 100 candidates (the first
// question of WikiQA test, padded with the next questions' candidates), the
// request size of the service benchmark, with the recipe's BiRNN and without
// an RNN; it reports ms per question.
func BenchmarkScore100(b *testing.B) {
	qs, vecs := benchdata.WikiQA(b, "test")
	q := qs[0]
	for j := 1; len(q.Candidates) < 100; j++ {
		q.Candidates = append(q.Candidates, qs[j].Candidates...)
	}
	q.Candidates = q.Candidates[:100]
	for _, rnn := range []string{"birnn", "none"} {
		b.Run(rnn, func(b *testing.B) {
			h := RecipeHyper()
			if rnn == "none" {
				h.RNN = ""
			}
			m, err := New(h, vecs, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := m.Score(context.Background(), &q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/question")
		})
	}
}

// BenchmarkPrepare tokenises the WikiQA train questions once, the work
// that training did in every forward pass, every epoch, before questions
// were prepared once; it reports ms per pass over the questions.
func BenchmarkPrepare(b *testing.B) {
	qs, vecs := benchdata.WikiQA(b, "train")
	qs = dataset.Filter(qs, dataset.Answered)
	m, err := New(RecipeHyper(), vecs, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range qs {
			m.Prepare(&qs[j])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/pass")
}
