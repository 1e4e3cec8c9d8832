// Package serve is as2's HTTP service: it loads rankers and answer indexes
// once and answers rerank, answer-selection and retrieval requests
// concurrently. It is an http.Handler:
//
//	POST /v1/rerank   Cohere's rerank v1: {"model", "query", "documents": [text or {"text"}, ...],
//	                  "top_n", "return_documents", "max_chunks_per_doc", "rank_fields"}
//	                  -> {"id", "model", "results": [{"index", "relevance_score", "score",
//	                      "document"?: {"text"}, "passage"?, "sentence"?, "truncated"?}, ...],
//	                      "meta": {"api_version": {"version"}, "warnings"?}}
//	POST /v2/rerank   Cohere's rerank v2: the same, with "max_tokens_per_doc" (and "priority", unused)
//	POST /rerank      text-embeddings-inference's rerank: {"query", "texts", "raw_scores",
//	                  "return_text", "truncate", "truncation_direction", "model"?}
//	                  -> [{"index", "score", "text"?, "passage"?, "sentence"?, "truncated"?}, ...]
//	POST /v1/select   {"model", "question", "document" | "sentences": [...], "top_n", "max_chunks_per_doc"}
//	                  -> {"model", "sentences": [{"index", "text", "score"}, ...], "answer"?,
//	                      "probability"?, "passage"?, "truncated"?, "warnings"?}
//	POST /v1/retrieve {"index", "question", "k", "rerank"?, "depth"?, "retrieval_weight"?}
//	                  -> {"index", "rerank"?, "depth"?, "results": [{"rank", "id", "text", "score",
//	                      "retrieval_score"?, "retrieval_rank"?}, ...]}
//	GET  /v1/models   the configured rankers ("data") and indexes ("indexes")
//	GET  /healthz     the process is up
//	GET  /readyz      the rankers are loaded and the server is not shutting down
//	GET  /metrics     Prometheus: requests and latency per route, model and status;
//	                  requests in flight and queued
//	GET  /            a page to try the rankers in a browser
//
// The rerank routes answer as the clients users already have expect:
// /v1/rerank and /v2/rerank as Cohere's API reference defines them (its
// SDK works pointed at as2), /rerank as text-embeddings-inference's. Where
// the model has a calibration (the built-in model has one; Calibrate adds
// one), relevance_score (TEI: score, unless raw_scores) is the calibrated
// probability that the document answers, in [0, 1] as Cohere's scores are,
// and "score" is the model's own score; without one both are the score.
// as2's extra fields sit beside the clients' and break none of them. The
// documents of a request are scored as one question's candidates, in the
// order given, which is what the structure-aware rankers (an RNN over
// candidates in document order) need. Field names match exactly (JSON
// decoding in Go is otherwise case-insensitive) and bodies must be UTF-8.
// Every error is JSON, {"error": {"code": "...", "message": "..."}}: the
// code is stable (see the Code* constants), the message is for people; a
// request never gets a 5xx for its content.
//
// Long documents are never truncated silently. A document longer than the
// model's input (InputLimiter; a cross-encoder's encoder length) is split
// into passages of whole sentences up to that length, each overlapping the
// last by a sentence, and its score is its best passage's; a ranker with
// no input limit is sentence-level: a document over DefaultPassageTokens
// is scored by its sentences, its score is its best sentence's, and
// "sentence" names it. Either way "passage" gives the best passage's text
// and byte offsets in the document. max_chunks_per_doc (default
// DefaultMaxChunks, Cohere's) caps the passages scored per document; a
// document it cuts says "truncated": true, with a warning in meta.warnings.
// /v1/select scores a document's sentences whatever its length, names the
// passage holding the best one, and caps only when max_chunks_per_doc is
// given.
//
// Empty documents (and null ones, which JSON decodes as empty) are ranked
// last, as as2 rank ranks empty candidates: a text that is empty or white
// space is never given to the model, which has nothing to score in it (an
// empty string could otherwise outscore the answer), and it comes after
// every scored text, in the order given, with a null score. This holds for
// the rerank routes' documents, /v1/select's sentences and the answers of a
// /v1/retrieve rerank stage. What has nothing to rank at all is refused
// with a 400: no documents, or a "document" with no sentence in it.
//
// /v1/retrieve searches an Index (AddIndex: an index.Retriever and its
// answers' texts) for the k best answers of a question. With "rerank" it is
// a two-stage cascade, retrieve:depth → ranker: the depth best answers
// (default max(k, 100)) become one question's candidates, in retrieval
// order, for one of the server's rankers, and the k best of its ranking
// are returned with their retrieval scores and ranks beside its scores;
// "retrieval_weight" orders them by the two stages' scores fused
// (index.FuseStages) instead.
// AddHybrid serves the fusion of indexes of one pool (index.Fused) as one
// more index: hybrid retrieval, BM25's list with a dual encoder's.
//
// Memory is bounded per request (Limits.MaxTokens) and in all: at most
// Limits.Concurrent requests are admitted at once, Limits.Queue more wait
// up to Limits.QueueWait, and the rest get 429 with Retry-After.
package serve

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/as2/as2/model"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
	"github.com/as2/as2/trigger"
)

