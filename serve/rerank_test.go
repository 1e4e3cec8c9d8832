package serve

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trigger"
)

// passageRanker is a ranker with an input limit, as a cross-encoder has:
// the server gives it passages, not sentences.
type passageRanker struct {
	rank.Ranker
	maxTokens int
	longest   int // tokens of the longest candidate it was given
}

func (p *passageRanker) MaxInputTokens() int { return p.maxTokens }

func (p *passageRanker) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	for _, c := range q.Candidates {
		p.longest = max(p.longest, len(strings.Fields(c.Text)))
	}
	return p.Ranker.Score(ctx, q)
}

// schemaServer serves "calibrated" (a calibration, as the built-in model
// has) and "raw" (none), both BM25.
func schemaServer(t *testing.T) *Server {
	t.Helper()
	var rs []rank.Ranker
	for range 2 {
		r, err := rank.New("bm25", rank.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	s, err := New(map[string]rank.Ranker{"calibrated": rs[0], "raw": rs[1]}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Calibrate("calibrated", trigger.Calibration{A: 0.5, B: -1, Threshold: 0.5}); err != nil {
		t.Fatal(err)
	}
	return s
}

func serveJSON(t *testing.T, s *Server, path, body string) (int, any) {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("POST", path, strings.NewReader(body)))
	var out any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("POST %s: status %d, body is not JSON: %q", path, rec.Code, rec.Body)
	}
	return rec.Code, out
}

func keys(m map[string]any) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// checkCohere checks a body against Cohere's rerank response schema:
// {id, results: [{index, relevance_score, document?: {text}}], meta:
// {api_version: {version}}}, results best first; as2's own fields (model;
// score, passage, sentence and truncated in a result) are allowed beside
// them. calibrated: relevance_score is a probability.
func checkCohere(t *testing.T, out any, version string, n int, docs bool, calibrated bool) []map[string]any {
	t.Helper()
	body, ok := out.(map[string]any)
	if !ok {
		t.Fatalf("response %v is not an object", out)
	}
	if id, ok := body["id"].(string); !ok || id == "" {
		t.Errorf("id = %#v, want a non-empty string", body["id"])
	}
	if v := body["meta"].(map[string]any)["api_version"].(map[string]any)["version"]; v != version {
		t.Errorf("meta.api_version.version = %v, want %q", v, version)
	}
	allowed := map[string]bool{"index": true, "relevance_score": true, "document": true, "score": true, "passage": true, "sentence": true, "truncated": true}
	list := body["results"].([]any)
	if len(list) != n {
		t.Fatalf("%d results, want %d", len(list), n)
	}
	var out2 []map[string]any
	prev := math.Inf(1)
	for i, x := range list {
		r := x.(map[string]any)
		for _, k := range keys(r) {
			if !allowed[k] {
				t.Errorf("result %d: field %q is not Cohere's nor as2's", i, k)
			}
		}
		if idx, ok := r["index"].(float64); !ok || idx != math.Trunc(idx) {
			t.Errorf("result %d: index %#v is not an integer", i, r["index"])
		}
		rs, ok := r["relevance_score"].(float64)
		if !ok {
			t.Fatalf("result %d: relevance_score %#v is not a number", i, r["relevance_score"])
		}
		if rs > prev {
			t.Errorf("result %d: relevance_score %v above the previous %v: not best first", i, rs, prev)
		}
		prev = rs
		raw := r["score"].(float64)
		if calibrated && (rs < 0 || rs > 1 || rs == raw) {
			t.Errorf("result %d: relevance_score %v with a calibration: want a probability, not the raw score %v", i, rs, raw)
		}
		if !calibrated && rs != raw {
			t.Errorf("result %d: relevance_score %v without a calibration: want the score %v", i, rs, raw)
		}
		d, has := r["document"]
		if has != docs {
			t.Errorf("result %d: document present %v, want %v", i, has, docs)
		}
		if has {
			dm, ok := d.(map[string]any)
			if _, isText := dm["text"].(string); !ok || !isText || len(dm) != 1 {
				t.Errorf("result %d: document %#v, want {\"text\": string}", i, d)
			}
		}
		out2 = append(out2, r)
	}
	return out2
}

func TestCohereRerank(t *testing.T) {
	s := schemaServer(t)
	docs := `["Hamlet is a tragedy.", {"text": "Shakespeare wrote Hamlet.", "title": "Authorship"}, "Denmark is cold."]`
	tests := []struct {
		name, path, body string
		version          string
		n                int
		docs, calibrated bool
		first            int
	}{
		{"v1", "/v1/rerank", `{"model": "raw", "query": "who wrote hamlet?", "documents": ` + docs + `}`, "1", 3, false, false, 1},
		{"v1 calibrated, documents", "/v1/rerank", `{"model": "calibrated", "query": "who wrote hamlet?", "documents": ` + docs + `, "return_documents": true}`, "1", 3, true, true, 1},
		{"v1 top_n, max_chunks_per_doc, rank_fields", "/v1/rerank", `{"model": "calibrated", "query": "who wrote hamlet?", "documents": ` + docs + `, "top_n": 1, "max_chunks_per_doc": 3, "rank_fields": ["text"]}`, "1", 1, false, true, 1},
		{"v2", "/v2/rerank", `{"model": "calibrated", "query": "who wrote hamlet?", "documents": ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet."], "top_n": 2, "max_tokens_per_doc": 4096}`, "2", 2, false, true, 1},
		{"v2 raw, documents", "/v2/rerank", `{"model": "raw", "query": "who wrote hamlet?", "documents": ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet."], "return_documents": true}`, "2", 2, true, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := serveJSON(t, s, tt.path, tt.body)
			if code != 200 {
				t.Fatalf("status %d: %v", code, out)
			}
			res := checkCohere(t, out, tt.version, tt.n, tt.docs, tt.calibrated)
			if int(res[0]["index"].(float64)) != tt.first {
				t.Errorf("first result is document %v, want %d", res[0]["index"], tt.first)
			}
			if tt.docs && res[0]["document"].(map[string]any)["text"] != "Shakespeare wrote Hamlet." {
				t.Errorf("document of the first result = %v", res[0]["document"])
			}
		})
	}
}

