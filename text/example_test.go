package text_test

import (
	"fmt"

	"github.com/as2/as2/text"
)

func ExampleTokenize() {
	toks := text.Tokenize("Don't panic: the U.S. population grew 3.5% in the 1990s, O’Neill’s well-known report says.")
	fmt.Printf("%q\n", toks)
	// Output:
	// ["do" "n't" "panic" ":" "the" "u.s." "population" "grew" "3.5" "%" "in" "the" "1990s" "," "o'neill" "'s" "well" "-" "known" "report" "says" "."]
}

func ExampleSplitSentences() {
	para := `Mr. J. R. R. Tolkien was born in 1892. He wrote "The Hobbit." It sold 3.5 million copies in the U.S. Army bases alone.`
	for _, s := range text.SplitSentences(para) {
		fmt.Printf("[%d:%d] %s\n", s.Start, s.End, s.Text)
	}
	// Output:
	// [0:38] Mr. J. R. R. Tolkien was born in 1892.
	// [39:61] He wrote "The Hobbit."
	// [62:118] It sold 3.5 million copies in the U.S. Army bases alone.
}

func ExampleRemoveStopwords() {
	fmt.Printf("%q\n", text.RemoveStopwords(text.Tokenize("Who were the Normans?")))
	// Output:
	// ["normans" "?"]
}