// Limits bound what one request may ask for, and how many are served at
// once.
type Limits struct {
	MaxBodyBytes int64         // request body
	MaxDocuments int           // documents (or sentences) per request
	MaxTextBytes int           // one query, document or sentence
	MaxTokens    int           // documents' tokens (package text's tokenizer) per request
	Timeout      time.Duration // per request, passed to the ranker through its context

	Concurrent int           // requests admitted at once
	Queue      int           // requests waiting for admission; more get 429
	QueueWait  time.Duration // longest wait for admission; then 429
}

// DefaultLimits suit a reranker behind a retriever. MaxTokens allows 1,000
// documents of 100 tokens (or 143 of 700): the memory a request takes grows
// with its tokens. Two requests are scored at once, each on every core,
// and eight more may wait a second. With the built-in model (int8) the
// largest request they admit peaked at about 200 MB of RSS in all, and 8
// clients sending it at 260 MB, within issue 59's 500 MB: the transformer
// models score in batches of at most 128 positions, so a request's memory
// no longer grows with its tokens past the batches; on 2 cores such a
// request takes about 5.5 s, and two at once pass Timeout (504)
// (docs/serving.md, notes/2026-11-28-builtin-speed.md).
func DefaultLimits() Limits {
	return Limits{MaxBodyBytes: 4 << 20, MaxDocuments: 1000, MaxTextBytes: 64 << 10, MaxTokens: 100_000, Timeout: 10 * time.Second,
		Concurrent: 2, Queue: 8, QueueWait: time.Second}
}

// LimitError is a limit out of range. Limit names it as as2 serve's flag
// does (and the configuration file, with "_" for "-"), so that the error
// points at the setting to change; Err says what is wrong with Value.
type LimitError struct {
	Limit string // e.g. "max-body"
	Value int64
	Err   error
}

func (e *LimitError) Error() string { return fmt.Sprintf("%s %d: %v", e.Limit, e.Value, e.Err) }

func (e *LimitError) Unwrap() error { return e.Err }

// Validate reports the first limit out of range as a *LimitError: a zero
// body, document, text or token limit would refuse every request, and no
// admission slot would admit none. Timeout and QueueWait may be zero (no
// timeout; no wait).
func (l Limits) Validate() error {
	for _, c := range []struct {
		limit    string
		val, min int64
	}{
		{"max-body", l.MaxBodyBytes, 1},
		{"max-documents", int64(l.MaxDocuments), 1},
		{"max-text", int64(l.MaxTextBytes), 1},
		{"max-tokens", int64(l.MaxTokens), 1},
		{"concurrent", int64(l.Concurrent), 1},
		{"queue", int64(l.Queue), 0},
	} {
		if c.val < c.min {
			why := errors.New("must be positive")
			if c.min == 0 {
				why = errors.New("must not be negative")
			}
			return &LimitError{Limit: c.limit, Value: c.val, Err: why}
		}
	}
	return nil
}

