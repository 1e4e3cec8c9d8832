package weaviate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/as2/as2/index"
)

// fake is an in-memory Weaviate that checks the requests' shapes: the
// schema, batch and GraphQL calls this package makes, and no others.
type fake struct {
	t       *testing.T
	mu      sync.Mutex
	classes map[string]map[string]any // class → its definition as posted
	objects map[string][]batchObject  // class → objects by insertion
	// fail, if set, answers a request instead of the fake.
	fail func(w http.ResponseWriter, r *http.Request) bool
}

func newFake(t *testing.T) (*fake, *httptest.Server) {
	f := &fake{t: t, classes: map[string]map[string]any{}, objects: map[string][]batchObject{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

var (
	getRE   = regexp.MustCompile(`^\{Get\{([A-Za-z0-9_]+)\(nearVector:\{vector:\[([^\]]*)\]\},limit:(\d+)\)\{answerId _additional\{distance\}\}\}\}$`)
	countRE = regexp.MustCompile(`^\{Aggregate\{([A-Za-z0-9_]+)\{meta\{count\}\}\}\}$`)
)

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil && f.fail(w, r) {
		return
	}
	body, _ := io.ReadAll(r.Body)
	if len(body) > 0 && r.Header.Get("Content-Type") != "application/json" {
		f.t.Errorf("%s %s: Content-Type %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/.well-known/ready":
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/schema/"):
		c, ok := f.classes[strings.TrimPrefix(r.URL.Path, "/v1/schema/")]
		if !ok {
			http.Error(w, "", http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(c)
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/v1/schema/"):
		name := strings.TrimPrefix(r.URL.Path, "/v1/schema/")
		var c map[string]any
		if err := json.Unmarshal(body, &c); err != nil || c["class"] != name {
			f.t.Errorf("schema update of %s: %v %.200s", name, err, body)
		}
		if _, ok := f.classes[name]; !ok {
			http.Error(w, "", http.StatusNotFound)
			return
		}
		f.classes[name] = c
	case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/v1/schema/"):
		delete(f.classes, strings.TrimPrefix(r.URL.Path, "/v1/schema/"))
	case r.Method == http.MethodPost && r.URL.Path == "/v1/schema":
		var c map[string]any
		if err := json.Unmarshal(body, &c); err != nil {
			f.t.Errorf("schema: %v", err)
		}
		f.classes[c["class"].(string)] = c
	case r.Method == http.MethodPost && r.URL.Path == "/v1/batch/objects":
		var b struct{ Objects []batchObject }
		if err := json.Unmarshal(body, &b); err != nil {
			f.t.Errorf("batch: %v", err)
		}
		var out []map[string]any
		for _, o := range b.Objects {
			if _, ok := f.classes[o.Class]; !ok {
				f.t.Errorf("batch: object of unknown class %q", o.Class)
			}
			objs := f.objects[o.Class]
			if i := slices.IndexFunc(objs, func(p batchObject) bool { return p.ID == o.ID }); i >= 0 {
				objs[i] = o
			} else {
				f.objects[o.Class] = append(objs, o)
			}
			out = append(out, map[string]any{"class": o.Class, "id": o.ID, "result": map[string]any{}})
		}
		json.NewEncoder(w).Encode(out)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/graphql":
		var q struct{ Query string }
		if err := json.Unmarshal(body, &q); err != nil {
			f.t.Errorf("graphql: %v", err)
		}
		if m := countRE.FindStringSubmatch(q.Query); m != nil {
			json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"Aggregate": map[string]any{
				m[1]: []any{map[string]any{"meta": map[string]any{"count": len(f.objects[m[1]])}}}}}})
			return
		}
		m := getRE.FindStringSubmatch(q.Query)
		if m == nil {
			f.t.Errorf("graphql: unexpected query %.200s", q.Query)
			http.Error(w, "bad query", http.StatusUnprocessableEntity)
			return
		}
		var qv []float64
		for s := range strings.SplitSeq(m[2], ",") {
			v, err := strconv.ParseFloat(s, 32)
			if err != nil {
				f.t.Errorf("graphql: vector component %q", s)
			}
			qv = append(qv, v)
		}
		k, _ := strconv.Atoi(m[3])
		type row struct {
			id   string
			dist float64
		}
		var rows []row
		for _, o := range f.objects[m[1]] {
			d := 0.0
			for i, x := range o.Vector {
				d -= float64(x) * qv[i]
			}
			rows = append(rows, row{o.Properties[answerProp], d})
		}
		slices.SortStableFunc(rows, func(a, b row) int { return cmpF(a.dist, b.dist) })
		var res []any
		for _, r := range rows[:min(k, len(rows))] {
			res = append(res, map[string]any{"answerId": r.id, "_additional": map[string]any{"distance": float32(r.dist)}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"Get": map[string]any{m[1]: res}}})
	default:
		f.t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, "", http.StatusNotFound)
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func vectors(n, dim int, seed uint64) [][]float32 {
	s := seed
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, dim)
		for j := range out[i] {
			s = s*6364136223846793005 + 1442695040888963407
			out[i][j] = float32(int64(s>>40)%2001-1000) / 1000
		}
	}
	return out
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "a" + strconv.Itoa(i)
	}
	return out
}

