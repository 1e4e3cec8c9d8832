package as2_test

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/as2/as2"
	"github.com/as2/as2/index"
	"github.com/as2/as2/rank"
)

// An FAQ's answers, encoded once into a BM25 index and searched.
func ExampleBuildIndex() {
	ctx := context.Background()
	ids := []string{"pw", "mail", "bill"}
	answers := []string{
		"To reset your password, open Settings and choose Reset password.",
		"Change your e-mail address under Settings, Account.",
		"Invoices are sent on the first day of each month.",
	}
	x, err := as2.BuildIndex(ctx, ids, answers, as2.WithRetriever("bm25"))
	if err != nil {
		panic(err)
	}
	hits, err := x.Search(ctx, "How do I reset my password?", 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(hits[0].ID, hits[0].Text)
	// Output: pw To reset your password, open Settings and choose Reset password.
}

// An index file, as as2 index build writes it, opened for searching: its
// question encoder is rebuilt from what the file records. OpenIndex opens
// one by path; serve.Server.AddIndex takes x.ServeIndex().
func ExampleReadIndex() {
	ctx := context.Background()
	built, err := as2.BuildIndex(ctx, []string{"fr", "it"}, []string{"Paris is the capital of France.", "Rome is the capital of Italy."})
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer
	if _, err := built.WriteTo(&file); err != nil {
		panic(err)
	}
	x, err := as2.ReadIndex(ctx, &file)
	if err != nil {
		panic(err)
	}
	hits, err := x.Search(ctx, "Which city is the capital of Italy?", 2)
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Printf("%s %.4f %s\n", h.ID, h.Score, h.Text)
	}
	fmt.Println(x.Description())
	// Output:
	// it 1.4224 Rome is the capital of Italy.
	// fr 0.7293 Paris is the capital of France.
	// bm25 (k1 1.2, b 0.75, stopwords false, as2 tokenizer, no stemming)
}

// Hybrid retrieval: bm25 over exact words fused with bm25 over Snowball
// stems by reciprocal rank fusion, the stems' list weighted 2, printed as
// as2 index search prints its tsv. Only the stems match "passwords" to
// "password": the words put the shorter e-mail answer first, the stems the
// password one, which the weight puts first (1/62 + 2/61 against
// 1/61 + 2/62).
func ExampleIndex_Fuse() {
	ctx := context.Background()
	ids := []string{"pw", "mail"}
	answers := []string{"To reset your password, go to Settings and pick Reset.", "Change your e-mail under Settings."}
	stem := rank.DefaultOptions()
	stem.Stem = true
	words, err := as2.BuildIndex(ctx, ids, answers)
	if err != nil {
		panic(err)
	}
	stems, err := as2.BuildIndex(ctx, ids, answers, as2.WithIndexOptions(index.Options{BM25: &stem}))
	if err != nil {
		panic(err)
	}
	x, err := words.Fuse(stems, 2, index.FusionRRF, 10)
	if err != nil {
		panic(err)
	}
	hits, err := x.Search(ctx, "Settings for passwords", 2)
	if err != nil {
		panic(err)
	}
	w, err := as2.NewHitWriter(os.Stdout, as2.HitsTSV, false)
	if err != nil {
		panic(err)
	}
	if err := w.Write(1, "Settings for passwords", hits); err != nil {
		panic(err)
	}
	// Output:
	// rank	score	id	answer
	// 1	0.0489	pw	To reset your password, go to Settings and pick Reset.
	// 2	0.0487	mail	Change your e-mail under Settings.
}
