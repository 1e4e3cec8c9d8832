package trigger_test

import (
	"fmt"

	"github.com/as2/as2/trigger"
)

func ExampleFit() {
	// The top scores of dev questions, and whether the top answer was right.
	var dev []trigger.Top
	for i := 0; i < 40; i++ {
		s := float64(i % 10)
		dev = append(dev, trigger.Top{Score: s, Correct: s >= 6 || (s >= 4 && i%4 == 0), Answerable: s >= 3})
	}
	c, err := trigger.Fit(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("answer a question whose best score is 8: %v; 1: %v\n", c.Answer(8), c.Answer(1))
	// Output:
	// answer a question whose best score is 8: true; 1: false
}
