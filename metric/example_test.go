package metric_test

import (
	"fmt"

	"github.com/as2/as2/metric"
)

func ExampleAveragePrecision() {
	// Relevant answers at ranks 1 and 3; a third relevant answer was not ranked.
	q := metric.Query{Ranked: []int{1, 0, 1, 0}, Judged: []int{1, 0, 1, 0, 1}}
	fmt.Printf("AP = (1/1 + 2/3) / 3 = %.4f\n", metric.AveragePrecision(q))
	// Output: AP = (1/1 + 2/3) / 3 = 0.5556
}

func ExampleEvaluate() {
	qs := []metric.Query{
		{ID: "q1", Ranked: []int{0, 1, 0}}, // every candidate ranked: Judged defaults to Ranked
		{ID: "q2", Ranked: []int{1, 0, 0}},
	}
	var ms []metric.Measure
	for _, name := range []string{"map", "mrr", "p@1", "r@2"} {
		m, err := metric.ParseMeasure(name)
		if err != nil {
			panic(err)
		}
		ms = append(ms, m)
	}
	res := metric.Evaluate(qs, ms)
	for _, q := range res.PerQuery {
		fmt.Printf("%s map=%.4f mrr=%.4f p@1=%.4f r@2=%.4f\n", q.ID, q.Values["map"], q.Values["mrr"], q.Values["p@1"], q.Values["r@2"])
	}
	fmt.Printf("mean map=%.4f mrr=%.4f p@1=%.4f r@2=%.4f\n", res.Mean["map"], res.Mean["mrr"], res.Mean["p@1"], res.Mean["r@2"])
	// Output:
	// q1 map=0.5000 mrr=0.5000 p@1=0.0000 r@2=1.0000
	// q2 map=1.0000 mrr=1.0000 p@1=1.0000 r@2=1.0000
	// mean map=0.7500 mrr=0.7500 p@1=0.5000 r@2=1.0000
}
