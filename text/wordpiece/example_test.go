package wordpiece_test

import (
	"fmt"
	"log"

	"github.com/as2/as2/text/wordpiece"
)

func Example() {
	tok, err := wordpiece.Load("testdata/vocab.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.Tokenize("Unaffable Café, don't!"))
	ids, types := tok.EncodePair("hello world", "what is a tokenizer?", 0)
	fmt.Println(ids)
	fmt.Println(types)
	// Output:
	// [un ##aff ##able cafe , don ' t !]
	// [2 27 28 3 29 30 31 32 33 10 3]
	// [0 0 0 0 1 1 1 1 1 1 1]
}