func TestTEIRerank(t *testing.T) {
	s := schemaServer(t)
	tests := []struct {
		name, body string
		text, prob bool
	}{
		{"calibrated", `{"model": "calibrated", "query": "who wrote hamlet?", "texts": ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet."]}`, false, true},
		{"raw_scores", `{"model": "calibrated", "query": "who wrote hamlet?", "texts": ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet."], "raw_scores": true}`, false, false},
		{"return_text, truncate, default model", `{"query": "who wrote hamlet?", "texts": ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet."], "return_text": true, "truncate": true, "truncation_direction": "Right"}`, true, true},
		{"uncalibrated", `{"model": "raw", "query": "who wrote hamlet?", "texts": ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet."]}`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := serveJSON(t, s, "/rerank", tt.body)
			list, ok := out.([]any)
			if code != 200 || !ok || len(list) != 2 {
				t.Fatalf("status %d, %v: want a JSON array of 2", code, out)
			}
			prev := math.Inf(1)
			for i, x := range list {
				r := x.(map[string]any)
				want := []string{"index", "score"}
				if tt.text {
					want = append(want, "text")
				}
				if got := keys(r); !reflect.DeepEqual(got, want) {
					t.Errorf("item %d has fields %v, want %v", i, got, want)
				}
				sc := r["score"].(float64)
				if sc > prev {
					t.Errorf("item %d: score %v above the previous %v", i, sc, prev)
				}
				prev = sc
				if isProb := sc >= 0 && sc <= 1; tt.prob && !isProb {
					t.Errorf("item %d: score %v, want a probability", i, sc)
				}
			}
			if list[0].(map[string]any)["index"] != 1.0 {
				t.Errorf("first item %v, want index 1", list[0])
			}
			if tt.text && list[0].(map[string]any)["text"] != "Shakespeare wrote Hamlet." {
				t.Errorf("text of the first item = %v", list[0])
			}
		})
	}
	// raw_scores gives the model's score, which calibration maps: the
	// two differ by the calibration exactly.
	_, cal := serveJSON(t, s, "/rerank", tests[0].body)
	_, raw := serveJSON(t, s, "/rerank", tests[1].body)
	c := trigger.Calibration{A: 0.5, B: -1}
	if got, want := cal.([]any)[0].(map[string]any)["score"].(float64), c.Prob(raw.([]any)[0].(map[string]any)["score"].(float64)); math.Abs(got-want) > 1e-12 {
		t.Errorf("calibrated score %v, want Prob(raw) = %v", got, want)
	}
}

