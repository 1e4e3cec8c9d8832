package as2_test

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/blend"
)

// blendQuestions are labelled questions that word overlap ranks well.
func blendQuestions() []dataset.Question {
	mk := func(id, q string, correct int, cands ...string) dataset.Question {
		out := dataset.Question{ID: id, Text: q}
		for i, c := range cands {
			label := dataset.Negative
			if i == correct {
				label = dataset.Positive
			}
			out.Candidates = append(out.Candidates, dataset.Candidate{ID: id + string(rune('a'+i)), Text: c, Position: i, Label: label})
		}
		return out
	}
	return []dataset.Question{
		mk("1", hamletQ, 1, hamletCands...),
		mk("2", "where is paris?", 0, "Paris is in France.", "It is big.", "Many visit it."),
		mk("3", "what colour is the sky?", 2, "Grass is green.", "It rains.", "The sky is blue."),
		mk("4", "who painted the mona lisa?", 0, "Leonardo painted the Mona Lisa.", "It hangs in Paris.", "It is small."),
	}
}

func TestFitBlend(t *testing.T) {
	dir := t.TempDir()
	qs := blendQuestions()
	for _, tc := range []struct {
		name  string
		specs []string
		o     as2.BlendOptions
		cv    bool
	}{
		{"logistic", []string{"wo", "bm25"}, as2.BlendOptions{Options: blend.Options{L2: 1e-3}}, false},
		{"listwise cv", []string{"wo", "bm25", "rr"}, as2.BlendOptions{Options: blend.Options{Listwise: true}, Folds: 2, Dir: dir}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := as2.FitBlend(context.Background(), tc.specs, qs, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.MAP) != len(tc.specs)+1 || f.Questions != len(qs) || (len(f.CV) > 0) != tc.cv {
				t.Fatalf("%+v", f)
			}
			// The file, read back, scores as the fitted blend does.
			path := filepath.Join(cmp.Or(tc.o.Dir, t.TempDir()), "b.json")
			var b strings.Builder
			if err := blend.WriteSpec(&b, f.File); err != nil {
				t.Fatal(err)
			}
			writeTestFile(t, path, b.String())
			back, err := as2.OpenRanker(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range qs {
				want, _ := f.Blend.Score(context.Background(), &qs[i])
				got, err := back.Score(context.Background(), &qs[i])
				if err != nil || !sameScores(got, want) {
					t.Errorf("question %s: file %v, %v; fitted %v", qs[i].ID, got, err, want)
				}
			}
			var table, cv strings.Builder
			f.WriteTable(&table)
			f.WriteCV(&cv)
			lines := strings.Split(strings.TrimSpace(table.String()), "\n")
			if len(lines) != len(tc.specs)+2 || !strings.HasPrefix(lines[0], "ranker") || !strings.HasPrefix(lines[1], tc.specs[0]+" ") || !strings.HasPrefix(lines[len(lines)-1], "blend (bias ") {
				t.Errorf("table:\n%s", table.String())
			}
			if tc.cv != strings.Contains(cv.String(), "held-out loss (2 folds)") {
				t.Errorf("cv table:\n%s", cv.String())
			}
		})
	}
}

func TestFitBlendErrors(t *testing.T) {
	qs := blendQuestions()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		specs []string
		o     as2.BlendOptions
		want  string
	}{
		{"unknown", []string{"wo", "nosuch"}, as2.BlendOptions{}, "nosuch: "},
		{"missing file", []string{filepath.Join(t.TempDir(), "m.as2")}, as2.BlendOptions{}, "file not found"},
		{"one fold", []string{"wo"}, as2.BlendOptions{Folds: 1}, "cv 1: needs at least 2 folds"},
		{"negative folds", []string{"wo"}, as2.BlendOptions{Folds: -2}, "cv -2: needs at least 2 folds"},
		{"negative penalty", []string{"wo"}, as2.BlendOptions{Options: blend.Options{L2: -0.5}}, "l2 -0.5: must be >= 0"},
		{"open's error as it is", []string{"wo"}, as2.BlendOptions{Open: func(string) (rank.Ranker, error) { return nil, boom }}, "boom"},
	} {
		_, err := as2.FitBlend(context.Background(), tc.specs, qs, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.o.Open != nil && !errors.Is(err, boom) {
			t.Errorf("%s: %v is not Open's error", tc.name, err)
		}
	}
}

// A missing file is named once, not once by FitBlend and again by
// OpenRanker.
func TestFitBlendNamesMissingFileOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.as2")
	for _, spec := range []string{path, as2.FilePrefix + path} {
		_, err := as2.FitBlend(context.Background(), []string{spec}, blendQuestions(), as2.BlendOptions{})
		if err == nil || strings.Count(err.Error(), path) != 1 || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want %s named once", spec, err, path)
		}
	}
}

// counting is a ranker that counts the times it scores each question.
type counting struct {
	rank.Ranker
	calls map[string]int // by question id
}

func (c *counting) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	c.calls[q.ID]++
	return c.Ranker.Score(ctx, q)
}

// TestFitBlendScoresOnce: FitBlend fits on the rankers' scores and
// measures each ranker and the blend on the same questions, every ranker
// scoring each question once; its MAPs are evaluation's, and the blend it
// returns holds the rankers opened, which rank other questions too.
func TestFitBlendScoresOnce(t *testing.T) {
	ctx := context.Background()
	qs := blendQuestions()
	qs[3].Candidates = append(qs[3].Candidates, dataset.Candidate{ID: "4e", Text: " ", Position: 3, Label: dataset.Negative})
	specs := []string{"wo", "bm25"}
	for _, folds := range []int{0, 2} {
		opened := map[string]*counting{}
		open := func(spec string) (rank.Ranker, error) {
			r, err := as2.OpenRanker(ctx, spec)
			if err != nil {
				return nil, err
			}
			opened[spec] = &counting{Ranker: r, calls: map[string]int{}}
			return opened[spec], nil
		}
		f, err := as2.FitBlend(ctx, specs, qs, as2.BlendOptions{Options: blend.Options{L2: 1e-3}, Folds: folds, Open: open})
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range specs {
			for _, q := range qs {
				// Evaluation scores a question without its empty
				// candidate: another question to the ranker.
				want := 1
				if q.HasEmpty() {
					want = 2
				}
				if n := opened[spec].calls[q.ID]; n != want {
					t.Errorf("%d folds: %s scored question %s %d times, want %d", folds, spec, q.ID, n, want)
				}
			}
		}
		for i, r := range append(slices.Clone(f.Blend.Rankers), rank.Ranker(f.Blend)) {
			if i < len(specs) && r != rank.Ranker(opened[specs[i]]) {
				t.Errorf("%d folds: the blend's ranker %d is %T, not the one opened", folds, i, r)
			}
			rep, err := evaluation.Evaluate(ctx, r, qs, evaluation.Options{Measures: []metric.Measure{metric.MustParseMeasure("map")}})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := f.MAP[i], rep.Result.Mean["map"]; got != want {
				t.Errorf("%d folds: MAP %d %v, evaluation's %v", folds, i, got, want)
			}
		}
	}
}
