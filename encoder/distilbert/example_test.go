package distilbert_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/as2/as2/encoder/distilbert"
)

// Load reads a checkpoint folder in Hugging Face's layout; Pair joins a
// question and an answer as [CLS] q [SEP] a [SEP].
func ExampleLoad() {
	enc, err := distilbert.Load("testdata/tiny-distilbert")
	if err != nil {
		log.Fatal(err)
	}
	seq := enc.Pair(enc.Tokenize("Who wrote it?"), enc.Tokenize("Tolstoy."))
	var toks []string
	for _, id := range seq.IDs {
		tok, _ := enc.Tokenizer().Token(id)
		toks = append(toks, tok)
	}
	fmt.Println(enc.Config().Architecture, enc.Config().BERT.NumLabels, seq.Types != nil)
	fmt.Println(strings.Join(toks, " "))
	// Output:
	// DistilBertForSequenceClassification 2 false
	// [CLS] who wrote it ? [SEP] tolstoy . [SEP]
}
