// Package serve is as2's HTTP service: it loads rankers once and answers
// rerank and answer-selection requests concurrently. It is an http.Handler:
//
//	POST /v1/rerank   {"model", "query", "documents": [...], "top_n", "return_documents"}
//	                  -> {"model", "results": [{"index", "relevance_score", "document"?}, ...]}
//	POST /v1/select   {"model", "question", "document" | "sentences": [...], "top_n"}
//	                  -> {"model", "sentences": [{"index", "text", "score"}, ...], "answer"?, "probability"?}
//	GET  /v1/models   the configured rankers
//	GET  /healthz     the process is up
//	GET  /readyz      the rankers are loaded and the server is not shutting down
//	GET  /metrics     Prometheus: requests and latency per route, model and status
//
// /v1/rerank speaks the request and response shape rerank clients already
// use. The documents of a request are scored as one question's candidates, in
// the order given, which is what the structure-aware rankers (an RNN over
// candidates in document order) need. Bad requests get a 4xx JSON error
// {"error": "..."} naming the field; a request never gets a 5xx for its
// content.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
	"github.com/as2/as2/trigger"
)

// Limits bound what one request may ask for.
type Limits struct {
	MaxBodyBytes int64         // request body
	MaxDocuments int           // documents (or sentences) per request
	MaxTextBytes int           // one query, document or sentence
	Timeout      time.Duration // per request, passed to the ranker through its context
}

// DefaultLimits suit a reranker behind a retriever.
func DefaultLimits() Limits {
	return Limits{MaxBodyBytes: 4 << 20, MaxDocuments: 1000, MaxTextBytes: 64 << 10, Timeout: 10 * time.Second}
}

// Server serves rankers over HTTP. Create it with New.
type Server struct {
	rankers map[string]rank.Ranker
	calib   map[string]trigger.Calibration
	names   []string
	limits  Limits
	mux     *http.ServeMux
	closing atomic.Bool

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// New returns a server for the named rankers. The first name in sorted
// order is the default model when a request names none.
func New(rankers map[string]rank.Ranker, limits Limits) (*Server, error) {
	if len(rankers) == 0 {
		return nil, errors.New("serve: no rankers configured")
	}
	s := &Server{rankers: rankers, limits: limits, mux: http.NewServeMux()}
	for name := range rankers {
		s.names = append(s.names, name)
	}
	sort.Strings(s.names)
	reg := prometheus.NewRegistry()
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "as2_requests_total", Help: "HTTP requests by route, model and status code.",
	}, []string{"route", "model", "code"})
	s.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "as2_request_duration_seconds", Help: "HTTP request latency by route and model.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"route", "model"})
	reg.MustRegister(s.requests, s.latency, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.mux.Handle("POST /v1/rerank", s.instrument("/v1/rerank", s.rerank))
	s.mux.Handle("POST /v1/select", s.instrument("/v1/select", s.selectSentences))
	s.mux.Handle("GET /v1/models", s.instrument("/v1/models", s.models))
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if s.closing.Load() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "models": s.names})
	})
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Calibrate attaches an answer-triggering calibration to a ranker: from
// then on /v1/select says whether the document answers the question at all.
func (s *Server) Calibrate(model string, c trigger.Calibration) error {
	if _, ok := s.rankers[model]; !ok {
		return fmt.Errorf("serve: no ranker %q to calibrate", model)
	}
	if s.calib == nil {
		s.calib = map[string]trigger.Calibration{}
	}
	s.calib[model] = c
	return nil
}

// Closing marks the server as shutting down: /readyz fails from then on, so
// that a load balancer stops sending requests while in-flight ones finish.
func (s *Server) Closing() { s.closing.Store(true) }