// Error codes: the stable "code" of an error body.
const (
	CodeMalformedJSON    = "malformed_json"         // not JSON, or not one object
	CodeUnknownField     = "unknown_field"          // a field the route does not know (names match exactly)
	CodeWrongType        = "wrong_type"             // a field of the wrong JSON type
	CodeInvalidUTF8      = "invalid_utf8"           // the body is not UTF-8
	CodeInvalidRequest   = "invalid_request"        // a value out of range, a missing or contradictory field
	CodeModelNotFound    = "model_not_found"        // 404: no such model (GET /v1/models lists them)
	CodeIndexNotFound    = "index_not_found"        // 404: no such index (GET /v1/models lists them)
	CodePayloadTooLarge  = "payload_too_large"      // 413: the body is over --max-body
	CodeTooManyDocuments = "too_many_documents"     // 413: over --max-documents
	CodeTextTooLong      = "text_too_long"          // 413: a text over --max-text
	CodeTooManyTokens    = "too_many_tokens"        // 413: the documents' tokens are over --max-tokens
	CodeTooLargeForModel = "too_large_for_model"    // 413: over what a model with a candidate RNN scores at once
	CodeBodyTimeout      = "body_timeout"           // 408: the body did not arrive before the read deadline
	CodeOverloaded       = "overloaded"             // 429: every scoring slot and the queue are taken; see Retry-After
	CodeDeadlineExceeded = "deadline_exceeded"      // 504: the request ran past --timeout
	CodeClientClosed     = "client_closed_request"  // 499: the client went away
	CodeNotFound         = "not_found"              // 404: no such route
	CodeMethodNotAllowed = "method_not_allowed"     // 405: see the Allow header
	CodeInternal         = "internal_error"         // 500: a bug
	CodeIndexUnavailable = "index_unavailable"      // 503: the index's answers live in a server that cannot be reached (that index only)
	CodeIndexBackend     = "index_backend_error"    // 502: the index's server returned an error
	CodeUnsupportedMedia = "unsupported_media_type" // 415: the body is not JSON
)

// Server serves rankers over HTTP. Create it with New.
type Server struct {
	rankers map[string]rank.Ranker
	calib   map[string]trigger.Calibration
	names   []string
	indexes map[string]Index // /v1/retrieve's pools, by name
	inames  []string         // their names, sorted
	def     string
	limits  Limits
	mux     *http.ServeMux
	closing atomic.Bool

	slots   chan struct{} // admission: one token per request being served
	waiting atomic.Int64  // requests queued for a slot (briefly one more as one is refused)

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// New returns a server for the named rankers. The first name in sorted
// order is the default model when a request names none, unless SetDefault
// names another.
func New(rankers map[string]rank.Ranker, limits Limits) (*Server, error) {
	if len(rankers) == 0 {
		return nil, errors.New("serve: no rankers configured")
	}
	if err := limits.Validate(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s := &Server{rankers: rankers, limits: limits, mux: http.NewServeMux(), slots: make(chan struct{}, limits.Concurrent)}
	for name := range rankers {
		s.names = append(s.names, name)
	}
	sort.Strings(s.names)
	s.def = s.names[0]
	reg := prometheus.NewRegistry()
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "as2_requests_total", Help: "HTTP requests by route, model and status code.",
	}, []string{"route", "model", "code"})
	s.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "as2_request_duration_seconds", Help: "HTTP request latency by route and model.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"route", "model"})
	// The gauges read the admission state when scraped, so they cannot
	// drift from it: in flight and queued against --concurrent and --queue
	// say how close the server is to answering 429.
	inFlight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "as2_requests_in_flight", Help: "Requests admitted and being served (at most --concurrent).",
	}, func() float64 { return float64(len(s.slots)) })
	queued := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "as2_requests_queued", Help: "Requests waiting for admission (at most --queue).",
	}, func() float64 { return float64(min(max(s.waiting.Load(), 0), int64(s.limits.Queue))) })
	reg.MustRegister(s.requests, s.latency, inFlight, queued, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Routes check their method themselves, so that a wrong method gets a
	// JSON 405 rather than the mux's plain text.
	s.mux.Handle("/v1/rerank", method("POST", s.instrument("/v1/rerank", s.cohereRerank("1"))))
	s.mux.Handle("/v2/rerank", method("POST", s.instrument("/v2/rerank", s.cohereRerank("2"))))
	s.mux.Handle("/rerank", method("POST", s.instrument("/rerank", s.teiRerank)))
	s.mux.Handle("/v1/select", method("POST", s.instrument("/v1/select", s.selectSentences)))
	s.mux.Handle("/v1/retrieve", method("POST", s.instrument("/v1/retrieve", s.retrieve)))
	s.mux.Handle("/v1/models", method("GET", s.instrument("/v1/models", s.models)))
	s.mux.Handle("/healthz", method("GET", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})))
	s.mux.Handle("/readyz", method("GET", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if s.closing.Load() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "models": s.names})
	})))
	s.mux.Handle("/metrics", method("GET", promhttp.HandlerFor(reg, promhttp.HandlerOpts{})))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			writeError(w, &apiError{http.StatusNotFound, CodeNotFound, fmt.Sprintf("no route %s (see GET / for the page, POST /v1/rerank, POST /v2/rerank, POST /rerank, POST /v1/select, POST /v1/retrieve, GET /v1/models)", r.URL.Path)})
			return
		}
		method("GET", http.HandlerFunc(s.page)).ServeHTTP(w, r)
	})
	return s, nil
}

