package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/index"
	"github.com/as2/as2/rank"
)

// faq is a small pool for /v1/retrieve's tests: BM25 over it needs no data.
var faq = []struct{ id, text string }{
	{"paris", "Paris is the capital of France."},
	{"rome", "Rome is the capital of Italy."},
	{"berlin", "Berlin is the capital of Germany."},
	{"hamlet", "Shakespeare wrote Hamlet around 1600."},
	{"tragedy", "Hamlet is a tragedy by Shakespeare, set in Denmark."},
	{"denmark", "Denmark is a country in Europe; its capital is Copenhagen."},
	{"who", "Who wrote it is not known."},
	{"play", "The play Hamlet was written by William Shakespeare."},
}

// faqIndex is the BM25 index of faq, as a server's Index.
func faqIndex(t testing.TB) Index {
	t.Helper()
	var ids, texts []string
	byID := map[string]string{}
	for _, a := range faq {
		ids, texts = append(ids, a.id), append(texts, a.text)
		byID[a.id] = a.text
	}
	r, _, err := index.NewBM25Retriever(context.Background(), rank.DefaultOptions(), ids, texts)
	if err != nil {
		t.Fatal(err)
	}
	return Index{Retriever: r, Texts: byID, Description: "bm25 over a tiny FAQ"}
}

// retrieverFunc adapts a function to index.Retriever.
type retrieverFunc func(ctx context.Context, question string, k int) ([]index.Hit, error)

func (f retrieverFunc) Retrieve(ctx context.Context, question string, k int) ([]index.Hit, error) {
	return f(ctx, question, k)
}