func TestAgainstFlat(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	x, err := Open(ctx, Options{URL: srv.URL, Class: "Test", Dim: 8, Create: true, Ef: 64, BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	c := f.classes["Test"]
	if c["vectorizer"] != "none" || c["vectorIndexConfig"].(map[string]any)["distance"] != "dot" || c["vectorIndexConfig"].(map[string]any)["ef"] != 64.0 {
		t.Errorf("class posted: %v", c)
	}
	// SetEf changes ef and nothing else.
	if err := x.SetEf(ctx, 300); err != nil {
		t.Fatal(err)
	}
	if c := f.classes["Test"]; c["vectorizer"] != "none" || c["vectorIndexConfig"].(map[string]any)["distance"] != "dot" || c["vectorIndexConfig"].(map[string]any)["ef"] != 300.0 {
		t.Errorf("class after SetEf(300): %v", c)
	}
	for _, ef := range []int{0, -2, 1 << 17} {
		if err := x.SetEf(ctx, ef); err == nil {
			t.Errorf("SetEf(%d) accepted", ef)
		}
	}
	vecs := vectors(50, 8, 1)
	flat, _ := index.NewFlat(8)
	if err := flat.Add(ids(50), vecs); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ids(50), vecs); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ids(3), vecs[:3]); err != nil { // again: replaced, not duplicated
		t.Fatal(err)
	}
	if x.Len() != 50 {
		t.Errorf("Len %d, want 50", x.Len())
	}
	for i, q := range vectors(5, 8, 2) {
		want, _ := flat.Search(ctx, q, 10)
		got, err := x.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("query %d: %d hits, want %d", i, len(got), len(want))
		}
		for j := range got {
			if got[j].ID != want[j].ID || abs(got[j].Score-want[j].Score) > 1e-4 {
				t.Errorf("query %d hit %d: %v, want %v", i, j, got[j], want[j])
			}
		}
	}
	if hits, err := x.Search(ctx, vecs[0], 0); err != nil || hits != nil {
		t.Errorf("k 0: %v, %v", hits, err)
	}
	// reopened from its record, without creating
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	d, err := index.ReadRemote(&buf)
	if err != nil {
		t.Fatal(err)
	}
	y, err := OpenRemote(ctx, d, Options{})
	if err != nil || y.Len() != 50 || y.Class() != "Test" || y.URL() != srv.URL {
		t.Fatalf("reopened: %v, %v", y, err)
	}
	if err := y.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRemote(ctx, d, Options{}); err == nil || !strings.Contains(err.Error(), "class Test does not exist") {
		t.Errorf("deleted class opened: %v", err)
	}
}