// method answers requests of any other method than m (and HEAD for GET)
// with a JSON 405.
func method(m string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m && !(m == "GET" && r.Method == "HEAD") {
			w.Header().Set("Allow", m)
			writeError(w, &apiError{http.StatusMethodNotAllowed, CodeMethodNotAllowed, fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, m)})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// SetDefault makes name the model of requests that name none.
func (s *Server) SetDefault(name string) error {
	if _, ok := s.rankers[name]; !ok {
		return fmt.Errorf("serve: no ranker %q to make the default (have %s)", name, strings.Join(s.names, ", "))
	}
	s.def = name
	return nil
}

//go:embed page.html
var pageHTML []byte

// page is the try-it page.
func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(pageHTML)
}

// ServeHTTP implements http.Handler.
// While the server drains, every response asks the client to close its
// connection, so that no client is caught sending on a keep-alive
// connection as the server closes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.closing.Load() {
		w.Header().Set("Connection", "close")
	}
	s.mux.ServeHTTP(w, r)
}

// Calibrate attaches an answer-triggering calibration to a ranker: from
// then on /v1/select says whether the document answers the question at all,
// and the rerank routes' relevance_score is the calibrated probability.
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

// apiError is a client error with its status, code and message.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(code, format string, args ...any) error {
	return &apiError{http.StatusBadRequest, code, fmt.Sprintf(format, args...)}
}

func tooLarge(code, format string, args ...any) error {
	return &apiError{http.StatusRequestEntityTooLarge, code, fmt.Sprintf(format, args...)}
}

// handler is an endpoint: it returns the response body or an error, and the
// model it used, for the metrics.
type handler func(r *http.Request) (body any, model string, err error)

// instrument turns a handler into an http.Handler with limits, admission,
// errors as JSON, a recovered panic as a 500 (a bug, never the request's
// fault), and metrics.
func (s *Server) instrument(route string, h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		model := ""
		code := http.StatusOK
		defer func() {
			if p := recover(); p != nil {
				code = http.StatusInternalServerError
				fmt.Fprintf(os.Stderr, "as2 serve: panic serving %s: %v\n", route, p)
				writeError(w, &apiError{code, CodeInternal, "internal error"})
			}
			s.requests.WithLabelValues(route, model, strconv.Itoa(code)).Inc()
			s.latency.WithLabelValues(route, model).Observe(time.Since(start).Seconds())
		}()
		if s.limits.Timeout > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), s.limits.Timeout)
			defer cancel()
			r = r.WithContext(ctx)
		}
		if r.Method == "POST" {
			// Admission before the body is read: what a request holds
			// (its body, its tokens, the model's states) is bounded by
			// the number admitted.
			release, err := s.admit(r.Context())
			if err != nil {
				code = statusOf(err)
				if code == http.StatusTooManyRequests {
					w.Header().Set("Retry-After", "1")
				}
				writeError(w, err)
				return
			}
			defer release()
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.limits.MaxBodyBytes)
		body, m, err := h(r)
		model = m
		if err != nil {
			code = statusOf(err)
			writeError(w, err)
			return
		}
		writeJSON(w, code, body)
	})
}

