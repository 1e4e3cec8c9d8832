package evaluation_test

import (
	"context"
	"fmt"
	"os"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/rank"
)

func ExampleEvaluate() {
	qs := []dataset.Question{{ID: "q1", Text: "Who wrote Hamlet?", Candidates: []dataset.Candidate{
		{ID: "0", Text: "Hamlet is a tragedy.", Position: 0, Label: 0},
		{ID: "1", Text: "It was written by William Shakespeare.", Position: 1, Label: 1},
		{ID: "2", Text: "Shakespeare wrote Hamlet around 1600.", Position: 2, Label: 1},
	}}}
	for _, name := range []string{"rr", "wo+rr"} {
		r, _ := rank.New(name, rank.DefaultOptions())
		rep, _ := evaluation.Evaluate(context.Background(), r, qs, evaluation.Options{})
		fmt.Printf("%-5s MAP %.4f  MRR %.4f  P@1 %.4f\n", name, rep.Result.Mean["map"], rep.Result.Mean["mrr"], rep.Result.Mean["p@1"])
	}
	// Output:
	// rr    MAP 0.5833  MRR 0.5000  P@1 0.0000
	// wo+rr MAP 0.8333  MRR 1.0000  P@1 1.0000
}

func ExampleWriteRankings() {
	qs := []dataset.Question{{ID: "q1", Text: "Who wrote Hamlet?", Candidates: []dataset.Candidate{
		{ID: "0", Text: "Hamlet is a tragedy.", Position: 0},
		{ID: "1", Text: "Shakespeare wrote Hamlet around 1600.", Position: 1},
	}}}
	r, _ := rank.New("wo+rr", rank.DefaultOptions())
	// As as2 rank --format trec --top 1 writes it.
	err := evaluation.WriteRankings(context.Background(), os.Stdout, r, qs, evaluation.RankingOptions{Format: evaluation.TREC, Tag: "wo_rr", Top: 1}, nil)
	fmt.Println(err)
	// Output:
	// q1 Q0 1 1 2.3333333333333335 wo_rr
	// <nil>
}
