package weaviate

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/as2/as2/index"
)

// Kind is the engine's name, in index.Remote records and on as2's command line.
const Kind = "weaviate"

// DefaultURL is where scripts/weaviate.sh starts a local server.
const DefaultURL = "http://127.0.0.1:8079"

// DefaultClass is the collection as2 stores answers in unless told.
const DefaultClass = "As2Answer"

// DefaultBatchSize is the objects per batch request: big enough that HTTP
// costs little per vector, small enough that a 512-dimensional batch stays
// a few MB.
const DefaultBatchSize = 256

// ErrUnavailable is wrapped by the errors of a server that cannot be
// reached or says it is unavailable (503): the index's failure, not the
// request's. It is index.ErrUnavailable; the server's other failures wrap
// index.ErrBackend.
var ErrUnavailable = index.ErrUnavailable

// Options say where an Index's vectors live and how its collection is made.
type Options struct {
	// URL is the server's base URL (DefaultURL if empty).
	URL string
	// Class is the collection: a capital letter, then letters, digits or
	// underscores (DefaultClass if empty).
	Class string
	// Dim is the vectors' dimension.
	Dim int
	// Create makes the class when it does not exist; without it a missing
	// class is an error (a search must not make an empty collection).
	Create bool
	// Ef is the HNSW search breadth set on a class Open creates; 0 leaves
	// Weaviate's dynamic default.
	Ef int
	// BatchSize is the objects per batch request (DefaultBatchSize if 0).
	BatchSize int
	// Client sends the requests (a client with a 2-minute timeout if nil);
	// contexts bound each call besides.
	Client *http.Client
}

// Index is a Weaviate collection of answer vectors, scored by inner
// product. It is safe for concurrent use.
type Index struct {
	url, class string
	dim, ef    int
	batch      int
	hc         *http.Client
	n          atomic.Int64
}

var _ index.Index[[]float32, []float32] = (*Index)(nil)