func TestRerankRequestErrors(t *testing.T) {
	s := schemaServer(t)
	tests := []struct {
		path, body string
		status     int
		code, want string
	}{
		{"/v1/rerank", `{"query": "q", "documents": [1]}`, 400, CodeWrongType, `documents[0]: number given, want a string or an object with a "text"`},
		{"/v1/rerank", `{"query": "q", "documents": [{"title": "x"}]}`, 400, CodeInvalidRequest, `documents[0]: an object with no "text" field`},
		{"/v1/rerank", `{"query": "q", "documents": [{"text": 3}]}`, 400, CodeWrongType, `documents[0].text: number given, want a string`},
		{"/v1/rerank", `{"query": "q", "documents": ["a"], "max_chunks_per_doc": 0}`, 400, CodeInvalidRequest, `max_chunks_per_doc: 0`},
		{"/v1/rerank", `{"query": "q", "documents": ["a"], "max_tokens_per_doc": 100}`, 400, CodeUnknownField, `max_tokens_per_doc is a field of /v2/rerank`},
		{"/v1/rerank", `{"query": "q", "documents": ["a"], "rank_fields": ["title"]}`, 400, CodeInvalidRequest, `rank_fields: "title"`},
		{"/v2/rerank", `{"model": "nope", "query": "q", "documents": ["a"]}`, 404, CodeModelNotFound, `unknown model "nope"`},
		{"/v2/rerank", `{"query": "q", "documents": ["a"], "max_tokens_per_doc": -1}`, 400, CodeInvalidRequest, `max_tokens_per_doc: -1`},
		{"/rerank", `{"query": "q", "texts": []}`, 400, CodeInvalidRequest, `texts: empty`},
		{"/rerank", `{"query": "q", "texts": ["a"], "truncation_direction": "Left"}`, 400, CodeInvalidRequest, `truncation_direction: "Left"`},
		{"/rerank", `{"query": "q", "texts": "a"}`, 400, CodeWrongType, `field "texts": string given, want an array of strings`},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.body, func(t *testing.T) {
			code, out := serveJSON(t, s, tt.path, tt.body)
			e, _ := out.(map[string]any)["error"].(map[string]any)
			if code != tt.status || e["code"] != tt.code || !strings.Contains(e["message"].(string), tt.want) {
				t.Errorf("status %d %v, want %d %s %q", code, out, tt.status, tt.code, tt.want)
			}
		})
	}
}

