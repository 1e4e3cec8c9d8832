package regression

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
)

var update = flag.Bool("update", false, "rewrite baselines.tsv with the measured scores")

const table = "baselines.tsv"

var columns = []string{"dataset", "split", "subset", "ranker", "questions", "map", "mrr", "p@1"}

type row struct {
	dataset, split, subset, ranker string
	questions                      int
	scores                         [3]float64
}

func readBaselines(t *testing.T) []row {
	f, err := os.Open(table)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != len(columns) {
			t.Fatalf("%s:%d: %d fields, want %d", table, n, len(f), len(columns))
		}
		r := row{dataset: f[0], split: f[1], subset: f[2], ranker: f[3]}
		if r.questions, err = strconv.Atoi(f[4]); err != nil {
			t.Fatalf("%s:%d: %v", table, n, err)
		}
		for i := range r.scores {
			if r.scores[i], err = strconv.ParseFloat(f[5+i], 64); err != nil {
				t.Fatalf("%s:%d: %v", table, n, err)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// TestBaselines recomputes every row of baselines.tsv on the real data.
func TestBaselines(t *testing.T) {
	shareddata.Tier(t, shareddata.Quick)
	data := shareddata.Dir(t)
	rows := readBaselines(t)
	ms := []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("mrr"), metric.MustParseMeasure("p@1")}
	loaded := map[string][]dataset.Question{}
	var out []string
	for _, r := range rows {
		key := r.dataset + "/" + r.split
		all, ok := loaded[key]
		if !ok {
			var err error
			all, err = catalog.Load(r.dataset, filepath.Join(data, r.dataset), r.split, catalog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			loaded[key] = all
		}
		sub, err := dataset.ParseSubset(r.subset)
		if err != nil {
			t.Fatal(err)
		}
		rk, err := rank.New(r.ranker, rank.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := evaluation.Evaluate(context.Background(), rk, dataset.Filter(all, sub), evaluation.Options{Measures: ms})
		if err != nil {
			t.Fatal(err)
		}
		var got [3]float64
		for i, m := range ms {
			got[i] = math.Round(rep.Result.Mean[m.Name]*1e4) / 1e4
		}
		if rep.Questions != r.questions || got != r.scores {
			if !*update {
				t.Errorf("%s %s %s %s: %d questions, map/mrr/p@1 %v; the table says %d, %v",
					r.dataset, r.split, r.subset, r.ranker, rep.Questions, got, r.questions, r.scores)
			}
		}
		out = append(out, fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%.4f\t%.4f\t%.4f", r.dataset, r.split, r.subset, r.ranker, rep.Questions, got[0], got[1], got[2]))
	}
	if *update {
		body := strings.Join(columns, "\t") + "\n" + strings.Join(out, "\n") + "\n"
		if err := os.WriteFile(table, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