// admit waits for a scoring slot: at once when one is free, in the queue
// while it has room, at most QueueWait; otherwise it refuses with 429.
func (s *Server) admit(ctx context.Context) (release func(), err error) {
	release = func() { <-s.slots }
	select {
	case s.slots <- struct{}{}:
		return release, nil
	default:
	}
	if s.waiting.Add(1) > int64(s.limits.Queue) {
		s.waiting.Add(-1)
		return nil, &apiError{http.StatusTooManyRequests, CodeOverloaded, fmt.Sprintf("the server is busy: %d requests are being served and %d wait; retry after a second", s.limits.Concurrent, s.limits.Queue)}
	}
	defer s.waiting.Add(-1)
	t := time.NewTimer(s.limits.QueueWait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return release, nil
	case <-t.C:
		return nil, &apiError{http.StatusTooManyRequests, CodeOverloaded, fmt.Sprintf("the server is busy: no scoring slot came free within %v; retry after a second", s.limits.QueueWait)}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func statusOf(err error) int {
	var ae *apiError
	var mbe *http.MaxBytesError
	var tl *model.TooLargeError
	switch {
	case errors.As(err, &ae):
		return ae.status
	case errors.As(err, &mbe), errors.As(err, &tl):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		return 499 // the client went away
	}
	return http.StatusInternalServerError
}

// writeError writes err as {"error": {"code", "message"}}.
func writeError(w http.ResponseWriter, err error) {
	status := statusOf(err)
	var ae *apiError
	var mbe *http.MaxBytesError
	var tl *model.TooLargeError
	code, msg := CodeInternal, "internal error"
	switch {
	case errors.As(err, &ae):
		code, msg = ae.code, ae.msg
	case errors.As(err, &mbe):
		code, msg = CodePayloadTooLarge, fmt.Sprintf("request body larger than %d bytes", mbe.Limit)
	case errors.As(err, &tl):
		code, msg = CodeTooLargeForModel, tl.Error()
	case errors.Is(err, context.DeadlineExceeded):
		code, msg = CodeDeadlineExceeded, "the request ran past the server's time limit (--timeout)"
	case errors.Is(err, context.Canceled):
		code, msg = CodeClientClosed, "the client closed the request"
	default:
		fmt.Fprintf(os.Stderr, "as2 serve: %v\n", err)
	}
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// decode reads one JSON object into v, a pointer to a struct: its field
// names must match v's exactly (encoding/json alone would accept "Query"
// for "query"), the body must be UTF-8, and trailing data and wrong types
// are refused with a message naming the field in JSON's terms.
func decode(r *http.Request, v any) error {
	_, err := decodeFields(r, v)
	return err
}

// decodeFields is decode that also returns the body's fields as given, for
// a route that must tell a field set to "" from one left out.
func decodeFields(r *http.Request, v any) (map[string]json.RawMessage, error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(CodePayloadTooLarge, "request body larger than %d bytes", mbe.Limit)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, &apiError{http.StatusRequestTimeout, CodeBodyTimeout, "the request body did not arrive before the server's read deadline"}
		}
		return nil, badRequest(CodeMalformedJSON, "reading the request body: %v", err)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "text/plain") && !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		return nil, &apiError{http.StatusUnsupportedMediaType, CodeUnsupportedMedia, fmt.Sprintf("Content-Type %q: send application/json", ct)}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, badRequest(CodeMalformedJSON, "empty request body: want a JSON object")
	}
	if !utf8.Valid(raw) {
		return nil, badRequest(CodeInvalidUTF8, "the request body is not valid UTF-8 (at byte %d)", invalidAt(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return nil, syntaxError(err)
	}
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return nil, badRequest(CodeMalformedJSON, "malformed request: data after the JSON object")
	}
	if fields == nil {
		return nil, badRequest(CodeMalformedJSON, "the request body must be a JSON object, not null")
	}
	known := jsonFields(reflect.TypeOf(v).Elem())
	for name := range fields {
		if _, ok := known[name]; ok {
			continue
		}
		for k := range known {
			if strings.EqualFold(k, name) {
				return nil, badRequest(CodeUnknownField, "unknown field %q: field names are case-sensitive; did you mean %q?", name, k)
			}
		}
		return nil, badRequest(CodeUnknownField, "unknown field %q", name)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			return nil, ae // a field's own UnmarshalJSON said what is wrong
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return nil, badRequest(CodeMalformedJSON, "the request body must be a JSON object, not %s", te.Value)
			}
			want := "a value of another type"
			if f, ok := known[te.Field]; ok {
				want = jsonKind(f)
			}
			return nil, badRequest(CodeWrongType, "field %q: %s given, want %s", te.Field, te.Value, want)
		}
		return nil, syntaxError(err)
	}
	return fields, nil
}