// apiError is a client error with its status code.
type apiError struct {
	code int
	msg  string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// handler is an endpoint: it returns the response body or an error, and the
// model it used, for the metrics.
type handler func(r *http.Request) (body any, model string, err error)

// instrument turns a handler into an http.Handler with limits, errors as
// JSON, a recovered panic as a 500 (a bug, never the request's fault), and
// metrics.
func (s *Server) instrument(route string, h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		model := ""
		code := http.StatusOK
		defer func() {
			if p := recover(); p != nil {
				code = http.StatusInternalServerError
				writeJSON(w, code, map[string]string{"error": "internal error"})
			}
			s.requests.WithLabelValues(route, model, strconv.Itoa(code)).Inc()
			s.latency.WithLabelValues(route, model).Observe(time.Since(start).Seconds())
		}()
		if s.limits.Timeout > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), s.limits.Timeout)
			defer cancel()
			r = r.WithContext(ctx)
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.limits.MaxBodyBytes)
		body, m, err := h(r)
		model = m
		if err != nil {
			code = statusOf(err)
			writeJSON(w, code, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, code, body)
	})
}

func statusOf(err error) int {
	var ae *apiError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae.code
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		return 499 // the client went away
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// decode reads one JSON object into v, rejecting unknown fields, trailing
// data and wrong types with a message naming the field.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", mbe.Limit)}
		case errors.As(err, &te):
			return badRequest("field %q: %s is not a %s", te.Field, te.Value, te.Type)
		case errors.As(err, &se):
			return badRequest("malformed JSON at byte %d: %v", se.Offset, err)
		case errors.Is(err, io.EOF):
			return badRequest("empty request body: want a JSON object")
		}
		return badRequest("malformed request: %v", err)
	}
	if dec.More() {
		return badRequest("malformed request: data after the JSON object")
	}
	return nil
}

func (s *Server) ranker(name string) (rank.Ranker, string, error) {
	if name == "" {
		name = s.names[0]
	}
	r, ok := s.rankers[name]
	if !ok {
		return nil, name, &apiError{http.StatusNotFound, fmt.Sprintf("unknown model %q (GET /v1/models lists them)", name)}
	}
	return r, name, nil
}

func (s *Server) checkText(field, t string) error {
	if !utf8.ValidString(t) {
		return badRequest("%s: not valid UTF-8", field)
	}
	if len(t) > s.limits.MaxTextBytes {
		return &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%s: %d bytes, the limit is %d", field, len(t), s.limits.MaxTextBytes)}
	}
	return nil
}