var classRE = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,254}$`)

// maxResponse bounds a response body read into memory.
const maxResponse = 64 << 20

// Open connects to the class opts names, checking that the server is
// ready, creating the class if opts.Create and it is missing, and counting
// its objects.
func Open(ctx context.Context, opts Options) (*Index, error) {
	x, err := newIndex(opts)
	if err != nil {
		return nil, err
	}
	if err := x.Ready(ctx); err != nil {
		return nil, err
	}
	exists, err := x.classExists(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case !exists && !opts.Create:
		return nil, fmt.Errorf("weaviate at %s: class %s does not exist (build the index first)", x.url, x.class)
	case !exists:
		if err := x.createClass(ctx); err != nil {
			return nil, err
		}
	}
	n, err := x.Count(ctx)
	if err != nil {
		return nil, err
	}
	x.n.Store(int64(n))
	return x, nil
}

func newIndex(opts Options) (*Index, error) {
	if opts.URL == "" {
		opts.URL = DefaultURL
	}
	if opts.Class == "" {
		opts.Class = DefaultClass
	}
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("weaviate: URL %q: want http://HOST:PORT or https://HOST:PORT", opts.URL)
	}
	if !classRE.MatchString(opts.Class) {
		return nil, fmt.Errorf("weaviate: class %q: want a capital letter, then letters, digits or underscores", opts.Class)
	}
	if opts.Dim < 1 || opts.Dim > 1<<16 {
		return nil, fmt.Errorf("weaviate: dimension %d: want 1 to %d", opts.Dim, 1<<16)
	}
	if opts.Ef < 0 || opts.BatchSize < 0 {
		return nil, fmt.Errorf("weaviate: ef %d, batch size %d: want ≥ 0", opts.Ef, opts.BatchSize)
	}
	x := &Index{url: strings.TrimRight(opts.URL, "/"), class: opts.Class, dim: opts.Dim, ef: opts.Ef,
		batch: opts.BatchSize, hc: opts.Client}
	if x.batch == 0 {
		x.batch = DefaultBatchSize
	}
	if x.hc == nil {
		x.hc = &http.Client{Timeout: 2 * time.Minute}
	}
	return x, nil
}

// URL is the server's base URL.
func (x *Index) URL() string { return x.url }

// Class is the collection's name.
func (x *Index) Class() string { return x.class }

// Dim is the vectors' dimension.
func (x *Index) Dim() int { return x.dim }

// Kind is the index kind's name.
func (x *Index) Kind() string { return Kind }

// Len implements index.Index: the objects counted when opened and after
// each Add.
func (x *Index) Len() int { return int(x.n.Load()) }

// Ready checks that the server answers and is ready for requests.
func (x *Index) Ready(ctx context.Context) error {
	return x.do(ctx, http.MethodGet, "/v1/.well-known/ready", nil, nil)
}

func (x *Index) classExists(ctx context.Context) (bool, error) {
	err := x.do(ctx, http.MethodGet, "/v1/schema/"+x.class, nil, nil)
	var he *HTTPError
	if errors.As(err, &he) && he.Status == http.StatusNotFound {
		return false, nil
	}
	return err == nil, err
}

// answerProp is the property that holds an object's as2 answer id.
const answerProp = "answerId"

func (x *Index) createClass(ctx context.Context) error {
	vic := map[string]any{"distance": "dot"}
	if x.ef > 0 {
		vic["ef"] = x.ef
	}
	class := map[string]any{
		"class":             x.class,
		"description":       "as2 answer vectors",
		"vectorizer":        "none",
		"vectorIndexConfig": vic,
		"properties": []map[string]any{{
			"name": answerProp, "dataType": []string{"text"},
			// the id is looked up whole, never searched by words
			"tokenization": "field",
		}},
	}
	return x.do(ctx, http.MethodPost, "/v1/schema", class, nil)
}

// SetEf sets the class's HNSW search breadth, which Weaviate lets a built
// class change (the trade of speed for recall): ef candidates a search
// keeps, or -1 for Weaviate's dynamic default. It rewrites the class's
// definition as the server returns it, with only ef changed.
func (x *Index) SetEf(ctx context.Context, ef int) error {
	if ef < -1 || ef == 0 || ef > 1<<16 {
		return fmt.Errorf("weaviate: ef %d: want -1 (dynamic) or 1 to %d", ef, 1<<16)
	}
	var class map[string]any
	if err := x.do(ctx, http.MethodGet, "/v1/schema/"+x.class, nil, &class); err != nil {
		return err
	}
	vic, ok := class["vectorIndexConfig"].(map[string]any)
	if !ok {
		return fmt.Errorf("weaviate at %s: class %s has no vectorIndexConfig", x.url, x.class)
	}
	vic["ef"] = ef
	if err := x.do(ctx, http.MethodPut, "/v1/schema/"+x.class, class, nil); err != nil {
		return err
	}
	x.ef = max(ef, 0)
	return nil
}

// Delete deletes the class and its objects.
func (x *Index) Delete(ctx context.Context) error {
	if err := x.do(ctx, http.MethodDelete, "/v1/schema/"+x.class, nil, nil); err != nil {
		return err
	}
	x.n.Store(0)
	return nil
}

// Count asks the server for the class's object count.
func (x *Index) Count(ctx context.Context) (int, error) {
	var resp graphQLResponse
	q := fmt.Sprintf("{Aggregate{%s{meta{count}}}}", x.class)
	if err := x.graphQL(ctx, q, &resp); err != nil {
		return 0, err
	}
	var agg struct {
		Aggregate map[string][]struct {
			Meta struct {
				Count *int `json:"count"`
			} `json:"meta"`
		} `json:"Aggregate"`
	}
	if err := json.Unmarshal(resp.Data, &agg); err != nil {
		return 0, x.malformed("counting objects", err)
	}
	rows := agg.Aggregate[x.class]
	if len(rows) != 1 || rows[0].Meta.Count == nil || *rows[0].Meta.Count < 0 {
		return 0, x.malformed("counting objects", errors.New("no meta count"))
	}
	return *rows[0].Meta.Count, nil
}

// Add implements index.Index; AddContext is the same, bounded by a
// context.
func (x *Index) Add(ids []string, vecs [][]float32) error {
	return x.AddContext(context.Background(), ids, vecs)
}

type batchObject struct {
	Class      string            `json:"class"`
	ID         string            `json:"id"`
	Properties map[string]string `json:"properties"`
	Vector     []float32         `json:"vector"`
}

// AddContext stores vecs under ids in batches of Options.BatchSize; ids
// already stored get the new vectors. It stops at ctx's end or the first
// failed batch; the batches stored before stay stored.
func (x *Index) AddContext(ctx context.Context, ids []string, vecs [][]float32) error {
	return x.AddProgress(ctx, ids, vecs, nil)
}

// inFlight is the batch requests AddProgress keeps open at once, so that
// the client encodes one while the server stores another.
const inFlight = 2

// AddProgress is AddContext for big pools, where storing takes minutes: if
// progress is set, it is called with the number of answers stored so far
// after each batch (never decreasing, never two calls at once). An id may
// appear once per call: with batches in flight, which of two vectors
// would be kept is not defined.
func (x *Index) AddProgress(ctx context.Context, ids []string, vecs [][]float32, progress func(done int)) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("weaviate: %d ids for %d vectors", len(ids), len(vecs))
	}
	seen := make(map[string]int, len(ids))
	for i, id := range ids {
		if id == "" {
			return fmt.Errorf("weaviate: answer %d has an empty id", i)
		}
		if j, dup := seen[id]; dup {
			return fmt.Errorf("weaviate: answers %d and %d have the same id %q", j, i, id)
		}
		seen[id] = i
		if err := x.checkVector(vecs[i]); err != nil {
			return fmt.Errorf("weaviate: answer %q: %w", id, err)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(inFlight)
	var mu sync.Mutex
	done := 0
	for lo := 0; lo < len(ids) && gctx.Err() == nil; lo += x.batch {
		hi := min(lo+x.batch, len(ids))
		g.Go(func() error {
			if err := x.addBatch(gctx, ids[lo:hi], vecs[lo:hi]); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			done += hi - lo
			if progress != nil {
				progress(done)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if n, err := x.Count(ctx); err == nil {
		x.n.Store(int64(n))
	} else {
		x.n.Add(int64(len(ids))) // the objects were stored; the count is a guess
	}
	return nil
}

func (x *Index) checkVector(v []float32) error {
	if len(v) != x.dim {
		return fmt.Errorf("%d dimensions, want %d", len(v), x.dim)
	}
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return errors.New("a NaN or infinite component")
		}
	}
	return nil
}

func (x *Index) addBatch(ctx context.Context, ids []string, vecs [][]float32) error {
	objs := make([]batchObject, len(ids))
	byUUID := make(map[string]string, len(ids))
	for i, id := range ids {
		u := ObjectID(id)
		objs[i] = batchObject{Class: x.class, ID: u, Properties: map[string]string{answerProp: id}, Vector: vecs[i]}
		byUUID[u] = id
	}
	var results []batchResult
	if err := x.do(ctx, http.MethodPost, "/v1/batch/objects", map[string]any{"objects": objs}, &results); err != nil {
		return err
	}
	return x.batchErrors(results, byUUID, len(ids))
}

type batchResult struct {
	ID     string `json:"id"`
	Result struct {
		Errors *errorBody `json:"errors"`
	} `json:"result"`
}

type errorBody struct {
	Error []struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (e *errorBody) message() string {
	if e == nil {
		return ""
	}
	var ms []string
	for _, m := range e.Error {
		if m.Message != "" {
			ms = append(ms, m.Message)
		}
	}
	return strings.Join(ms, "; ")
}

// batchErrors reports the objects of a batch that Weaviate refused: a
// batch request succeeds as a whole even when some of its objects fail.
func (x *Index) batchErrors(results []batchResult, byUUID map[string]string, sent int) error {
	if len(results) != sent {
		return x.malformed("adding objects", fmt.Errorf("%d results for %d objects", len(results), sent))
	}
	var failed []string
	for _, r := range results {
		if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
			m := r.Result.Errors.message()
			if m == "" {
				m = "an error without a message"
			}
			id, ok := byUUID[r.ID]
			if !ok {
				id = "object " + r.ID
			}
			failed = append(failed, fmt.Sprintf("answer %q: %s", id, m))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	shown := failed[:min(3, len(failed))]
	more := ""
	if len(failed) > len(shown) {
		more = fmt.Sprintf("; and %d more", len(failed)-len(shown))
	}
	return fmt.Errorf("weaviate at %s: %d of %d objects not stored: %s%s%w", x.url, len(failed), sent, strings.Join(shown, "; "), more, backend)
}

// Search implements index.Index: the k stored vectors nearest q by dot
// distance, best first, scored by their inner product with q (Weaviate's
// dot distance negated).
func (x *Index) Search(ctx context.Context, q []float32, k int) ([]index.Hit, error) {
	if len(q) != x.dim {
		return nil, fmt.Errorf("weaviate: a %d-dimensional question for %d-dimensional answers", len(q), x.dim)
	}
	if err := x.checkVector(q); err != nil {
		return nil, fmt.Errorf("weaviate: the question: %w", err)
	}
	if k <= 0 {
		return nil, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{Get{%s(nearVector:{vector:[", x.class)
	for i, f := range q {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	fmt.Fprintf(&b, "]},limit:%d){%s _additional{distance}}}}", k, answerProp)
	var resp graphQLResponse
	if err := x.graphQL(ctx, b.String(), &resp); err != nil {
		return nil, err
	}
	hits, err := parseHits(resp.Data, x.class)
	if err != nil {
		return nil, x.malformed("searching", err)
	}
	return hits, nil
}

type graphQLResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// graphQL posts query; GraphQL reports its errors with status 200, in
// the body, so they are checked here.
func (x *Index) graphQL(ctx context.Context, query string, resp *graphQLResponse) error {
	if err := x.do(ctx, http.MethodPost, "/v1/graphql", map[string]string{"query": query}, resp); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		var ms []string
		for _, e := range resp.Errors {
			ms = append(ms, e.Message)
		}
		return fmt.Errorf("weaviate at %s: graphql: %s%w", x.url, strings.Join(ms, "; "), backend)
	}
	if len(resp.Data) == 0 || string(resp.Data) == "null" {
		return x.malformed("graphql", errors.New("no data"))
	}
	return nil
}

// parseHits reads the hits of a Get query's data for class.
func parseHits(data []byte, class string) ([]index.Hit, error) {
	var got struct {
		Get map[string][]struct {
			AnswerID   *string `json:"answerId"`
			Additional struct {
				Distance *float64 `json:"distance"`
			} `json:"_additional"`
		} `json:"Get"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		return nil, err
	}
	rows, ok := got.Get[class]
	if !ok {
		return nil, fmt.Errorf("no %s results", class)
	}
	hits := make([]index.Hit, 0, len(rows))
	for i, r := range rows {
		switch {
		case r.AnswerID == nil || *r.AnswerID == "":
			return nil, fmt.Errorf("result %d has no %s", i, answerProp)
		case r.Additional.Distance == nil:
			return nil, fmt.Errorf("result %d has no distance", i)
		}
		hits = append(hits, index.Hit{ID: *r.AnswerID, Score: -*r.Additional.Distance})
	}
	return hits, nil
}