func syntaxError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return badRequest(CodeMalformedJSON, "malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		return badRequest(CodeMalformedJSON, "the request body must be a JSON object, not %s", te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return badRequest(CodeMalformedJSON, "malformed JSON: the body ends before the object does")
	}
	return badRequest(CodeMalformedJSON, "malformed JSON")
}

// invalidAt is the offset of b's first byte that is not UTF-8.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// jsonFields maps the JSON names of struct type t's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// jsonKind names what a JSON value of Go type t is, for messages.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	}
	return "an object"
}

func (s *Server) ranker(name string) (rank.Ranker, string, error) {
	if name == "" {
		name = s.def
	}
	r, ok := s.rankers[name]
	if !ok {
		return nil, name, &apiError{http.StatusNotFound, CodeModelNotFound, fmt.Sprintf("unknown model %q (GET /v1/models lists them)", name)}
	}
	return r, name, nil
}

func (s *Server) checkText(field, t string) error {
	if !utf8.ValidString(t) {
		return badRequest(CodeInvalidUTF8, "%s: not valid UTF-8", field)
	}
	if len(t) > s.limits.MaxTextBytes {
		return tooLarge(CodeTextTooLong, "%s: %d bytes, the limit is %d", field, len(t), s.limits.MaxTextBytes)
	}
	return nil
}

// checkTokens refuses candidates of more than MaxTokens tokens in all.
func (s *Server) checkTokens(field string, cands []string) error {
	if over, _ := text.TokensOver(s.limits.MaxTokens, cands...); over {
		return tooLarge(CodeTooManyTokens, "%s: more than %d tokens in all (the limit, --max-tokens); send fewer or shorter texts", field, s.limits.MaxTokens)
	}
	return nil
}

// score checks the texts and scores the candidates as one question, in the
// given order, returning them best first.
func (s *Server) score(r *http.Request, model, question string, cands []string, field string, topN *int) ([]rank.Scored, string, error) {
	rk, name, err := s.ranker(model)
	if err != nil {
		return nil, name, err
	}
	if err := s.checkQuestion("query", question); err != nil {
		return nil, name, err
	}
	if len(cands) == 0 {
		return nil, name, badRequest(CodeInvalidRequest, "%s: empty; give at least one", field)
	}
	if len(cands) > s.limits.MaxDocuments {
		return nil, name, tooLarge(CodeTooManyDocuments, "%s: %d given, the limit is %d", field, len(cands), s.limits.MaxDocuments)
	}
	if topN != nil && *topN < 1 {
		return nil, name, badRequest(CodeInvalidRequest, "top_n: %d; want at least 1", *topN)
	}
	for i, c := range cands {
		if err := s.checkText(fmt.Sprintf("%s[%d]", field, i), c); err != nil {
			return nil, name, err
		}
	}
	if err := s.checkTokens(field, cands); err != nil {
		return nil, name, err
	}
	ranked, err := rank.Texts(r.Context(), rk, question, cands)
	if err != nil {
		return nil, name, err
	}
	if topN != nil && *topN < len(ranked) {
		ranked = ranked[:*topN]
	}
	return ranked, name, nil
}

