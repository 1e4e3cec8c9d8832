// Package benchdata loads the real benchmarks that the neural rankers' tests
// and benchmarks train and evaluate on. Like shareddata.Dir, which it
// builds on, it skips a test when the data are absent. (It is a package of
// its own because the readers' own tests use shareddata.)
package benchdata

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/wikiqa"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
)

// WikiQA returns a WikiQA split and the static encoder over the GloVe
// vectors the neural rankers train with (the as2-vocab file), or skips t.
func WikiQA(t testing.TB, split string) ([]dataset.Question, *encoder.Static[float32]) {
	t.Helper()
	data := shareddata.Dir(t)
	qs, err := wikiqa.Load(filepath.Join(data, "wikiqa"), split)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := embed.Load(filepath.Join(data, "embeddings", "glove.6B.100d.wink.as2-vocab.txt.gz"), "auto")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := encoder.NewStatic[float32](vecs)
	if err != nil {
		t.Fatal(err)
	}
	return qs, enc
}

// AnsweredMAPMRR evaluates r on the answered questions of qs and returns
// its MAP and MRR and the number of questions.
func AnsweredMAPMRR(t testing.TB, r rank.Ranker, qs []dataset.Question) (mapv, mrr float64, n int) {
	t.Helper()
	rep, err := evaluation.Evaluate(context.Background(), r, dataset.Filter(qs, dataset.Answered),
		evaluation.Options{Measures: []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("mrr")}})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Result.Mean["map"], rep.Result.Mean["mrr"], rep.Questions
}

// Pairs counts the question-candidate pairs of qs, the unit benchmarks
// report throughput in.
func Pairs(qs []dataset.Question) int {
	n := 0
	for _, q := range qs {
		n += len(q.Candidates)
	}
	return n
}
