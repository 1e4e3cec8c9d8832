package builtin_test

import (
	"context"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/rank"
)

// The built-in model ranks a document's sentences with no file to load,
// and its calibration says whether the best one answers.
func Example() {
	m, err := builtin.Ranker()
	if err != nil {
		fmt.Println(err)
		return
	}
	cal := builtin.Calibration()
	doc := []string{
		"Hamlet is a tragedy in five acts.",
		"It was written by William Shakespeare around 1600.",
		"The play is set in Denmark.",
	}
	for _, question := range []string{"Who wrote Hamlet?", "How tall is Mount Everest?"} {
		q := dataset.Question{Text: question}
		for i, s := range doc {
			q.Candidates = append(q.Candidates, dataset.Candidate{Text: s, Position: i, Label: dataset.Unlabeled})
		}
		ranked, err := rank.Rank(context.Background(), m, &q)
		if err != nil {
			fmt.Println(err)
			return
		}
		if best := ranked[0]; cal.Answer(best.Score) {
			fmt.Printf("%s %q (p=%.2f)\n", question, doc[best.Index], cal.Prob(best.Score))
		} else {
			fmt.Printf("%s no answer\n", question)
		}
	}
	// Output:
	// Who wrote Hamlet? "It was written by William Shakespeare around 1600." (p=0.22)
	// How tall is Mount Everest? no answer
}
