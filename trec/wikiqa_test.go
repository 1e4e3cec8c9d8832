package trec

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/as2/as2/metric"
)

// wikiqaDir holds the official WikiQA corpus files, with the paper's system
// outputs under emnlp-table/.
const wikiqaDir = "../../shared/data/wikiqa/WikiQACorpus/"

func readFile[T any](t *testing.T, name string, read func(f *os.File, name string) (T, error)) T {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := read(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestWikiQAPaperNumbers reproduces the MAP and MRR that the WikiQA paper
// (Yang et al., EMNLP 2015) reports for its CNN system, from its released
// ranking and the filtered test qrels (237 questions), with trec_eval's
// default query set: the queries in both files.
func TestWikiQAPaperNumbers(t *testing.T) {
	if _, err := os.Stat(wikiqaDir); err != nil {
		t.Skipf("../shared not found: %v", err)
	}
	qrels := readFile(t, filepath.Join(wikiqaDir, "WikiQA-test-filtered.ref"),
		func(f *os.File, n string) (Qrels, error) { return ReadQrels(f, n) })
	ms := []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("mrr")}
	for _, tt := range []struct {
		system   string
		map_, rr float64 // expected, rounded to 4 decimals
	}{
		// The paper's numbers, reproduced exactly.
		{"CNN", 0.6190, 0.6281},
		// The paper reports MAP 0.6520, MRR 0.6652 for CNN-Cnt, but its
		// released ranking gives 0.6591, 0.6738 here, with any tie-breaking
		// (its 15 tied pairs change nothing) and no query set reproduces the
		// paper (243 queries with a correct answer: 0.6675, 0.6818). So this
		// checks our own value, as a regression test.
		{"CNN-Cnt", 0.6591, 0.6738},
	} {
		run := readFile(t, filepath.Join(wikiqaDir, "emnlp-table", "WikiQA."+tt.system+".test.rank"),
			func(f *os.File, n string) (Run, error) { return ReadRun(f, n) })
		res, err := Evaluate(run, qrels, ms, Options{})
		if err != nil {
			t.Fatal(err)
		}
		gotMAP, gotMRR := res.Mean["map"], res.Mean["mrr"]
		t.Logf("%s: %d queries, MAP %.6f, MRR %.6f", tt.system, len(res.PerQuery), gotMAP, gotMRR)
		if round4(gotMAP) != tt.map_ || round4(gotMRR) != tt.rr {
			t.Errorf("%s: MAP %.4f MRR %.4f, want %.4f %.4f", tt.system, gotMAP, gotMRR, tt.map_, tt.rr)
		}
	}
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
