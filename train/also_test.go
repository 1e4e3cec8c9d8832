package train

import (
	"errors"
	"testing"

	"github.com/as2/as2/dataset"
)

// TestAddPairs: --also's splits add their correct answers' pairs, the
// count line names each source, and a split that cannot be read stops it.
func TestAddPairs(t *testing.T) {
	q := func(text string, labels ...int) dataset.Question {
		out := dataset.Question{Text: text}
		for i, l := range labels {
			out.Candidates = append(out.Candidates, dataset.Candidate{Text: text + string(rune('a'+i)), Label: l})
		}
		return out
	}
	extra := map[string][]dataset.Question{
		"trecqa:train-all": {q("t1", dataset.Positive, dataset.Positive), q("t2", dataset.Negative)},
		"squad:train":      {q("s1", dataset.Positive)},
	}
	load := func(spec string) ([]dataset.Question, error) {
		if qs, ok := extra[spec]; ok {
			return qs, nil
		}
		return nil, errors.New("--also " + spec + ": no such split")
	}
	for _, tc := range []struct {
		also      []string
		pairs     int
		dataset   string
		line, err string
	}{
		{nil, 0, "wikiqa", "training pairs: wikiqa train: 1 (1 in all)", ""},
		{[]string{"trecqa:train-all"}, 2, "wikiqa+trecqa:train-all", "training pairs: wikiqa train: 1, trecqa:train-all: 2 (3 in all)", ""},
		{[]string{"trecqa:train-all", "squad:train"}, 3, "wikiqa+trecqa:train-all+squad:train", "training pairs: wikiqa train: 1, trecqa:train-all: 2, squad:train: 1 (4 in all)", ""},
		{[]string{"squad:train", "nosuch:x"}, 1, "wikiqa", "", "--also nosuch:x: no such split"},
	} {
		r := &Run{Questions: []dataset.Question{q("w1", dataset.Negative, dataset.Positive)}, Dataset: "wikiqa", Split: "train"}
		line, err := r.AddPairs(tc.also, load)
		if msg := errText(err); msg != tc.err || line != tc.line || len(r.Pairs) != tc.pairs || r.Dataset != tc.dataset {
			t.Errorf("%v: %q, %q, %d pairs, dataset %q; want %q, %q, %d, %q", tc.also, line, msg, len(r.Pairs), r.Dataset, tc.line, tc.err, tc.pairs, tc.dataset)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
