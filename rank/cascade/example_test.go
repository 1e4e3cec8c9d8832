package cascade_test

import (
	"context"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/cascade"
)

func ExampleParse() {
	c, err := cascade.Parse("bm25:2,wo+rr", func(name, file string) (rank.Ranker, error) {
		return rank.New(name, rank.DefaultOptions()) // a model file would be loaded here
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	q := &dataset.Question{Text: "Who wrote Hamlet?", Candidates: []dataset.Candidate{
		{ID: "0", Text: "Hamlet is a tragedy.", Position: 0},
		{ID: "1", Text: "Shakespeare wrote Hamlet.", Position: 1},
		{ID: "2", Text: "It is set in Denmark.", Position: 2},
	}}
	ranked, _ := rank.Rank(context.Background(), c, q)
	for _, s := range ranked {
		fmt.Println(q.Candidates[s.Index].Text)
	}
	for _, st := range c.Stats() {
		fmt.Printf("stage %s scored %d candidates\n", st.Name, st.Pairs)
	}
	// Output:
	// Shakespeare wrote Hamlet.
	// Hamlet is a tragedy.
	// It is set in Denmark.
	// stage bm25 scored 3 candidates
	// stage wo+rr scored 2 candidates
}