// RerankRequest is the body of POST /v1/rerank.
type RerankRequest struct {
	Model           string   `json:"model"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            *int     `json:"top_n,omitempty"`
	ReturnDocuments bool     `json:"return_documents,omitempty"`
}

// RerankResult is one ranked document.
type RerankResult struct {
	Index          int     `json:"index"`
	RelevanceScore float64 `json:"relevance_score"`
	Document       *string `json:"document,omitempty"`
}

// RerankResponse is the body of a successful rerank.
type RerankResponse struct {
	Model   string         `json:"model"`
	Results []RerankResult `json:"results"`
}

// score checks the texts and scores the candidates as one question, in the
// given order, returning them best first.
func (s *Server) score(r *http.Request, model, question string, cands []string, field string, topN *int) ([]rank.Scored, string, error) {
	rk, name, err := s.ranker(model)
	if err != nil {
		return nil, name, err
	}
	if err := s.checkText("query", question); err != nil {
		return nil, name, err
	}
	if len(question) == 0 || len(text.Tokenize(question)) == 0 {
		return nil, name, badRequest("the question is empty")
	}
	if len(cands) == 0 {
		return nil, name, badRequest("%s: empty; give at least one", field)
	}
	if len(cands) > s.limits.MaxDocuments {
		return nil, name, &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%s: %d given, the limit is %d", field, len(cands), s.limits.MaxDocuments)}
	}
	if topN != nil && *topN < 1 {
		return nil, name, badRequest("top_n: %d; want at least 1", *topN)
	}
	q := &dataset.Question{ID: "request", Text: question, Candidates: make([]dataset.Candidate, len(cands))}
	for i, c := range cands {
		if err := s.checkText(fmt.Sprintf("%s[%d]", field, i), c); err != nil {
			return nil, name, err
		}
		q.Candidates[i] = dataset.Candidate{ID: strconv.Itoa(i), Text: c, Position: i, Label: dataset.Unlabeled}
	}
	ranked, err := rank.Rank(r.Context(), rk, q)
	if err != nil {
		return nil, name, err
	}
	if topN != nil && *topN < len(ranked) {
		ranked = ranked[:*topN]
	}
	return ranked, name, nil
}

func (s *Server) rerank(r *http.Request) (any, string, error) {
	var req RerankRequest
	if err := decode(r, &req); err != nil {
		return nil, req.Model, err
	}
	ranked, name, err := s.score(r, req.Model, req.Query, req.Documents, "documents", req.TopN)
	if err != nil {
		return nil, name, err
	}
	resp := RerankResponse{Model: name, Results: make([]RerankResult, len(ranked))}
	for k, sc := range ranked {
		resp.Results[k] = RerankResult{Index: sc.Index, RelevanceScore: sc.Score}
		if req.ReturnDocuments {
			resp.Results[k].Document = &req.Documents[sc.Index]
		}
	}
	return resp, name, nil
}

// SelectRequest is the body of POST /v1/select: a question and either a
// whole document, which as2 splits into sentences, or the sentences in
// document order.
type SelectRequest struct {
	Model     string   `json:"model"`
	Question  string   `json:"question"`
	Document  string   `json:"document,omitempty"`
	Sentences []string `json:"sentences,omitempty"`
	TopN      *int     `json:"top_n,omitempty"`
}

// Sentence is one selected sentence.
type Sentence struct {
	Index int     `json:"index"` // position in the document
	Text  string  `json:"text"`
	Score float64 `json:"score"`
	Start *int    `json:"start,omitempty"` // byte offsets in "document", when one was given
	End   *int    `json:"end,omitempty"`
}

// SelectResponse is the body of a successful select. Answer and
// Probability are present when the model has a calibration (as2 trigger):
// the probability that the best sentence answers, and whether it passes the
// threshold chosen on dev; Answer false means "no answer in this document".
type SelectResponse struct {
	Model       string     `json:"model"`
	Sentences   []Sentence `json:"sentences"`
	Answer      *bool      `json:"answer,omitempty"`
	Probability *float64   `json:"probability,omitempty"`
}

func (s *Server) selectSentences(r *http.Request) (any, string, error) {
	var req SelectRequest
	if err := decode(r, &req); err != nil {
		return nil, req.Model, err
	}
	if (req.Document == "") == (len(req.Sentences) == 0) {
		return nil, req.Model, badRequest("give exactly one of document and sentences")
	}
	sents := req.Sentences
	var spans []text.Sentence
	if req.Document != "" {
		// The body limit bounds the document; each sentence is then checked
		// like any candidate.
		if !utf8.ValidString(req.Document) {
			return nil, req.Model, badRequest("document: not valid UTF-8")
		}
		spans = text.SplitSentences(req.Document)
		sents = make([]string, len(spans))
		for i, sp := range spans {
			sents[i] = sp.Text
		}
	}
	ranked, name, err := s.score(r, req.Model, req.Question, sents, "sentences", req.TopN)
	if err != nil {
		return nil, name, err
	}
	resp := SelectResponse{Model: name, Sentences: make([]Sentence, len(ranked))}
	if c, ok := s.calib[name]; ok && len(ranked) > 0 {
		p, a := c.Prob(ranked[0].Score), c.Answer(ranked[0].Score)
		resp.Probability, resp.Answer = &p, &a
	}
	for k, sc := range ranked {
		resp.Sentences[k] = Sentence{Index: sc.Index, Text: sents[sc.Index], Score: sc.Score}
		if spans != nil {
			resp.Sentences[k].Start, resp.Sentences[k].End = &spans[sc.Index].Start, &spans[sc.Index].End
		}
	}
	return resp, name, nil
}

// ModelInfo describes one configured ranker.
type ModelInfo struct {
	ID      string `json:"id"`
	Default bool   `json:"default"`
}

func (s *Server) models(*http.Request) (any, string, error) {
	out := map[string][]ModelInfo{"data": {}}
	for i, n := range s.names {
		out["data"] = append(out["data"], ModelInfo{ID: n, Default: i == 0})
	}
	return out, "", nil
}