func abs(f float64) float64 { return max(f, -f) }

func TestObjectID(t *testing.T) {
	// RFC 9562's UUIDv5 of "python.org" in the DNS namespace
	dns := [16]byte{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	if u := uuid5(dns, "python.org"); u != [16]byte{0x88, 0x63, 0x13, 0xe1, 0x3b, 0x8a, 0x53, 0x72, 0x9b, 0x90, 0x0c, 0x9a, 0xee, 0x19, 0x9e, 0x5d} {
		t.Errorf("uuid5: %x", u)
	}
	a, b := ObjectID("q1-a3"), ObjectID("q1-a3")
	if a != b || a == ObjectID("q1-a4") || !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(a) {
		t.Errorf("ObjectID: %s, %s", a, ObjectID("q1-a4"))
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	// Port 1 is privileged: nothing a test starts listens there.
	const closed = "http://127.0.0.1:1"
	if _, err := Open(ctx, Options{URL: closed, Dim: 4}); err == nil ||
		err.Error() != "weaviate at "+closed+": connection refused" || !errors.Is(err, ErrUnavailable) {
		t.Errorf("unreachable: %v", err)
	}

	for _, tc := range []struct {
		name string
		fail func(w http.ResponseWriter, r *http.Request) bool
		op   func(x *Index) error
		want string
		unav bool
		// backend: the server failed (index.ErrBackend)
		backend bool
	}{{
		name: "500 with Weaviate's message",
		fail: func(w http.ResponseWriter, r *http.Request) bool {
			w.WriteHeader(500)
			io.WriteString(w, `{"error":[{"message":"shard X is read-only"}]}`)
			return true
		},
		op:      func(x *Index) error { return x.Add([]string{"a"}, [][]float32{{1, 2, 3, 4}}) },
		want:    "POST /v1/batch/objects: 500 Internal Server Error: shard X is read-only",
		backend: true,
	}, {
		name: "503 is unavailable",
		fail: func(w http.ResponseWriter, r *http.Request) bool {
			http.Error(w, "not ready", 503)
			return true
		},
		op:   func(x *Index) error { _, err := x.Search(ctx, []float32{1, 2, 3, 4}, 3); return err },
		want: "POST /v1/graphql: 503 Service Unavailable: not ready",
		unav: true,
	}, {
		name: "object errors in a batch",
		fail: func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/v1/batch/objects" {
				return false
			}
			var b struct{ Objects []batchObject }
			json.NewDecoder(r.Body).Decode(&b)
			var out []any
			for i, o := range b.Objects {
				res := map[string]any{}
				if i%2 == 1 {
					res["errors"] = map[string]any{"error": []any{map[string]any{"message": "vector lengths don't match"}}}
				}
				out = append(out, map[string]any{"id": o.ID, "result": res})
			}
			json.NewEncoder(w).Encode(out)
			return true
		},
		op:      func(x *Index) error { return x.Add(ids(10), vectors(10, 4, 3)) },
		want:    `5 of 10 objects not stored: answer "a1": vector lengths don't match; answer "a3": vector lengths don't match; answer "a5": vector lengths don't match; and 2 more`,
		backend: true,
	}, {
		name: "malformed JSON",
		fail: func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/v1/graphql" || !strings.Contains(peek(r), "Get") {
				return false
			}
			io.WriteString(w, `{"data":{"Get":{"Test":[{"answerId":"a1","_additional":{"distance":"far"}}]}}}`)
			return true
		},
		op:      func(x *Index) error { _, err := x.Search(ctx, []float32{1, 2, 3, 4}, 3); return err },
		want:    "searching: malformed response",
		backend: true,
	}, {
		name: "graphql errors",
		fail: func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/v1/graphql" || !strings.Contains(peek(r), "Get") {
				return false
			}
			io.WriteString(w, `{"errors":[{"message":"vector lengths don't match: 4 vs 8"}]}`)
			return true
		},
		op:      func(x *Index) error { _, err := x.Search(ctx, []float32{1, 2, 3, 4}, 3); return err },
		want:    "graphql: vector lengths don't match: 4 vs 8",
		backend: true,
	}, {
		name: "a cancelled context",
		op: func(x *Index) error {
			c, cancel := context.WithCancel(ctx)
			cancel()
			_, err := x.Search(c, []float32{1, 2, 3, 4}, 3)
			if !errors.Is(err, context.Canceled) {
				return errors.New("not context.Canceled")
			}
			return x.AddContext(c, []string{"a"}, [][]float32{{1, 2, 3, 4}})
		},
		want: "context canceled",
	}, {
		name: "bad vectors refused before sending",
		op: func(x *Index) error {
			if err := x.Add([]string{"a"}, [][]float32{{1, 2}}); err == nil || !strings.Contains(err.Error(), `answer "a": 2 dimensions, want 4`) {
				return errors.New("short vector accepted")
			}
			_, err := x.Search(ctx, []float32{1, 2, float32(nan()), 4}, 3)
			return err
		},
		want: "the question: a NaN or infinite component",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t)
			x, err := Open(ctx, Options{URL: srv.URL, Class: "Test", Dim: 4, Create: true, BatchSize: 10})
			if err != nil {
				t.Fatal(err)
			}
			f.mu.Lock()
			f.fail = tc.fail
			f.mu.Unlock()
			err = tc.op(x)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if errors.Is(err, ErrUnavailable) != tc.unav || errors.Is(err, index.ErrBackend) != tc.backend {
				t.Errorf("%v: unavailable %v, backend %v; want %v, %v", err, errors.Is(err, ErrUnavailable), errors.Is(err, index.ErrBackend), tc.unav, tc.backend)
			}
			if strings.HasSuffix(err.Error(), ": ") {
				t.Errorf("%q ends in a colon", err)
			}
		})
	}
}