// retrieveServer serves faq as "faq", and three broken indexes: "slow"
// (waits for its context), "broken" (fails) and "orphan" (returns an id
// without a text), with rankers "wo" and "slow".
func retrieveServer(t testing.TB, limits Limits) *Server {
	t.Helper()
	wo, err := rank.New("wo", rank.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	slowRanker := rank.Func(func(ctx context.Context, q *dataset.Question) ([]float64, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s, err := New(map[string]rank.Ranker{"wo": wo, "slow": slowRanker}, limits)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]Index{
		"faq": faqIndex(t),
		"slow": {Retriever: retrieverFunc(func(ctx context.Context, _ string, _ int) ([]index.Hit, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})},
		"broken": {Retriever: retrieverFunc(func(context.Context, string, int) ([]index.Hit, error) {
			return nil, errors.New("the disk is on fire")
		})},
		"orphan": {Retriever: retrieverFunc(func(context.Context, string, int) ([]index.Hit, error) {
			return []index.Hit{{ID: "nobody", Score: 1}}, nil
		})},
	} {
		if err := s.AddIndex(name, x); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestAddIndex(t *testing.T) {
	s := retrieveServer(t, DefaultLimits())
	for _, tc := range []struct {
		name string
		x    Index
		want string
	}{
		{"", faqIndex(t), "without a name"},
		{"none", Index{}, "no retriever"},
		{"faq", faqIndex(t), "added twice"},
	} {
		if err := s.AddIndex(tc.name, tc.x); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddIndex(%q): %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestRetrieve(t *testing.T) {
	limits := DefaultLimits()
	limits.MaxDocuments, limits.MaxTextBytes, limits.Timeout = 6, 100, 200*time.Millisecond
	srv := retrieveServer(t, limits)
	base, stop := startServer(t, srv)
	defer stop()

	type result struct {
		Rank           int
		ID             string
		Text           string
		Score          float64
		RetrievalScore *float64 `json:"retrieval_score"`
		RetrievalRank  *int     `json:"retrieval_rank"`
	}
	for _, tc := range []struct {
		name, body string
		status     int
		ids        []string // the results' ids, best first (status 200)
		reranked   bool
		code, msg  string // the error's code and a part of its message
	}{
		{name: "plain retrieval", body: `{"index": "faq", "question": "who wrote hamlet?", "k": 3}`,
			status: 200, ids: []string{"who", "hamlet", "play"}},
		{name: "k defaults to 10, capped at --max-documents", body: `{"index": "faq", "question": "What is the capital of Denmark?"}`,
			status: 200, ids: []string{"paris", "rome", "berlin", "denmark", "tragedy", "play"}},
		{name: "no shared term: no results", body: `{"index": "faq", "question": "penguins"}`, status: 200, ids: []string{}},
		// BM25 puts the short answer with the rare "who" first; word
		// overlap counts the words shared and prefers the one with "the
		// play hamlet".
		{name: "retrieve then rerank", body: `{"index": "faq", "question": "who wrote the play hamlet?", "k": 2, "rerank": "wo"}`,
			status: 200, ids: []string{"play", "who"}, reranked: true},
		{name: "rerank the retriever's best only", body: `{"index": "faq", "question": "who wrote the play hamlet?", "k": 1, "rerank": "wo", "depth": 1}`,
			status: 200, ids: []string{"who"}, reranked: true},
		{name: "rerank, nothing retrieved", body: `{"index": "faq", "question": "penguins", "rerank": "wo"}`, status: 200, ids: []string{}},
		// A retrieval weight fuses BM25's scores back in: a heavy one gives
		// BM25's order back, a light one keeps word overlap's.
		{name: "rerank fused with a heavy retrieval weight", body: `{"index": "faq", "question": "who wrote the play hamlet?", "k": 1, "rerank": "wo", "retrieval_weight": 1000}`,
			status: 200, ids: []string{"who"}, reranked: true},
		{name: "rerank fused with a light retrieval weight", body: `{"index": "faq", "question": "who wrote the play hamlet?", "k": 1, "rerank": "wo", "retrieval_weight": 0.001}`,
			status: 200, ids: []string{"play"}, reranked: true},

		{name: "unknown index", body: `{"index": "wiki", "question": "q"}`, status: 404, code: CodeIndexNotFound, msg: `unknown index "wiki" (have broken, faq, orphan, slow`},
		{name: "index left out, several", body: `{"question": "q"}`, status: 400, code: CodeInvalidRequest, msg: "index: required, the server has 4"},
		{name: "empty question", body: `{"index": "faq", "question": ""}`, status: 400, code: CodeInvalidRequest, msg: "the question is empty"},
		{name: "blank question", body: `{"index": "faq", "question": " \t "}`, status: 400, code: CodeInvalidRequest, msg: "the question is empty"},
		{name: "question too long", body: `{"index": "faq", "question": "` + strings.Repeat("q", 101) + `"}`, status: 413, code: CodeTextTooLong, msg: "question: 101 bytes"},
		{name: "k 0", body: `{"index": "faq", "question": "q", "k": 0}`, status: 400, code: CodeInvalidRequest, msg: "k: 0; want 1 to 6"},
		{name: "k negative", body: `{"index": "faq", "question": "q", "k": -3}`, status: 400, code: CodeInvalidRequest, msg: "k: -3"},
		{name: "k over the limit", body: `{"index": "faq", "question": "q", "k": 7}`, status: 400, code: CodeInvalidRequest, msg: "k: 7; want 1 to 6 (--max-documents)"},
		{name: "k of the wrong type", body: `{"index": "faq", "question": "q", "k": "3"}`, status: 400, code: CodeWrongType, msg: `field "k": string given, want an integer`},
		{name: "unknown reranker", body: `{"index": "faq", "question": "q", "rerank": "gpt"}`, status: 404, code: CodeModelNotFound, msg: `rerank: unknown model "gpt"`},
		{name: "depth without rerank", body: `{"index": "faq", "question": "q", "depth": 50}`, status: 400, code: CodeInvalidRequest, msg: "depth: only with rerank"},
		{name: "retrieval weight without rerank", body: `{"index": "faq", "question": "q", "retrieval_weight": 1}`, status: 400, code: CodeInvalidRequest, msg: "retrieval_weight: only with rerank"},
		{name: "negative retrieval weight", body: `{"index": "faq", "question": "q", "rerank": "wo", "retrieval_weight": -1}`, status: 400, code: CodeInvalidRequest, msg: "retrieval_weight: -1; want 0 to 1000"},
		{name: "depth below k", body: `{"index": "faq", "question": "q", "k": 3, "rerank": "wo", "depth": 2}`, status: 400, code: CodeInvalidRequest, msg: "depth: 2; want k (3) to 6"},
		{name: "depth over the limit", body: `{"index": "faq", "question": "q", "rerank": "wo", "depth": 100}`, status: 400, code: CodeInvalidRequest, msg: "depth: 100"},
		{name: "a field of another route", body: `{"index": "faq", "question": "q", "top_n": 3}`, status: 400, code: CodeUnknownField, msg: `unknown field "top_n"`},
		{name: "case matters", body: `{"Index": "faq", "question": "q"}`, status: 400, code: CodeUnknownField, msg: `did you mean "index"?`},
		{name: "not an object", body: `["faq"]`, status: 400, code: CodeMalformedJSON, msg: "must be a JSON object"},
		{name: "retrieval past the deadline", body: `{"index": "slow", "question": "q"}`, status: 504, code: CodeDeadlineExceeded, msg: "time limit"},
		{name: "rerank past the deadline", body: `{"index": "faq", "question": "who wrote hamlet", "rerank": "slow"}`, status: 504, code: CodeDeadlineExceeded, msg: "time limit"},
		{name: "a failing retriever is the server's fault", body: `{"index": "broken", "question": "q"}`, status: 500, code: CodeInternal, msg: "internal error"},
		{name: "a hit without a text is the server's fault", body: `{"index": "orphan", "question": "q"}`, status: 500, code: CodeInternal, msg: "internal error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(base+"/v1/retrieve", "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, raw)
			}
			if tc.status != 200 {
				var out map[string]any
				if err := json.Unmarshal(raw, &out); err != nil {
					t.Fatalf("not JSON: %s", raw)
				}
				msg, code := errorOf(out)
				if code != tc.code || !strings.Contains(msg, tc.msg) {
					t.Errorf("error %q %q, want %q and a message with %q", code, msg, tc.code, tc.msg)
				}
				return
			}
			var out struct {
				Index, Rerank string
				Depth         int
				Results       []result
			}
			if err := json.Unmarshal(raw, &out); err != nil || out.Results == nil {
				t.Fatalf("%v: %s", err, raw)
			}
			var ids []string
			for i, r := range out.Results {
				ids = append(ids, r.ID)
				if r.Rank != i+1 || r.Text == "" || (i > 0 && r.Score > out.Results[i-1].Score) {
					t.Errorf("result %d: %+v (%s)", i, r, raw)
				}
				if (r.RetrievalScore != nil) != tc.reranked || (r.RetrievalRank != nil) != tc.reranked {
					t.Errorf("result %d: retrieval score and rank given: %v, want %v (%s)", i, r.RetrievalScore != nil, tc.reranked, raw)
				}
			}
			if !slices.Equal(ids, tc.ids) && !(len(ids) == 0 && len(tc.ids) == 0) {
				t.Errorf("ids %v, want %v (%s)", ids, tc.ids, raw)
			}
			if out.Index != "faq" || tc.reranked && (out.Rerank != "wo" || out.Depth < len(ids)) {
				t.Errorf("index %q, rerank %q, depth %d (%s)", out.Index, out.Rerank, out.Depth, raw)
			}
		})
	}

	// The reranked answers keep their retrieval scores and ranks: "who"
	// is BM25's first, wo's second.
	_, out := post(t, base+"/v1/retrieve", `{"index": "faq", "question": "who wrote the play hamlet?", "k": 2, "rerank": "wo"}`)
	first, second := out["results"].([]any)[0].(map[string]any), out["results"].([]any)[1].(map[string]any)
	if second["id"] != "who" || second["retrieval_rank"] != 1.0 || first["retrieval_rank"].(float64) <= 1 ||
		first["score"] != 3.0 || second["retrieval_score"].(float64) <= first["retrieval_score"].(float64) {
		t.Errorf("reranked: %v", out)
	}
	if out["depth"] != 6.0 { // max(k, 100), at most --max-documents
		t.Errorf("default depth: %v", out["depth"])
	}

	// /v1/models lists the indexes; the metrics count retrievals by index
	// and by index/ranker.
	resp, err := http.Get(base + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var models ModelsResponse
	err = json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if err != nil || len(models.Data) != 2 || len(models.Indexes) != 4 || models.Indexes[1] != (IndexInfo{ID: "faq", Answers: len(faq), Description: "bm25 over a tiny FAQ"}) {
		t.Errorf("models: %v %+v", err, models)
	}
	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`as2_requests_total{code="200",model="faq",route="/v1/retrieve"} 3`,
		`as2_requests_total{code="200",model="faq/wo",route="/v1/retrieve"} 6`,
		`as2_requests_total{code="504",model="slow",route="/v1/retrieve"} 1`,
		`as2_requests_total{code="404",model="",route="/v1/retrieve"} 1`,
	} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	req, _ := http.NewRequest("GET", base+"/v1/retrieve", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET /v1/retrieve: %v %v", resp, err)
	}
}

// TestRetrieveOneIndex: with one index, a request may leave it out; the
// rerank stage's tokens count against --max-tokens; a client that goes
// away stops the retrieval (499).
func TestRetrieveOneIndex(t *testing.T) {
	limits := DefaultLimits()
	limits.MaxTokens = 20
	wo, _ := rank.New("wo", rank.DefaultOptions())
	s, err := New(map[string]rank.Ranker{"wo": wo}, limits)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(s *Server, ctx context.Context, body string) (int, map[string]any) {
		r, _ := http.NewRequestWithContext(ctx, "POST", "/v1/retrieve", strings.NewReader(body))
		rec := &recorder{header: http.Header{}}
		s.ServeHTTP(rec, r)
		var out map[string]any
		if err := json.Unmarshal(rec.body.Bytes(), &out); err != nil {
			t.Fatalf("%s: not JSON: %s", body, rec.body.String())
		}
		return rec.code, out
	}
	if code, out := ask(s, context.Background(), `{"question": "q"}`); code != 404 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "no index") {
		t.Errorf("no index: %d %v", code, out)
	}
	if err := s.AddIndex("faq", faqIndex(t)); err != nil {
		t.Fatal(err)
	}
	if code, out := ask(s, context.Background(), `{"question": "capital of Italy", "k": 1}`); code != 200 || out["index"] != "faq" || out["results"].([]any)[0].(map[string]any)["id"] != "rome" {
		t.Errorf("the one index: %d %v", code, out)
	}
	if code, out := ask(s, context.Background(), `{"question": "capital of Italy", "k": 1, "rerank": "wo"}`); code != 413 || out["error"].(map[string]any)["code"] != CodeTooManyTokens {
		t.Errorf("tokens over --max-tokens: %d %v", code, out)
	}
	if code, out := ask(s, context.Background(), `{"question": "capital of Italy", "k": 1, "rerank": "wo", "depth": 2}`); code != 200 {
		t.Errorf("a depth within --max-tokens: %d %v", code, out)
	}
	if err := s.AddIndex("slow", Index{Retriever: retrieverFunc(func(ctx context.Context, _ string, _ int) ([]index.Hit, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if code, out := ask(s, ctx, `{"index": "slow", "question": "q"}`); code != 499 || out["error"].(map[string]any)["code"] != CodeClientClosed {
		t.Errorf("client gone: %d %v", code, out)
	}
}

// TestHybrid serves the fusion of two indexes of one pool: BM25's list and
// a fixed "dense" list; relative fusion of the two by hand: with BM25's
// weight 2, an answer the dense list alone ranks first cannot beat BM25's
// first, and one both lists hold comes first. Each list is asked for at
// least DefaultDepth answers, whatever k.
func TestHybrid(t *testing.T) {
	s := retrieveServer(t, DefaultLimits())
	var asked []int
	dense := faqIndex(t)
	dense.Retriever = retrieverFunc(func(_ context.Context, _ string, k int) ([]index.Hit, error) {
		asked = append(asked, k)
		return []index.Hit{{ID: "denmark", Score: 0.9}, {ID: "play", Score: 0.8}, {ID: "paris", Score: 0.1}}, nil
	})
	if err := s.AddIndex("dense", dense); err != nil {
		t.Fatal(err)
	}
	h, err := ParseHybrid("relative:faq*2,dense")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddHybrid("hybrid", h); err != nil {
		t.Fatal(err)
	}
	bm25, err := s.indexes["faq"].Retriever.Retrieve(context.Background(), "who wrote the play hamlet?", DefaultDepth)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"denmark": 1, "play": 0.875} // the dense list's (x − 0.1)/0.8
	lo, hi := bm25[len(bm25)-1].Score, bm25[0].Score
	for _, b := range bm25 {
		want[b.ID] += 2 * (b.Score - lo) / (hi - lo)
	}
	base, stop := startServer(t, s)
	defer stop()
	code, out := post(t, base+"/v1/retrieve", `{"index": "hybrid", "question": "who wrote the play hamlet?", "k": 3}`)
	if code != 200 {
		t.Fatalf("hybrid: %d %v", code, out)
	}
	results := out["results"].([]any)
	if len(results) != 3 {
		t.Fatalf("k 3: %v", results)
	}
	prev := math.Inf(1)
	for i, r := range results {
		r := r.(map[string]any)
		id, score := r["id"].(string), r["score"].(float64)
		if math.Abs(score-want[id]) > 1e-9 || score > prev || r["text"] == "" {
			t.Errorf("result %d: %v, want score %v, in order", i, r, want[id])
		}
		prev = score
	}
	if results[0].(map[string]any)["id"] != "play" {
		t.Errorf("the answer both lists hold first: %v", results)
	}
	if !slices.Equal(asked, []int{DefaultDepth}) {
		t.Errorf("the dense list was asked for %v answers, want [%d]", asked, DefaultDepth)
	}

	other := faqIndex(t)
	other.Texts = map[string]string{"paris": "Paris is in France."}
	if err := s.AddIndex("other", other); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		h    Hybrid
		want string
	}{
		{"one", Hybrid{Indexes: []string{"faq"}}, "two or more"},
		{"missing", Hybrid{Indexes: []string{"faq", "nope"}}, `no index "nope"`},
		{"twice", Hybrid{Indexes: []string{"faq", "faq"}}, "twice"},
		{"pools", Hybrid{Indexes: []string{"faq", "other"}}, `text of answer "paris"`},
		{"weights", Hybrid{Indexes: []string{"faq", "dense"}, Weights: []float64{1}}, "1 weights for 2"},
		{"fusion", Hybrid{Fusion: "sum", Indexes: []string{"faq", "dense"}}, `fusion "sum"`},
		{"hybrid", Hybrid{Indexes: []string{"faq", "dense"}}, "added twice"},
	} {
		if err := s.AddHybrid(tc.name, tc.h); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddHybrid(%s): %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestParseHybrid(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Hybrid
		err  string
	}{
		{spec: "a,b", want: Hybrid{Indexes: []string{"a", "b"}}},
		{spec: "rrf:a,b,c", want: Hybrid{Fusion: "rrf", Indexes: []string{"a", "b", "c"}}},
		{spec: "relative:a*2,b", want: Hybrid{Fusion: "relative", Indexes: []string{"a", "b"}, Weights: []float64{2, 1}}},
		{spec: "a", err: "two indexes or more"},
		{spec: "sum:a,b", err: `fusion "sum"`},
		{spec: "a,,b", err: "empty index name"},
		{spec: "a*x,b", err: `weight "x"`},
		{spec: "a*0,b", err: `weight "0"`},
		{spec: "a*NaN,b", err: `weight "NaN"`},
	} {
		got, err := ParseHybrid(tc.spec)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error with %q", tc.spec, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.spec, err)
		case got.Fusion != tc.want.Fusion || !slices.Equal(got.Indexes, tc.want.Indexes) || !slices.Equal(got.Weights, tc.want.Weights):
			t.Errorf("%q: %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}

// FuzzParseHybrid: any spec parses to at least two named indexes with
// valid weights, or is refused; never a panic.
func FuzzParseHybrid(f *testing.F) {
	for _, s := range []string{"a,b", "relative:a*2,b", "rrf:x*1e3,y*0.5,z", "", ":", "a*,b", "a:b:c,d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		h, err := ParseHybrid(spec)
		if err != nil {
			return
		}
		if len(h.Indexes) < 2 || slices.Contains(h.Indexes, "") {
			t.Errorf("%q: %+v", spec, h)
		}
		for _, w := range h.Weights {
			if !(w > 0 && w <= 1e3) {
				t.Errorf("%q: weight %v", spec, w)
			}
		}
	})
}
