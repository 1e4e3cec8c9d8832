package bert_test

import (
	"fmt"
	"log"

	"github.com/as2/as2/encoder/bert"
)

// Load a Hugging Face checkpoint and encode token ids (here of a tiny
// random BERT; a tokenizer such as text/wordpiece makes the ids).
func Example() {
	m, err := bert.Load("testdata/tiny-bert-cls")
	if err != nil {
		log.Fatal(err)
	}
	// [CLS] question [SEP] answer [SEP], token types 0 then 1.
	ids := [][]int{{2, 30, 31, 32, 3, 70, 71, 72, 73, 3}, {2, 51, 3}}
	types := [][]int{{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, nil}
	states, err := m.States(ids, types)
	if err != nil {
		log.Fatal(err)
	}
	logits, err := m.Classify(ids, types)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Config.Architecture, states[0].Shape, states[1].Shape, len(logits[0]))
	// Output: BertForSequenceClassification [10 32] [3 32] 2
}
