package deberta_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/as2/as2/encoder/deberta"
)

// Load reads a checkpoint folder in Hugging Face's layout; Pair joins a
// question and an answer the way tokenizer.json's post-processor says.
func ExampleLoad() {
	enc, err := deberta.Load("testdata/tiny-deberta-v2")
	if err != nil {
		log.Fatal(err)
	}
	seq := enc.Pair(enc.Tokenize("Who wrote it?"), enc.Tokenize("Tolstoy."))
	var toks []string
	for _, id := range seq.IDs {
		tok, _ := enc.Tokenizer().Token(id)
		toks = append(toks, tok)
	}
	c := enc.Config()
	fmt.Println(c.Architecture, c.NumLabels, c.Span(), c.ScaleFactor())
	fmt.Println(strings.Join(toks, " "))
	// Output:
	// DebertaV2ForSequenceClassification 1 8 3
	// [CLS] ▁W ho ▁wro te ▁ it ? [SEP] ▁To l sto y . [SEP]
}
