package builtin_test

import (
	"context"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/rank"
)

// The built-in model ranks a document's sentences with no file to load,
// and its calibration says whether the best one answers. The calibration
// was fitted on WikiQA dev, where most documents hold no answer, so it is
// strict: the right sentence for Hamlet gets 0.376.
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
		best := ranked[0]
		fmt.Printf("%s %q p=%.3f answer=%v\n", question, doc[best.Index], cal.Prob(best.Score), cal.Answer(best.Score))
	}
	fmt.Printf("threshold %.3f\n", cal.Threshold)
	// Output:
	// Who wrote Hamlet? "It was written by William Shakespeare around 1600." p=0.376 answer=true
	// How tall is Mount Everest? "Hamlet is a tragedy in five acts." p=0.064 answer=false
	// threshold 0.268
}
