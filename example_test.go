package as2_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"

	"github.com/as2/as2"
	"github.com/as2/as2/rank"
)

// The few-line path: the built-in model picks the sentence of a paragraph
// that answers a question, with the calibrated probability that it does.
func Example() {
	doc := "The United States declared independence in 1776. George Washington was the first president of the United States. He served two terms."
	sel, err := as2.Select(context.Background(), "Who was the first president of the United States?", doc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (probability %.2f, answer: %v)\n", sel.Sentences[0].Text, sel.Probability, sel.Answer)
	// Output:
	// George Washington was the first president of the United States. (probability 0.81, answer: true)
}

// A rule-based ranker needs no model: bm25-stem matches "invented" with
// "invention".
func ExampleOpenRanker() {
	r, err := as2.OpenRanker(context.Background(), "bm25-stem")
	if err != nil {
		log.Fatal(err)
	}
	ranked, err := rank.Texts(context.Background(), r, "Who invented the telephone?", []string{
		"The telephone changed how people talk.",
		"Bell's invention of the telephone dates from 1876.",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ranked[0].Index)
	// Output: 1
}

// A cascade: BM25 passes its best two candidates on to the built-in model,
// which orders them.
func ExampleOpenRanker_cascade() {
	r, err := as2.OpenRanker(context.Background(), "cascade:bm25:2,builtin")
	if err != nil {
		log.Fatal(err)
	}
	cands := []string{
		"Mount Everest is in the Himalayas.",
		"Mount Everest is 8,849 metres tall.",
		"Mount Everest was first climbed in 1953.",
		"K2 is the second highest mountain.",
	}
	ranked, err := rank.Texts(context.Background(), r, "How tall is Mount Everest?", cands)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cands[ranked[0].Index])
	// Output: Mount Everest is 8,849 metres tall.
}

// NewServer builds the server as2 serve runs, here with the built-in model
// and BM25, as an http.Handler.
func ExampleNewServer() {
	c := as2.DefaultServerConfig()
	c.Rankers = []string{"builtin=builtin", "bm25=bm25"}
	srv, err := as2.NewServer(context.Background(), c)
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	resp, err := ts.Client().Post(ts.URL+"/v1/select", "application/json", strings.NewReader(
		`{"model": "builtin", "question": "Who invented the telephone?", "document": "The telephone changed how people talk. Alexander Graham Bell invented the telephone in 1876."}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"answer":true`))
	// Output: 200 true
}
