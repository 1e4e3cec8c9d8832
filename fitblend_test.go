package as2_test

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset"
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
