package serve

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/as2/as2/model/passage"
	"github.com/as2/as2/rank"
)

// TestRerankIsPassageRank: /v1/rerank gives a long document package
// passage's best passage and sentence, score and cap (package passage is
// what as2.Passages and as2 rank use), for each cap.
func TestRerankIsPassageRank(t *testing.T) {
	raw, err := os.ReadFile("testdata/packet-switching.txt")
	if err != nil {
		t.Fatal(err)
	}
	const question = "Who developed DATAPAC?"
	docs := []string{"Hamlet is a tragedy.", string(raw)}
	bm25, err := rank.New("bm25", rank.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(map[string]rank.Ranker{"bm25": bm25}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, chunks := range []int{2, DefaultMaxChunks, 100} {
		want, err := passage.Rank(context.Background(), bm25, question, docs, passage.Options{MaxChunks: chunks})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(RerankRequest{Model: "bm25", Query: question, Documents: docs, MaxChunksPerDoc: &chunks})
		code, out := serveJSON(t, s, "/v1/rerank", string(body))
		if code != 200 {
			t.Fatalf("max_chunks_per_doc %d: status %d: %v", chunks, code, out)
		}
		b, _ := json.Marshal(out)
		var got RerankResponse
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Results) != len(want) {
			t.Fatalf("max_chunks_per_doc %d: %d results, want %d", chunks, len(got.Results), len(want))
		}
		for k, w := range want {
			r := got.Results[k]
			p, sn, cut := spans(w)
			if r.Index != w.Index || *r.Score != w.Score || !equalSpan(r.Passage, p) || !equalSpan(r.Sentence, sn) || r.Truncated != cut {
				t.Errorf("max_chunks_per_doc %d, result %d: %+v, want document %d scored %g, passage %+v, sentence %+v, truncated %v", chunks, k, r, w.Index, w.Score, p, sn, cut)
			}
		}
	}
}

func equalSpan(a, b *Span) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