func (x *Index) malformed(what string, err error) error {
	return fmt.Errorf("weaviate at %s: %s: malformed response: %w%w", x.url, what, err, backend)
}

// backend wraps index.ErrBackend in an error without adding to its
// message.
var backend error = silent{index.ErrBackend}

type silent struct{ err error }

func (silent) Error() string   { return "" }
func (s silent) Unwrap() error { return s.err }

// HTTPError is a response of status 300 or more.
type HTTPError struct {
	URL, Method, Path string
	Status            int
	// Message is Weaviate's error message, or the start of the body.
	Message string
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("weaviate at %s: %s %s: %d %s", e.URL, e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Unwrap makes a 503 an ErrUnavailable, another status an
// index.ErrBackend.
func (e *HTTPError) Unwrap() error {
	if e.Status == http.StatusServiceUnavailable {
		return ErrUnavailable
	}
	return index.ErrBackend
}

// unavailableError is a server that could not be reached.
type unavailableError struct {
	url, msg string
	err      error
}

func (e *unavailableError) Error() string   { return "weaviate at " + e.url + ": " + e.msg }
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// do sends body (JSON, if not nil) and decodes the response into out (if
// not nil).
func (x *Index) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("weaviate: encoding %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, x.url+path, rd)
	if err != nil {
		return fmt.Errorf("weaviate at %s: %w", x.url, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := x.hc.Do(req)
	if err != nil {
		return x.transportError(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return x.transportError(ctx, err)
	}
	if len(data) > maxResponse {
		return fmt.Errorf("weaviate at %s: %s %s: a response over %d MiB", x.url, method, path, maxResponse>>20)
	}
	if resp.StatusCode >= 300 {
		return &HTTPError{URL: x.url, Method: method, Path: path, Status: resp.StatusCode, Message: errorMessage(data)}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return x.malformed(method+" "+path, err)
	}
	return nil
}

// transportError says why a request got no response: the context's end,
// or the server unreachable.
func (x *Index) transportError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("weaviate at %s: %w", x.url, cerr)
	}
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		msg = "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		msg = "connection reset"
	}
	return &unavailableError{url: x.url, msg: msg, err: err}
}

// errorMessage is Weaviate's message in an error body ({"error":
// [{"message": ...}]}), or the body's start.
func errorMessage(data []byte) string {
	var e errorBody
	if json.Unmarshal(data, &e) == nil {
		if m := e.message(); m != "" {
			return m
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ToValidUTF8(s, "�")
}

// namespace is the UUIDv5 namespace of as2's answer objects, itself
// derived from the URL namespace (RFC 9562).
var namespace = uuid5([16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8},
	"https://github.com/as2/as2/index/weaviate")

// ObjectID is the UUID of an answer's object: a UUIDv5 of its id, the same
// on every run, so that adding an answer again replaces it.
func ObjectID(id string) string {
	u := uuid5(namespace, id)
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func uuid5(ns [16]byte, name string) [16]byte {
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u
}
