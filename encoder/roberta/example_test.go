package roberta_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/as2/as2/encoder/roberta"
)

// Load reads a checkpoint folder in Hugging Face's layout; Pair joins a
// question and an answer the way tokenizer.json's post-processor says.
func ExampleLoad() {
	enc, err := roberta.Load("testdata/tiny-xlm-roberta")
	if err != nil {
		log.Fatal(err)
	}
	seq := enc.Pair(enc.Tokenize("Who wrote it?"), enc.Tokenize("Tolstoy."))
	var toks []string
	for _, id := range seq.IDs {
		tok, _ := enc.Tokenizer().Token(id)
		toks = append(toks, tok)
	}
	fmt.Println(enc.Config().Architecture, enc.Config().BERT.NumLabels)
	fmt.Println(strings.Join(toks, " "))
	// Output:
	// XLMRobertaForSequenceClassification 1
	// <s> ▁W ho ▁wro te ▁ it ? </s> </s> ▁To l sto y . </s>
}