// TestLongDocument: a 2,964-word article (SQuAD v1.1 dev's "Packet
// switching", CC BY-SA 4.0) with a question answered two thirds of the way
// in. The response names the passage that answers and its offsets, and a
// cap that stops short of it is reported.
func TestLongDocument(t *testing.T) {
	raw, err := os.ReadFile("testdata/packet-switching.txt")
	if err != nil {
		t.Fatal(err)
	}
	article := string(raw)
	const question, answer = "Who developed DATAPAC?", "Bell Northern Research"
	bm25, err := rank.New("bm25", rank.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	pr := &passageRanker{Ranker: bm25, maxTokens: 128}
	s, err := New(map[string]rank.Ranker{"sentences": bm25, "passages": pr}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	body := func(model, extra string) string {
		b, _ := json.Marshal(map[string]any{"model": model, "query": question, "documents": []string{"Hamlet is a tragedy.", article}})
		return strings.TrimSuffix(string(b), "}") + extra + "}"
	}
	for _, tt := range []struct {
		model, extra string
		sentence     bool
	}{
		{"sentences", `, "max_chunks_per_doc": 100`, true},
		{"passages", `, "max_chunks_per_doc": 100`, false},
	} {
		t.Run(tt.model, func(t *testing.T) {
			code, out := serveJSON(t, s, "/v1/rerank", body(tt.model, tt.extra))
			if code != 200 {
				t.Fatalf("status %d: %v", code, out)
			}
			first := out.(map[string]any)["results"].([]any)[0].(map[string]any)
			p, ok := first["passage"].(map[string]any)
			if first["index"] != 1.0 || !ok {
				t.Fatalf("first result %v: want the article with its passage", first)
			}
			start, end := int(p["start"].(float64)), int(p["end"].(float64))
			if article[start:end] != p["text"] || !strings.Contains(p["text"].(string), answer) {
				t.Errorf("passage [%d, %d) %q: want the article's text there, holding %q", start, end, p["text"], answer)
			}
			if len(p["text"].(string)) >= len(article)/4 {
				t.Errorf("passage of %d bytes of the article's %d: not a passage", len(p["text"].(string)), len(article))
			}
			sn, has := first["sentence"].(map[string]any)
			if has != tt.sentence {
				t.Fatalf("sentence %v, want one: %v", first["sentence"], tt.sentence)
			}
			if has && (!strings.Contains(sn["text"].(string), answer) || article[int(sn["start"].(float64)):int(sn["end"].(float64))] != sn["text"]) {
				t.Errorf("best sentence %v: want the one holding %q, at its offsets", sn, answer)
			}
			if first["truncated"] != nil || out.(map[string]any)["meta"].(map[string]any)["warnings"] != nil {
				t.Errorf("reported truncated with a cap of 100 passages: %v", out)
			}
		})
	}
	if pr.longest > 128 {
		t.Errorf("the passage ranker was given %d words, over its 128 tokens", pr.longest)
	}

	// Two passages stop before the answer: the article is cut, and says so.
	code, out := serveJSON(t, s, "/v1/rerank", body("passages", `, "max_chunks_per_doc": 2`))
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	var doc map[string]any
	for _, x := range out.(map[string]any)["results"].([]any) {
		if r := x.(map[string]any); r["index"] == 1.0 {
			doc = r
		}
	}
	warnings, _ := out.(map[string]any)["meta"].(map[string]any)["warnings"].([]any)
	if doc["truncated"] != true || len(warnings) != 1 || !strings.Contains(warnings[0].(string), "only the first 2 scored") {
		t.Errorf("capped at 2 passages: result %v, warnings %v: want truncated and a warning", doc, warnings)
	}
	if p := doc["passage"].(map[string]any); strings.Contains(p["text"].(string), answer) || int(p["end"].(float64)) > len(article)/3 {
		t.Errorf("capped at 2 passages, the best passage is %v: past the cap", p)
	}

	// /v1/select: the passage holding the best sentence, and the cap.
	sel, _ := json.Marshal(map[string]any{"model": "sentences", "question": question, "document": article, "top_n": 1})
	code, out = serveJSON(t, s, "/v1/select", string(sel))
	m := out.(map[string]any)
	if p, ok := m["passage"].(map[string]any); code != 200 || !ok || !strings.Contains(p["text"].(string), answer) || article[int(p["start"].(float64)):int(p["end"].(float64))] != p["text"] {
		t.Errorf("select: %d %v: want the passage holding %q", code, m["passage"], answer)
	}
	sel, _ = json.Marshal(map[string]any{"model": "sentences", "question": question, "document": article, "top_n": 1, "max_chunks_per_doc": 2})
	_, out = serveJSON(t, s, "/v1/select", string(sel))
	if m := out.(map[string]any); m["truncated"] != true || len(m["warnings"].([]any)) != 1 {
		t.Errorf("select capped at 2 passages: %v: want truncated and a warning", m)
	}
}

// fakePair is a pair encoder of length n, for passageTokens.
type fakePair struct {
	encoder.PairEncoder
	n int
}

func (f fakePair) MaxLen() int { return f.n }

// crossEncoder has a cross-encoder's Encoder method.
type crossEncoder struct {
	rank.Ranker
	enc encoder.PairEncoder
}

func (c crossEncoder) Encoder() encoder.PairEncoder { return c.enc }

func TestPassageTokens(t *testing.T) {
	bm25, err := rank.New("bm25", rank.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	const question = "who wrote hamlet?" // 4 tokens
	tests := []struct {
		name         string
		r            rank.Ranker
		want         int
		passageLevel bool
	}{
		{"no input limit: sentence-level", bm25, DefaultPassageTokens, false},
		{"InputLimiter", &passageRanker{Ranker: bm25, maxTokens: 100}, 96, true},
		{"cross-encoder of 512 pieces", crossEncoder{bm25, fakePair{n: 512}}, (512-3)*3/4 - 4, true},
		{"no room left for the passage", &passageRanker{Ranker: bm25, maxTokens: 6}, minPassageTokens, true},
		{"a limit of 0 is none", &passageRanker{Ranker: bm25}, DefaultPassageTokens, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, pl := passageTokens(tt.r, question)
			if n != tt.want || pl != tt.passageLevel {
				t.Errorf("passageTokens = %d, %v; want %d, %v", n, pl, tt.want, tt.passageLevel)
			}
		})
	}
}