// checkQuestion refuses a question over MaxTextBytes or without a token;
// field names it in the message.
func (s *Server) checkQuestion(field, question string) error {
	if err := s.checkText(field, question); err != nil {
		return err
	}
	if len(question) == 0 || len(text.Tokenize(question)) == 0 {
		return badRequest(CodeInvalidRequest, "the question is empty")
	}
	return nil
}

// SelectRequest is the body of POST /v1/select: a question and either a
// whole document, which as2 splits into sentences, or the sentences in
// document order. The field given decides, even when empty: a "document"
// of no sentence ("" or white space) is refused as having nothing to
// select, and an empty sentence is ranked last, unscored.
type SelectRequest struct {
	Model     string   `json:"model"`
	Question  string   `json:"question"`
	Document  string   `json:"document,omitempty"`
	Sentences []string `json:"sentences,omitempty"`
	TopN      *int     `json:"top_n,omitempty"`
	// MaxChunksPerDoc scores only the sentences of a long document's
	// first so many passages (of the model's input length); none: all.
	MaxChunksPerDoc *int `json:"max_chunks_per_doc,omitempty"`
}

// Sentence is one selected sentence.
type Sentence struct {
	Index int      `json:"index"` // position in the document
	Text  string   `json:"text"`
	Score *float64 `json:"score"`           // null for an empty sentence, never scored and last
	Start *int     `json:"start,omitempty"` // byte offsets in "document", when one was given
	End   *int     `json:"end,omitempty"`
}

// SelectResponse is the body of a successful select. Answer and
// Probability are present when the model has a calibration (as2 trigger):
// the probability that the best sentence answers, and whether it passes the
// threshold chosen on dev; Answer false means "no answer in this document".
//
// For a "document" longer than the model's input, Passage is the passage
// of that length (whole sentences) holding the best sentence, and
// Truncated says max_chunks_per_doc left sentences unscored (Warnings says
// how many passages were scored).
type SelectResponse struct {
	Model       string     `json:"model"`
	Sentences   []Sentence `json:"sentences"`
	Answer      *bool      `json:"answer,omitempty"`
	Probability *float64   `json:"probability,omitempty"`
	Passage     *Span      `json:"passage,omitempty"`
	Truncated   bool       `json:"truncated,omitempty"`
	Warnings    []string   `json:"warnings,omitempty"`
}

