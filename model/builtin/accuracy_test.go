package builtin_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/model/builtin"
)

// TestAccuracy holds the built-in ranker's test rows of the README ("The
// built-in model") to floors just under what was measured (as2 eval
// --ranker builtin --subset answered): WikiQA test 0.7960 MAP, TrecQA
// clean test 0.8677, the SQuAD-sent test half 0.9143. The SQuAD half is
// 5,289 questions (about four minutes on 2 cores, for the two models);
// -short leaves it out.
func TestAccuracy(t *testing.T) {
	data := shareddata.Dir(t)
	r, err := builtin.Ranker()
	if err != nil {
		t.Fatal(err)
	}
	mapM := metric.MustParseMeasure("map")
	for _, c := range []struct {
		dataset, split string
		questions      int
		floor          float64
		long           bool
	}{
		{"wikiqa", "test", 243, 0.791, false},
		{"trecqa", "test", 68, 0.862, false},
		{"squad", "test", 5289, 0.909, true},
	} {
		t.Run(c.dataset, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("-short: the SQuAD-sent test half takes minutes")
			}
			all, err := catalog.Load(c.dataset, filepath.Join(data, c.dataset), c.split, catalog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			qs := dataset.Filter(all, dataset.Answered)
			rep, err := evaluation.Evaluate(context.Background(), r, qs, evaluation.Options{Measures: []metric.Measure{mapM}})
			if err != nil {
				t.Fatal(err)
			}
			got := rep.Result.Mean[mapM.Name]
			t.Logf("%s %s answered: %d questions, MAP %.4f (floor %.3f)", c.dataset, c.split, rep.Questions, got, c.floor)
			if rep.Questions != c.questions {
				t.Errorf("%d questions, want %d", rep.Questions, c.questions)
			}
			if got < c.floor {
				t.Errorf("MAP %.4f under its floor %.3f", got, c.floor)
			}
		})
	}
}
