package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trigger"
)

func testServer(t testing.TB, limits Limits) *Server {
	t.Helper()
	wo, _ := rank.New("wo+rr", rank.DefaultOptions())
	slow := rank.Func(func(ctx context.Context, q *dataset.Question) ([]float64, error) {
		select {
		case <-time.After(300 * time.Millisecond):
			return make([]float64, len(q.Candidates)), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	s, err := New(map[string]rank.Ranker{"a-wo": wo, "slow": slow}, limits)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddIndex("faq", faqIndex(t)); err != nil {
		t.Fatal(err)
	}
	return s
}

// startServer runs s on a real loopback port, as as2 serve does, and
// returns its base URL and a function that shuts it down gracefully.
func startServer(t *testing.T, s *Server) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() error {
		s.Closing()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return hs.Shutdown(ctx)
	}
}

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s %s: status %d, body is not JSON: %q", url, body, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// errorOf returns the message and code of an error body.
func errorOf(out map[string]any) (msg, code string) {
	e, _ := out["error"].(map[string]any)
	msg, _ = e["message"].(string)
	code, _ = e["code"].(string)
	return msg, code
}

func TestRoutes(t *testing.T) {
	limits := DefaultLimits()
	limits.MaxDocuments, limits.MaxTextBytes, limits.MaxBodyBytes, limits.Timeout, limits.MaxTokens = 5, 100, 2000, 100*time.Millisecond, 30
	srv := testServer(t, limits)
	// wo+rr scores 2.33 for two shared words at position 1: answer when >= 2.
	if err := srv.Calibrate("a-wo", trigger.Calibration{A: 10, B: -20, Threshold: 0.5}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Calibrate("nope", trigger.Calibration{}); err == nil {
		t.Fatal("calibrating an unknown model accepted")
	}
	base, stop := startServer(t, srv)

	code, out := post(t, base+"/v1/rerank", `{"query": "who wrote hamlet?", "documents": ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet.", "Denmark."], "top_n": 2, "return_documents": true}`)
	res := out["results"].([]any)
	first := res[0].(map[string]any)
	if code != 200 || out["model"] != "a-wo" || len(res) != 2 || first["index"] != 1.0 || !reflect.DeepEqual(first["document"], map[string]any{"text": "Shakespeare wrote Hamlet."}) {
		t.Fatalf("rerank: %d %v", code, out)
	}
	code, out = post(t, base+"/v1/select", `{"model": "a-wo", "question": "who wrote hamlet?", "document": "Hamlet is a tragedy. Shakespeare wrote Hamlet around 1600. It is set in Denmark.", "top_n": 1}`)
	sents := out["sentences"].([]any)
	if code != 200 || len(sents) != 1 || sents[0].(map[string]any)["text"] != "Shakespeare wrote Hamlet around 1600." || sents[0].(map[string]any)["start"] != 21.0 || out["answer"] != true {
		t.Fatalf("select: %d %v", code, out)
	}
	code, out = post(t, base+"/v1/select", `{"model": "a-wo", "question": "who wrote hamlet?", "document": "It rained. The end."}`)
	if code != 200 || out["answer"] != false || out["probability"].(float64) >= 0.5 {
		t.Fatalf("select, no answer: %d %v", code, out)
	}
	code, out = post(t, base+"/v1/select", `{"question": "who?", "sentences": ["a.", "b who."]}`)
	if code != 200 || len(out["sentences"].([]any)) != 2 || out["answer"] != false { // one shared word: below the calibrated threshold
		t.Fatalf("select sentences: %d %v", code, out)
	}
	for _, path := range []string{"/v1/models", "/healthz", "/readyz", "/metrics"} {
		resp, err := http.Get(base + path)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", path, resp.Status, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if path == "/metrics" && !bytes.Contains(raw, []byte(`as2_requests_total{code="200",model="a-wo",route="/v1/rerank"} 1`)) {
			t.Fatalf("metrics do not count the rerank:\n%s", raw)
		}
		if path == "/v1/models" && !bytes.Contains(raw, []byte(`"id":"slow"`)) {
			t.Fatalf("models: %s", raw)
		}
	}

	big := strings.Repeat("x", 3000)
	for _, tc := range []struct {
		path, body string
		code       int
		want       string
	}{
		{"/v1/rerank", ``, 400, "empty request body"},
		{"/v1/rerank", `{"query": "q", "documents": [`, 400, "malformed"},
		{"/v1/rerank", `{"query": 3, "documents": ["a"]}`, 400, `field "query": number given, want a string`},
		{"/v1/rerank", `{"query": "q", "documents": "a"}`, 400, `field "documents": string given, want an array of strings or of objects with a "text"`},
		{"/v1/rerank", `["q"]`, 400, `must be a JSON object`},
		{"/v1/rerank", `null`, 400, `must be a JSON object`},
		{"/v1/rerank", `{"Query": "q", "documents": ["a"]}`, 400, `unknown field "Query": field names are case-sensitive; did you mean "query"?`},
		{"/v1/rerank", `{"query": "q", "DOCUMENTS": ["a"]}`, 400, `did you mean "documents"`},
		{"/v1/rerank", "{\"query\": \"q\xff\", \"documents\": [\"a\"]}", 400, `not valid UTF-8 (at byte 12)`},
		{"/v1/rerank", `{"query": "q", "documents": ["` + strings.Repeat("w ", 40) + `"]}`, 413, `more than 30 tokens`},
		{"/v1/rerank", `{"query": "q", "documents": ["a"], "extra": 1}`, 400, `unknown field "extra"`},
		{"/v1/rerank", `{"query": "q", "documents": ["a"]} {}`, 400, "data after"},
		{"/v1/rerank", `{"model": "gpt", "query": "q", "documents": ["a"]}`, 404, `unknown model "gpt"`},
		{"/v1/rerank", `{"query": "", "documents": ["a"]}`, 400, "question is empty"},
		{"/v1/rerank", `{"query": "q", "documents": []}`, 400, "documents: empty"},
		{"/v1/rerank", `{"query": "q", "documents": ["a","b","c","d","e","f"]}`, 413, "6 given, the limit is 5"},
		{"/v1/rerank", `{"query": "q", "documents": ["` + strings.Repeat("y", 200) + `"]}`, 413, "documents[0]: 200 bytes"},
		{"/v1/rerank", `{"query": "q", "documents": ["` + big + `"]}`, 413, "larger than 2000 bytes"},
		{"/v1/rerank", `{"query": "q", "documents": ["a"], "top_n": 0}`, 400, "top_n"},
		{"/v1/rerank", `{"query": "q", "documents": ["\udc00"]}`, 200, ""},
		{"/v1/rerank", `{"model": "slow", "query": "q", "documents": ["a"]}`, 504, "time limit"},
		{"/v1/select", `{"question": "q"}`, 400, "give document (a text, split into sentences here) or sentences"},
		{"/v1/select", `{"question": "q", "document": null}`, 400, "give document"},
		{"/v1/select", `{"question": "q", "document": "a.", "sentences": ["b"]}`, 400, "not both"},
		{"/v1/select", `{"question": "q", "document": "", "sentences": ["b"]}`, 400, "not both"},
		{"/v1/select", `{"question": "q", "document": ""}`, 400, "document: empty or white space only; there is no sentence to select"},
		{"/v1/select", `{"question": "q", "document": "   "}`, 400, "document: empty"},
		{"/v1/select", `{"question": "q", "sentences": []}`, 400, "sentences: empty"},
	} {
		code, out := post(t, base+tc.path, tc.body)
		msg, ecode := errorOf(out)
		if code != tc.code || !strings.Contains(msg, tc.want) || (code != 200 && ecode == "") {
			t.Errorf("POST %s %.60q: %d %q %q, want %d %q", tc.path, tc.body, code, ecode, msg, tc.code, tc.want)
		}
		if strings.Contains(msg, "serve.") || strings.Contains(msg, "[]string") {
			t.Errorf("POST %s %.60q: a Go type name in %q", tc.path, tc.body, msg)
		}
	}
	for _, tc := range []struct{ method, path, code string }{
		{"GET", "/v1/rerank", CodeMethodNotAllowed},
		{"DELETE", "/v1/models", CodeMethodNotAllowed},
		{"GET", "/v2/nothing", CodeNotFound},
		{"POST", "/", CodeMethodNotAllowed},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if _, code := errorOf(out); err != nil || code != tc.code {
			t.Errorf("%s %s: %s %v %v", tc.method, tc.path, resp.Status, out, err)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestGracefulShutdown checks that in-flight requests finish while the
// server shuts down, and that /readyz fails once it is closing.
func TestGracefulShutdown(t *testing.T) {
	started := make(chan struct{}, 8)
	slow := rank.Func(func(ctx context.Context, q *dataset.Question) ([]float64, error) {
		started <- struct{}{}
		time.Sleep(300 * time.Millisecond) // in flight when the shutdown begins
		return make([]float64, len(q.Candidates)), nil
	})
	s, err := New(map[string]rank.Ranker{"slow": slow}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	base, stop := startServer(t, s)
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = post(t, base+"/v1/rerank", `{"model": "slow", "query": "q", "documents": ["a", "b"]}`)
		}()
	}
	for range codes {
		<-started // every request is being scored
	}
	rec := &recorder{header: http.Header{}}
	s.Closing()
	s.ServeHTTP(rec, mustRequest("GET", "/readyz"))
	if rec.code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while closing: %d", rec.code)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("in-flight request %d: status %d", i, c)
		}
	}
}

type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.code = code }

func mustRequest(method, path string) *http.Request {
	r, err := http.NewRequest(method, path, nil)
	if err != nil {
		panic(err)
	}
	return r
}

// FuzzRequests feeds arbitrary bodies to every POST route: every answer
// must be JSON with a status below 500.
func FuzzRequests(f *testing.F) {
	f.Add(`{"query": "who wrote hamlet?", "documents": ["a", "b"], "top_n": 1}`)
	f.Add(`{"question": "q", "document": "A. B."}`)
	f.Add(`{"question": "q", "sentences": ["a", 3]}`)
	f.Add(`{"query": "q", "documents": ["a"], "top_n": -5, "return_documents": true}`)
	f.Add(`{"Query": "q", "DOCUMENTS": ["a"]}`)
	f.Add("{\"question\": \"q\xff\", \"document\": \"A.\"}")
	f.Add(`{"query": "q\udc00", "documents": ["\u00e9t\u00e9"], "model": "a-wo"}`)
	f.Add(`[1, 2]`)
	f.Add(`null`)
	f.Add(`{"index": "faq", "question": "who wrote hamlet?", "k": 2, "rerank": "a-wo", "depth": 5}`)
	f.Add(`{"question": "capital", "k": 100000, "depth": -1}`)
	f.Add(`{"index": "faq", "question": "q", "rerank": "slow"}`)
	limits := DefaultLimits()
	limits.MaxDocuments, limits.MaxTextBytes = 20, 500
	s := testServer(f, limits)
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/v1/rerank", "/v1/select", "/v1/retrieve"} {
			r, _ := http.NewRequest("POST", path, strings.NewReader(body))
			rec := &recorder{header: http.Header{}}
			s.ServeHTTP(rec, r)
			if rec.code >= 500 {
				t.Fatalf("POST %s %q: status %d: %s", path, body, rec.code, rec.body.String())
			}
			var v map[string]any
			if err := json.Unmarshal(rec.body.Bytes(), &v); err != nil {
				t.Fatalf("POST %s %q: body is not JSON: %q", path, body, rec.body.String())
			}
			if rec.code == 200 {
				// Accepted: every key matched a field exactly, and the
				// body was UTF-8.
				var keys map[string]json.RawMessage
				if json.Unmarshal([]byte(body), &keys) != nil || !utf8.ValidString(body) {
					t.Fatalf("POST %s %q: accepted", path, body)
				}
				for k := range keys {
					if !slices.Contains([]string{"model", "query", "documents", "top_n", "return_documents", "question", "document", "sentences", "index", "k", "rerank", "depth", "retrieval_weight"}, k) {
						t.Fatalf("POST %s %q: accepted the key %q", path, body, k)
					}
				}
				continue
			}
			msg, code := errorOf(v)
			if msg == "" || code == "" || strings.Contains(msg, "serve.") {
				t.Fatalf("POST %s %q: error body %q", path, body, rec.body.String())
			}
		}
	})
}

func ExampleServer() {
	wo, err := rank.New("wo+rr", rank.DefaultOptions())
	if err != nil {
		panic(err)
	}
	s, err := New(map[string]rank.Ranker{"wo+rr": wo}, DefaultLimits())
	if err != nil {
		panic(err)
	}
	r, _ := http.NewRequest("POST", "/v1/rerank", strings.NewReader(`{"query": "who wrote hamlet?", "documents": ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet."]}`))
	rec := &recorder{header: http.Header{}}
	s.ServeHTTP(rec, r)
	var resp RerankResponse
	if err := json.Unmarshal(rec.body.Bytes(), &resp); err != nil {
		panic(err)
	}
	// An uncalibrated ranker's relevance_score is its score.
	for _, res := range resp.Results {
		fmt.Println(res.Index, *res.RelevanceScore, *res.Score)
	}
	// Output:
	// 1 2.3333333333333335 2.3333333333333335
	// 0 1.5 1.5
}