func (s *Server) selectSentences(r *http.Request) (any, string, error) {
	var req SelectRequest
	fields, err := decodeFields(r, &req)
	if err != nil {
		return nil, req.Model, err
	}
	// Presence, not emptiness, says which one was given: an empty document
	// is a document with nothing to select, not a missing field.
	hasDoc := given(fields, "document")
	hasSents := given(fields, "sentences")
	switch {
	case hasDoc && hasSents:
		return nil, req.Model, badRequest(CodeInvalidRequest, "give either document or sentences, not both")
	case !hasDoc && !hasSents:
		return nil, req.Model, badRequest(CodeInvalidRequest, "give document (a text, split into sentences here) or sentences (in document order)")
	}
	if req.MaxChunksPerDoc != nil && *req.MaxChunksPerDoc < 1 {
		return nil, req.Model, badRequest(CodeInvalidRequest, "max_chunks_per_doc: %d; want at least 1", *req.MaxChunksPerDoc)
	}
	sents := req.Sentences
	var spans []text.Sentence
	var passages []text.Passage
	var warnings []string
	if hasDoc {
		// The body limit bounds the document; each sentence is then checked
		// like any candidate.
		if !utf8.ValidString(req.Document) {
			return nil, req.Model, badRequest(CodeInvalidUTF8, "document: not valid UTF-8")
		}
		spans = text.SplitSentences(req.Document)
		if len(spans) == 0 {
			return nil, req.Model, badRequest(CodeInvalidRequest, "document: empty or white space only; there is no sentence to select")
		}
		// A long document's passages are what the model would read; the
		// response names the one holding the best sentence, and the cap
		// drops the sentences of passages past it, saying so.
		if rk, _, err := s.ranker(req.Model); err == nil {
			plen, _ := passageTokens(rk, req.Question)
			if over, _ := text.TokensOver(plen, req.Document); over {
				passages = text.SplitPassages(req.Document, spans, plen)
				if c := req.MaxChunksPerDoc; c != nil && *c < len(passages) {
					warnings = append(warnings, fmt.Sprintf("document: %d passages, only the sentences of the first %d scored (max_chunks_per_doc)", len(passages), *c))
					passages = passages[:*c]
					spans = spans[:passages[len(passages)-1].Last]
				}
			}
		}
		sents = make([]string, len(spans))
		for i, sp := range spans {
			sents[i] = sp.Text
		}
	}
	ranked, name, err := s.score(r, req.Model, req.Question, sents, "sentences", req.TopN)
	if err != nil {
		return nil, name, err
	}
	// trigger.NewSelection is as2.Select's core too: the library and the
	// service give the same answer.
	if spans == nil {
		spans = trigger.Unsplit(sents)
	}
	sel := trigger.NewSelection(spans, ranked, s.calibration(name))
	resp := SelectResponse{Model: name, Sentences: make([]Sentence, len(sel.Sentences)), Truncated: len(warnings) > 0, Warnings: warnings}
	if passages != nil && len(sel.Sentences) > 0 {
		resp.Passage = passageOf(passages, sel.Sentences[0].Index)
	}
	if sel.Calibrated {
		resp.Probability, resp.Answer = &sel.Probability, &sel.Answer
	}
	for k, st := range sel.Sentences {
		resp.Sentences[k] = Sentence{Index: st.Index, Text: st.Text, Score: scoreJSON(st.Score)}
		if st.Start >= 0 {
			resp.Sentences[k].Start, resp.Sentences[k].End = &st.Start, &st.End
		}
	}
	return resp, name, nil
}

// ModelInfo describes one configured ranker.
type ModelInfo struct {
	ID         string `json:"id"`
	Default    bool   `json:"default"`
	Calibrated bool   `json:"calibrated"` // /v1/select says whether there is an answer
}

// IndexInfo describes one configured index.
type IndexInfo struct {
	ID          string `json:"id"`
	Answers     int    `json:"answers"`
	Description string `json:"description,omitempty"`
}

// ModelsResponse is the body of GET /v1/models: the rankers (data, the
// shape model listings have elsewhere) and the indexes of /v1/retrieve.
type ModelsResponse struct {
	Data    []ModelInfo `json:"data"`
	Indexes []IndexInfo `json:"indexes"`
}

func (s *Server) models(*http.Request) (any, string, error) {
	out := ModelsResponse{Data: []ModelInfo{}, Indexes: []IndexInfo{}}
	for _, n := range s.names {
		_, cal := s.calib[n]
		out.Data = append(out.Data, ModelInfo{ID: n, Default: n == s.def, Calibrated: cal})
	}
	for _, n := range s.inames {
		x := s.indexes[n]
		out.Indexes = append(out.Indexes, IndexInfo{ID: n, Answers: len(x.Texts), Description: x.Description})
	}
	return out, "", nil
}

// calibration is the named model's calibration, or nil.
func (s *Server) calibration(name string) *trigger.Calibration {
	if c, ok := s.calib[name]; ok {
		return &c
	}
	return nil
}

// scoreJSON is a score as a response carries it: null for -Inf, the score
// of a text that was never scored (JSON has no infinities).
func scoreJSON(score float64) *float64 {
	if math.IsInf(score, -1) {
		return nil
	}
	return &score
}

// given reports whether the body set field to something other than null.
func given(fields map[string]json.RawMessage, field string) bool {
	raw, ok := fields[field]
	return ok && string(bytes.TrimSpace(raw)) != "null"
}
