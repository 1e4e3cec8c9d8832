package weaviate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/as2/as2/index/weaviate"
)

// A pool of answer vectors stored in a local server (scripts/weaviate.sh
// start) and searched by inner product, as index.Flat would. Not run by go
// test: it needs the server.
func ExampleOpen() {
	ctx := context.Background()
	x, err := weaviate.Open(ctx, weaviate.Options{URL: weaviate.DefaultURL, Class: "FaqAnswer", Dim: 3, Create: true})
	if err != nil {
		log.Fatal(err) // e.g. weaviate at http://127.0.0.1:8079: connection refused
	}
	defer x.Delete(ctx)
	if err := x.AddContext(ctx, []string{"reset", "refund"}, [][]float32{{1, 0, 0}, {0, 1, 0}}); err != nil {
		log.Fatal(err)
	}
	hits, err := x.Search(ctx, []float32{0.9, 0.1, 0}, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(hits[0].ID, hits[0].Score)
}
