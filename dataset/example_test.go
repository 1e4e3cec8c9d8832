package dataset_test

import (
	"fmt"
	"strings"

	"github.com/as2/as2/dataset"
)

func ExampleReadJSONL() {
	in := `{"id": "q1", "question": "who wrote hamlet?", "candidates": [{"text": "Hamlet is a tragedy.", "label": 0}, {"text": "Shakespeare wrote it.", "label": 1}]}
{"id": "q2", "question": "where is elsinore?", "candidates": ["It is in Denmark."]}`
	qs, err := dataset.ReadJSONL(strings.NewReader(in), "example.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range qs {
		fmt.Printf("%s %q: %d candidates, %d correct, answered subset: %v\n",
			q.ID, q.Text, len(q.Candidates), q.Positives(), dataset.Answered.Keep(&q))
	}
	// Output:
	// q1 "who wrote hamlet?": 2 candidates, 1 correct, answered subset: true
	// q2 "where is elsinore?": 1 candidates, 0 correct, answered subset: false
}
