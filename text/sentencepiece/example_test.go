package sentencepiece_test

import (
	"fmt"
	"log"

	"github.com/as2/as2/text/sentencepiece"
)

func Example() {
	pieces := []sentencepiece.Piece{
		{Text: "<unk>", Type: sentencepiece.Unknown},
		{Text: "▁the", Score: -2},
		{Text: "▁cat", Score: -4},
		{Text: "▁ca", Score: -5},
		{Text: "s", Score: -3},
		{Text: "t", Score: -3.5},
		{Text: "▁", Score: -2.5},
	}
	tok, err := sentencepiece.New(pieces, sentencepiece.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.Pieces("The  cats!"))
	fmt.Println(tok.Encode("the  cats!"))
	// Output:
	// [▁ The ▁cat s !]
	// [1 2 4 0]
}
