package evaluation

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trec"
)

func TestRunScores(t *testing.T) {
	inf := math.Inf(1)
	tiny := math.Nextafter(1, 2)
	for _, tc := range []struct {
		name   string
		scores []float64
		want   []float64 // nil: only check strict decrease
	}{
		{"distinct scores are kept", []float64{3, 2.5, -1}, []float64{3, 2.5, -1}},
		{"a tie steps down by 1e-6", []float64{3, 3, 3, 1}, []float64{3, 3 - 3e-6, 3 - 6e-6, 1}},
		{"a tie stays above the next score", []float64{1, 1, 1, 1 - 1e-7}, nil},
		{"all tied at zero", []float64{0, 0, 0}, []float64{0, -1e-6, -2e-6}},
		{"infinities become finite", []float64{inf, 2, -inf, -inf}, []float64{3, 2, 1, 1 - 1e-6}},
		{"only -Inf", []float64{-inf, -inf}, []float64{-1, -1 - 1e-6}},
		{"adjacent floats tied", []float64{tiny, tiny, 1, 1}, nil},
		{"NaN falls back to ranks", []float64{math.NaN(), 1}, []float64{2, 1}},
		{"huge magnitudes", []float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, nil},
		{"empty", nil, []float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ranked := make([]rank.Scored, len(tc.scores))
			for i, s := range tc.scores {
				ranked[i] = rank.Scored{Index: i, Score: s}
			}
			got := RunScores(ranked)
			for k := range got {
				// What is written must read back strictly decreasing.
				back, _ := strconv.ParseFloat(strconv.FormatFloat(got[k], 'g', -1, 64), 64)
				if math.IsNaN(back) || math.IsInf(back, 0) || (k > 0 && !(back < got[k-1])) {
					t.Fatalf("scores %v: written %v, not finite and strictly decreasing", tc.scores, got)
				}
			}
			if tc.want == nil {
				return
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k := range got {
				if math.Abs(got[k]-tc.want[k]) > 1e-12*max(1, math.Abs(tc.want[k])) {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestRunFilesEvaluateAlike writes the run and qrels of every rule-based
// ranker on the real benchmarks and evaluates them as trec_eval does
// (trec.Evaluate, ties by docno): the numbers must be as2's own. Ties are
// common (WO, BM25 and Jaccard score many candidates alike), so this fails
// if a written run does not keep as2's order. When a trec_eval binary is on
// PATH it evaluates the files too (Debian does not package it).
func TestRunFilesEvaluateAlike(t *testing.T) {
	data := shareddata.Dir(t)
	ms := []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("mrr"), metric.MustParseMeasure("p@1"),
		metric.MustParseMeasure("ndcg@10"), metric.MustParseMeasure("recall@5")}
	trecEval, _ := exec.LookPath("trec_eval")
	for _, ds := range []struct{ name, split string }{{"wikiqa", "test"}, {"trecqa", "test"}, {"squad", "dev"}} {
		all, err := catalog.Load(ds.name, filepath.Join(data, ds.name), ds.split, catalog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		qs := dataset.Filter(all, dataset.Answered)
		if testing.Short() && len(qs) > 2000 {
			qs = qs[:2000] // SQuAD-sent: a fifth of it under -short
		}
		var qrelsBuf bytes.Buffer
		if err := WriteQrels(&qrelsBuf, qs); err != nil {
			t.Fatal(err)
		}
		qrels, err := trec.ReadQrels(bytes.NewReader(qrelsBuf.Bytes()), "qrels")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range rank.Names {
			for _, ties := range []Ties{ByPosition, Random} {
				if ties == Random && name != "wo" {
					continue // one ranker with random ties is enough
				}
				t.Run(fmt.Sprintf("%s/%s/%s", ds.name, name, ties), func(t *testing.T) {
					rk, err := rank.New(name, rank.DefaultOptions())
					if err != nil {
						t.Fatal(err)
					}
					rep, err := Evaluate(context.Background(), rk, qs, Options{Measures: ms, Ties: ties, Seed: 1})
					if err != nil {
						t.Fatal(err)
					}
					var runBuf bytes.Buffer
					if err := WriteRun(&runBuf, rep, name); err != nil {
						t.Fatal(err)
					}
					run, err := trec.ReadRun(bytes.NewReader(runBuf.Bytes()), "run")
					if err != nil {
						t.Fatal(err)
					}
					res, err := trec.Evaluate(run, qrels, ms, trec.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.PerQuery) != len(qs) {
						t.Fatalf("%d questions through the run file, %d by as2", len(res.PerQuery), len(qs))
					}
					for _, m := range ms {
						if d := math.Abs(res.Mean[m.Name] - rep.Result.Mean[m.Name]); d > 1e-4 {
							t.Errorf("%s: %.4f by as2, %.4f through the run file", m.Name, rep.Result.Mean[m.Name], res.Mean[m.Name])
						}
					}
					if trecEval != "" {
						checkTrecEval(t, trecEval, runBuf.Bytes(), qrelsBuf.Bytes(), rep.Result)
					}
				})
			}
		}
	}
}

// checkTrecEval runs the real trec_eval on the files and compares its map
// and recip_rank with as2's.
func checkTrecEval(t *testing.T, bin string, run, qrels []byte, want metric.Result) {
	t.Helper()
	dir := t.TempDir()
	runFile, qrelsFile := filepath.Join(dir, "run"), filepath.Join(dir, "qrels")
	if err := os.WriteFile(runFile, run, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(qrelsFile, qrels, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-m", "map", "-m", "recip_rank", qrelsFile, runFile).Output()
	if err != nil {
		t.Fatalf("trec_eval: %v", err)
	}
	names := map[string]string{"map": "map", "recip_rank": "mrr"}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "all" || names[f[0]] == "" {
			continue
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatalf("trec_eval output %q: %v", line, err)
		}
		seen++
		if d := math.Abs(v - want.Mean[names[f[0]]]); d > 1e-4 {
			t.Errorf("trec_eval %s %.4f, as2 %.4f", f[0], v, want.Mean[names[f[0]]])
		}
	}
	if seen != 2 {
		t.Fatalf("trec_eval printed no map or recip_rank:\n%s", out)
	}
}
