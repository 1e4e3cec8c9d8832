package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/index"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trigger"
)

// emptyLover scores an empty text above everything, as the built-in model
// once scored "" above the answer, and every other text by its length; it
// fails the test if it is ever given an empty text, which it must not be.
func emptyLover(t *testing.T) rank.Ranker {
	return rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		out := make([]float64, len(q.Candidates))
		for i, c := range q.Candidates {
			if strings.TrimSpace(c.Text) == "" {
				t.Errorf("the ranker was given the empty candidate %d (%q)", i, c.Text)
				out[i] = 100
				continue
			}
			out[i] = float64(len(c.Text))
		}
		return out, nil
	})
}

// TestEmptyDocuments checks the one rule for empty and null texts on every
// route: never scored, ranked last in the order given, with a null score.
func TestEmptyDocuments(t *testing.T) {
	s, err := New(map[string]rank.Ranker{"m": emptyLover(t)}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Calibrate("m", trigger.Calibration{A: 1, B: -10, Threshold: 0.5}); err != nil {
		t.Fatal(err)
	}
	pool := Index{
		Retriever: retrieverFunc(func(context.Context, string, int) ([]index.Hit, error) {
			return []index.Hit{{ID: "blank", Score: 3}, {ID: "short", Score: 2}, {ID: "long", Score: 1}}, nil
		}),
		Texts: map[string]string{"blank": " ", "short": "Shakespeare.", "long": "Shakespeare wrote it."},
	}
	if err := s.AddIndex("pool", pool); err != nil {
		t.Fatal(err)
	}
	base, stop := startServer(t, s)
	defer stop()

	// order returns the indices (or ids) of a response's results, with
	// "-" after those whose score is null.
	order := func(items []any, key, score string) string {
		var parts []string
		for _, it := range items {
			m := it.(map[string]any)
			p := fmt.Sprint(m[key])
			if sc, ok := m[score]; !ok {
				p += "?" // a missing score is a bug too
			} else if sc == nil {
				p += "-"
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, " ")
	}
	for _, tc := range []struct {
		name, path, body string
		key, score       string // result fields
		list             string // the results' field
		want             string
		check            func(out map[string]any) error
	}{
		{name: "rerank", path: "/v1/rerank", list: "results", key: "index", score: "relevance_score",
			body: `{"query": "who wrote hamlet?", "documents": ["Hamlet.", "", null, "  ", "Shakespeare wrote it."]}`,
			want: "4 0 1- 2- 3-"},
		{name: "rerank, top_n cuts into the empty ones", path: "/v1/rerank", list: "results", key: "index", score: "relevance_score",
			body: `{"query": "who wrote hamlet?", "documents": ["", "Hamlet.", null], "top_n": 2, "return_documents": true}`,
			want: "1 0-",
			check: func(out map[string]any) error {
				if doc := out["results"].([]any)[1].(map[string]any)["document"]; !reflect.DeepEqual(doc, map[string]any{"text": ""}) {
					return fmt.Errorf("the empty document is returned as %#v, want {\"text\": \"\"}", doc)
				}
				return nil
			}},
		{name: "rerank, every document empty", path: "/v1/rerank", list: "results", key: "index", score: "relevance_score",
			body: `{"query": "who wrote hamlet?", "documents": ["", null]}`,
			want: "0- 1-"},
		{name: "select sentences", path: "/v1/select", list: "sentences", key: "index", score: "score",
			body: `{"question": "who wrote hamlet?", "sentences": ["", "Shakespeare wrote it."]}`,
			want: "1 0-",
			check: func(out map[string]any) error {
				if out["answer"] != true {
					return fmt.Errorf("answer %v, want true: the scored sentence (21) passes the threshold", out["answer"])
				}
				return nil
			}},
		{name: "select, only empty sentences: no answer", path: "/v1/select", list: "sentences", key: "index", score: "score",
			body: `{"question": "who wrote hamlet?", "sentences": ["", " "]}`,
			want: "0- 1-",
			check: func(out map[string]any) error {
				if out["answer"] != false || out["probability"] != 0.0 {
					return fmt.Errorf("answer %v, probability %v; want false and 0", out["answer"], out["probability"])
				}
				return nil
			}},
		{name: "retrieve, rerank stage", path: "/v1/retrieve", list: "results", key: "id", score: "score",
			body: `{"index": "pool", "question": "who wrote hamlet?", "k": 3, "rerank": "m"}`,
			want: "long short blank-",
			check: func(out map[string]any) error {
				last := out["results"].([]any)[2].(map[string]any)
				if last["retrieval_score"] != 3.0 || last["retrieval_rank"] != 1.0 {
					return fmt.Errorf("the empty answer lost its retrieval score and rank: %v", last)
				}
				return nil
			}},
		{name: "retrieve, fused with the retriever", path: "/v1/retrieve", list: "results", key: "id", score: "score",
			body: `{"index": "pool", "question": "who wrote hamlet?", "k": 3, "rerank": "m", "retrieval_weight": 1}`,
			want: "long short blank-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := post(t, base+tc.path, tc.body)
			if code != http.StatusOK {
				t.Fatalf("status %d: %v", code, out)
			}
			items, _ := out[tc.list].([]any)
			if got := order(items, tc.key, tc.score); got != tc.want {
				raw, _ := json.Marshal(out)
				t.Fatalf("order %q, want %q (- marks a null score): %s", got, tc.want, raw)
			}
			if tc.check != nil {
				if err := tc.check(out); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
