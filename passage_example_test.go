package as2_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/as2/as2"
)

// A long document: the passage that answers, its byte offsets, and the
// best sentence within it. The article is 2,964 words of SQuAD's "Packet
// switching" (CC BY-SA 4.0); the answer is two thirds of the way in, past
// the service's default cap of 10 passages, so all are scored here (0).
func ExamplePassages() {
	doc, err := os.ReadFile("serve/testdata/packet-switching.txt")
	if err != nil {
		log.Fatal(err)
	}
	pr, err := as2.Passages(context.Background(), "Who developed DATAPAC?", string(doc), 0)
	if err != nil {
		log.Fatal(err)
	}
	best := pr.Passages[0]
	fmt.Printf("passage %d of %d, bytes [%d, %d), answers: %v\n", best.Index+1, pr.Total, best.Start, best.End, pr.Answer)
	fmt.Println(best.Sentence.Text)
	// Output:
	// passage 18 of 24, bytes [14134, 15225), answers: true
	// DATAPAC was developed by Bell Northern Research which was a joint venture of Bell Canada (a common carrier) and Northern Telecom (a telecommunications equipment supplier).
}
