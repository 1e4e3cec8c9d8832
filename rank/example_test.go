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

// A "-stem" ranker matches words by their stems: "invented" in the question
// meets "invention" in a sentence, which plain word overlap misses (it ties
// the two sentences, and the first wins).
func ExampleNew_stem() {
	q := &dataset.Question{Text: "Who invented the telephone?", Candidates: []dataset.Candidate{
		{ID: "0", Text: "The telephone changed the world.", Position: 0},
		{ID: "1", Text: "The telephone is an invention of Bell.", Position: 1},
	}}
	for _, name := range []string{"wo", "wo-stem"} {
		r, _ := rank.New(name, rank.DefaultOptions())
		ranked, _ := rank.Rank(context.Background(), r, q)
		fmt.Printf("%s: %s\n", name, q.Candidates[ranked[0].Index].Text)
	}
	// Output:
	// wo: The telephone changed the world.
	// wo-stem: The telephone is an invention of Bell.
}

// AnswerType marks the sentences that hold the kind of answer the question
// asks for: here a year the question does not already name.
func ExampleAnswerType() {
	q := &dataset.Question{Text: "When was the telephone patented?", Candidates: []dataset.Candidate{
		{ID: "0", Text: "The telephone was patented by Bell.", Position: 0},
		{ID: "1", Text: "The patent was granted in March 1876.", Position: 1},
	}}
	s, _ := rank.AnswerType{}.Score(context.Background(), q)
	fmt.Println(rank.KindOf(q.Text), s)
	// Output:
	// date [0 1]
}
