package retrieval_test

import (
	"fmt"

	"github.com/as2/as2/evaluation/retrieval"
	"github.com/as2/as2/index"
)

// Two questions: the first finds its gold answer second, the second
// finds one of its two gold answers first.
func ExampleMeasure() {
	runs := []retrieval.Run{
		{Hits: []index.Hit{{ID: "a", Score: 2}, {ID: "b", Score: 1}}, Gold: []string{"b"}},
		{Hits: []index.Hit{{ID: "c", Score: 2}, {ID: "d", Score: 1}}, Gold: []string{"c", "e"}},
	}
	res := retrieval.Measure(runs, []int{1})
	fmt.Printf("MRR %.2f, R@1 %.2f, Eq.15 R@1 %.2f\n", res.MRR, res.Success[0], res.RecallEq15[0])
	// Output: MRR 0.75, R@1 0.50, Eq.15 R@1 0.25
}
