package trec_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trec"
)

func ExampleReadRun() {
	// WikiQA's released system outputs are 6-column runs (qidx 0 sentidx
	// label score pred): trec_eval reads the 5th column as the score and
	// ignores the 4th (rank).
	run, err := trec.ReadRun(strings.NewReader(`1 0 0 0 0.0374061375409 0
1 0 1 0 0.009280639066 0
1 0 2 0 0.0587835183134 0
`), "WikiQA.CNN.test.rank")
	if err != nil {
		panic(err)
	}
	qrels, err := trec.ReadQrels(strings.NewReader("1 0 0 0\n1 0 1 1\n1 0 2 0\n"), "WikiQA-test.ref")
	if err != nil {
		panic(err)
	}
	res, err := trec.Evaluate(run, qrels, []metric.Measure{metric.MustParseMeasure("map"), metric.MustParseMeasure("mrr")}, trec.Options{})
	if err != nil {
		panic(err)
	}
	// Sentence 1 has the lowest score: rank 3.
	fmt.Printf("%d results; MAP %.4f MRR %.4f\n", len(run.Results["1"]), res.Mean["map"], res.Mean["mrr"])
	// Output: 3 results; MAP 0.3333 MRR 0.3333
}

func ExampleRunRanker() {
	// Another system's scores for one question's candidates, as a ranker
	// that as2 can evaluate, blend or cascade.
	run, err := trec.ReadRun(strings.NewReader("q1 Q0 s0 1 0.2 bert\nq1 Q0 s1 2 0.9 bert\n"), "bert.run")
	if err != nil {
		panic(err)
	}
	q := &dataset.Question{ID: "q1", Text: "Who wrote Hamlet?", Candidates: []dataset.Candidate{
		{ID: "s0", Text: "Hamlet is a tragedy."},
		{ID: "s1", Text: "It was written by William Shakespeare."},
	}}
	ranked, err := rank.Rank(context.Background(), trec.NewRunRanker(run, "bert.run"), q)
	if err != nil {
		panic(err)
	}
	fmt.Println(q.Candidates[ranked[0].Index].Text)
	// Output: It was written by William Shakespeare.
}