// peek reads r's body and puts it back.
func peek(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}

func nan() float64 { z := 0.0; return z / z }

func TestOptionsRefused(t *testing.T) {
	for _, o := range []Options{
		{URL: "127.0.0.1:8079", Dim: 4},
		{URL: "ftp://x", Dim: 4},
		{Class: "lower", Dim: 4},
		{Class: "Has-Dash", Dim: 4},
		{Dim: 0},
		{Dim: 4, Ef: -1},
	} {
		if _, err := newIndex(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	// A bad record is refused: none, empty, another engine, a later
	// version, a bad class, an unknown parameter.
	var good bytes.Buffer
	if _, err := (&index.Remote{Engine: Kind, Params: map[string]string{"url": "http://x", "class": "A", "dim": "4"}}).WriteTo(&good); err != nil {
		t.Fatal(err)
	}
	version2 := bytes.Clone(good.Bytes())
	version2[16] = 2
	for name, data := range map[string][]byte{"none": nil, "version 2": version2} {
		if r, err := index.ReadRemote(bytes.NewReader(data)); err == nil {
			t.Errorf("record %s accepted: %+v", name, r)
		}
	}
	for _, r := range []*index.Remote{
		{},
		{Engine: "flat", Params: map[string]string{"url": "http://x", "class": "A", "dim": "4"}},
		{Engine: Kind, Params: map[string]string{"url": "http://x", "class": "a", "dim": "4"}},
		{Engine: Kind, Params: map[string]string{"url": "http://x", "class": "A", "dim": "4", "extra": "1"}},
	} {
		if _, err := FromRemote(r, Options{}); err == nil {
			t.Errorf("record %+v accepted", r)
		}
	}
}

func TestParseHits(t *testing.T) {
	hits, err := parseHits([]byte(`{"Get":{"C":[{"answerId":"x","_additional":{"distance":-2.5}},{"answerId":"y","_additional":{"distance":1}}]}}`), "C")
	if err != nil || !slices.Equal(hits, []index.Hit{{ID: "x", Score: 2.5}, {ID: "y", Score: -1}}) {
		t.Errorf("%v, %v", hits, err)
	}
	for _, s := range []string{`{"Get":{}}`, `{"Get":{"C":[{"_additional":{"distance":1}}]}}`, `{"Get":{"C":[{"answerId":"x"}]}}`, `[`, `null`} {
		if _, err := parseHits([]byte(s), "C"); err == nil {
			t.Errorf("%s accepted", s)
		}
	}
}

func FuzzParseHits(f *testing.F) {
	f.Add([]byte(`{"Get":{"C":[{"answerId":"x","_additional":{"distance":-2.5}}]}}`))
	f.Add([]byte(`{"Get":{"C":[]}}`))
	f.Add([]byte(`{"Get":{"C":[{"answerId":"","_additional":{"distance":null}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		hits, err := parseHits(data, "C")
		if err != nil {
			return
		}
		for _, h := range hits {
			if h.ID == "" {
				t.Errorf("a hit without an id from %q", data)
			}
		}
		errorMessage(data) // never panics either
	})
}

func TestRemote(t *testing.T) {
	_, srv := newFake(t)
	ctx := context.Background()
	x, err := Open(ctx, Options{URL: srv.URL, Class: "Rem", Dim: 4, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(ids(3), vectors(3, 4, 5)); err != nil {
		t.Fatal(err)
	}
	r := x.Remote()
	if r.Kind() != index.RemoteKind || r.Len() != 3 || r.Params["class"] != "Rem" || r.Params["url"] != srv.URL || r.Params["dim"] != "4" {
		t.Fatalf("Remote: %+v", r)
	}
	y, err := FromRemote(r, Options{})
	if err != nil || y.Len() != 3 {
		t.Fatalf("FromRemote: %v, %v", y, err)
	}
	if hits, err := y.Search(ctx, vectors(1, 4, 5)[0], 1); err != nil || len(hits) != 1 {
		t.Errorf("search through FromRemote: %v, %v", hits, err)
	}
	for _, bad := range []*index.Remote{
		{Engine: "qdrant", Params: r.Params},
		{Engine: Kind, Params: map[string]string{"url": srv.URL, "class": "Rem"}},
		{Engine: Kind, Params: map[string]string{"url": srv.URL, "dim": "4"}},
		{Engine: Kind, Params: map[string]string{"url": srv.URL, "class": "rem", "dim": "4"}},
	} {
		if _, err := FromRemote(bad, Options{}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestAddProgress: with batches in flight, every answer is stored and
// progress rises to the count; an id given twice in one call is refused
// before anything is sent; a failed batch is the call's error.
func TestAddProgress(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	x, err := Open(ctx, Options{URL: srv.URL, Class: "Prog", Dim: 8, Create: true, BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	if err := x.AddProgress(ctx, ids(50), vectors(50, 8, 3), func(done int) { seen = append(seen, done) }); err != nil {
		t.Fatal(err)
	}
	if len(f.objects["Prog"]) != 50 || x.Len() != 50 || len(seen) != 8 || seen[len(seen)-1] != 50 || !slices.IsSorted(seen) {
		t.Errorf("%d stored, Len %d, progress %v", len(f.objects["Prog"]), x.Len(), seen)
	}
	dup := append(ids(3), ids(1)...)
	if err := x.AddProgress(ctx, dup, vectors(4, 8, 4), nil); err == nil || !strings.Contains(err.Error(), `answers 0 and 3 have the same id "a0"`) {
		t.Errorf("a repeated id: %v", err)
	}
	f.fail = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/v1/batch/objects" {
			return false
		}
		http.Error(w, "full", http.StatusInsufficientStorage)
		return true
	}
	if err := x.AddProgress(ctx, ids(20), vectors(20, 8, 5), nil); err == nil || !errors.Is(err, index.ErrBackend) {
		t.Errorf("a failing batch: %v", err)
	}
}
