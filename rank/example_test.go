package rank_test

import (
	"context"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

func ExampleRank() {
	q := &dataset.Question{Text: "Who wrote Hamlet?", Candidates: []dataset.Candidate{
		{ID: "0", Text: "Hamlet is a tragedy.", Position: 0},
		{ID: "1", Text: "Shakespeare wrote Hamlet around 1600.", Position: 1},
		{ID: "2", Text: "It is set in Denmark.", Position: 2},
	}}
	r, _ := rank.New("wo+rr", rank.DefaultOptions())
	ranked, _ := rank.Rank(context.Background(), r, q)
	for _, s := range ranked {
		fmt.Printf("%.3f %s\n", s.Score, q.Candidates[s.Index].Text)
	}
	// Output:
	// 2.333 Shakespeare wrote Hamlet around 1600.
	// 1.500 Hamlet is a tragedy.
	// 0.250 It is set in Denmark.
}
