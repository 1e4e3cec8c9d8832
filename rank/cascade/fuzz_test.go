package cascade

import (
	"context"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// FuzzParse: any spec is refused with an error or parses to one stage per
// comma-separated part, each passing a K ≥ 0 on, and the cascade then
// scores every candidate of a question.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"bm25:100,wo+rr:10", "bm25:100, cosinet=m.as2:10,ca=m2.as2", "wo:1", "bm25:-1", "a=b=c:2", ":", ",", "rr:5:6"} {
		f.Add(s)
	}
	// Rule rankers resolve as as2's commands resolve them; files are not read.
	resolve := func(name, file string) (rank.Ranker, error) {
		if file != "" {
			return rank.New("wo", rank.DefaultOptions())
		}
		return rank.New(name, rank.DefaultOptions())
	}
	q := &dataset.Question{ID: "q", Text: "Who wrote Hamlet?", Candidates: []dataset.Candidate{
		{ID: "0", Text: "Hamlet is a tragedy."}, {ID: "1", Text: "Shakespeare wrote Hamlet.", Position: 1}, {ID: "2", Position: 2},
	}}
	f.Fuzz(func(t *testing.T, spec string) {
		c, err := Parse(spec, resolve)
		if err != nil {
			return
		}
		if n := len(strings.Split(spec, ",")); len(c.Stages) != n {
			t.Fatalf("%q: %d stages from %d parts", spec, len(c.Stages), n)
		}
		for _, s := range c.Stages {
			if s.K < 0 || s.Name == "" || s.Ranker == nil {
				t.Fatalf("%q: stage %+v", spec, s)
			}
		}
		scores, err := c.Score(context.Background(), q)
		if err != nil {
			t.Fatalf("%q: %v", spec, err)
		}
		if len(scores) != len(q.Candidates) {
			t.Fatalf("%q: %d scores for %d candidates", spec, len(scores), len(q.Candidates))
		}
	})
}
