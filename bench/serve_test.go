package bench

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/serve"
	"github.com/as2/as2/text"
)

func questions(n, cands int) []dataset.Question {
	qs := make([]dataset.Question, n)
	for i := range qs {
		qs[i] = dataset.Question{ID: string(rune('a' + i)), Text: "question " + string(rune('a'+i))}
		for j := range cands {
			qs[i].Candidates = append(qs[i].Candidates, dataset.Candidate{Text: strings.Repeat("word ", j+1) + qs[i].ID})
		}
	}
	return qs
}

// TestRerankBodies: a body a question, its own candidates first, padded
// with others' or cut to the documents asked for, each of about
// docTokens tokens when asked.
func TestRerankBodies(t *testing.T) {
	qs := questions(3, 2)
	for _, tc := range []struct {
		name            string
		docs, docTokens int
	}{
		{"cut", 1, 0},
		{"own", 2, 0},
		{"padded with others'", 5, 0},
		{"long documents", 3, 12},
		{"short documents", 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bodies, err := rerankBodies(qs, tc.docs, tc.docTokens)
			if err != nil || len(bodies) != len(qs) {
				t.Fatalf("%d bodies, %v", len(bodies), err)
			}
			for i, b := range bodies {
				var req serve.RerankRequest
				if err := json.Unmarshal(b, &req); err != nil {
					t.Fatal(err)
				}
				if req.Model != "m" || req.Query != qs[i].Text || len(req.Documents) != tc.docs {
					t.Fatalf("body %d: %+v", i, req)
				}
				if tc.docTokens == 0 && req.Documents[0] != qs[i].Candidates[0].Text {
					t.Errorf("body %d starts with %q, not its own candidate", i, req.Documents[0])
				}
				for _, d := range req.Documents {
					if n := len(text.Tokenize(d)); tc.docTokens > 0 && n != tc.docTokens {
						t.Errorf("%q: %d tokens, want %d", d, n, tc.docTokens)
					}
				}
			}
		})
	}
	if _, err := rerankBodies(nil, 5, 0); err == nil {
		t.Error("bodies without candidates")
	}
	if _, err := rerankBodies(qs, 0, 0); err == nil {
		t.Error("bodies of no documents")
	}
}

// TestServe sends every request to a ranker behind the real service, for
// each number of clients.
func TestServe(t *testing.T) {
	var scored atomic.Int64
	r := rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		scored.Add(1)
		s := make([]float64, len(q.Candidates))
		for i := range s {
			s[i] = float64(len(q.Candidates[i].Text))
		}
		return s, nil
	})
	rep, err := Serve(context.Background(), r, "length", questions(4, 3), ServeOptions{Documents: 5, Requests: 6, Clients: []int{1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Ranker != "length" || rep.Documents != 5 || scored.Load() != 12 {
		t.Fatalf("report %+v, %d scored", rep, scored.Load())
	}
	for i, row := range rep.Rows {
		if row.Clients != []int{1, 3}[i] || row.Requests != 6 || row.Refused != 0 || row.P99ms < row.P50ms || row.PairsPS != 5*row.RPS {
			t.Errorf("row %+v", row)
		}
	}
	for _, o := range []ServeOptions{{Documents: 0, Requests: 1, Clients: []int{1}}, {Documents: 1, Requests: 1, Clients: []int{0}}, {Documents: 1, Requests: 1}} {
		if _, err := Serve(context.Background(), r, "", questions(1, 1), o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestServeOptionsCheck: errors name the option with the caller's prefix
// (as2 bench serve's flags), and good options pass.
func TestServeOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		o    ServeOptions
		want string
	}{
		{ServeOptions{Documents: 10, Requests: 5, Clients: []int{1, 2}}, ""},
		{ServeOptions{Documents: 0, Requests: 5, Clients: []int{1}}, "--documents 0: must be at least 1"},
		{ServeOptions{Documents: 10, Requests: -1, Clients: []int{1}}, "--requests -1: must be at least 1"},
		{ServeOptions{Documents: 10, Requests: 5}, "--clients: give at least one client count"},
		{ServeOptions{Documents: 10, Requests: 5, Clients: []int{2, 0}}, "--clients 0: must be at least 1"},
	} {
		err := tc.o.Check("--")
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}
