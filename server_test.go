package as2_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2"
	"github.com/as2/as2/serve"
)

// TestServerSelect builds the server as2 serve runs with no ranker named
// (the built-in model) and checks that /v1/select answers as as2.Select
// does: the same code serves both.
func TestServerSelect(t *testing.T) {
	ctx := context.Background()
	srv, err := as2.NewServer(ctx, as2.DefaultServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"When did the Berlin Wall fall?", "How do penguins keep their eggs warm?"} {
		body, _ := json.Marshal(serve.SelectRequest{Question: q, Document: berlin})
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/select", strings.NewReader(string(body))))
		var got serve.SelectResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != 200 || err != nil || got.Answer == nil || got.Probability == nil {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
		}
		want, err := as2.Select(ctx, q, berlin)
		if err != nil {
			t.Fatal(err)
		}
		if got.Model != as2.Builtin || *got.Answer != want.Answer || *got.Probability != want.Probability || len(got.Sentences) != len(want.Sentences) {
			t.Fatalf("%s: served %+v, as2.Select %+v", q, got, want)
		}
		for k, s := range got.Sentences {
			w := want.Sentences[k]
			if s.Index != w.Index || s.Score == nil || *s.Score != w.Score || s.Start == nil || *s.Start != w.Start || *s.End != w.End {
				t.Errorf("%s: sentence %d served %+v, as2.Select %+v", q, k, s, w)
			}
		}
	}
}

// TestServerConfig merges a configuration file, serves its rankers and
// cascade, and reports bad entries as *as2.ConfigError naming the setting.
func TestServerConfig(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfgFile := writeTestFile(t, filepath.Join(dir, "serve.yaml"), "addr: 127.0.0.1:9\nrankers: {a: wo+rr}\ncascades: {fast: \"bm25:2,wo\"}\ndefault: fast\nlimits: {max_documents: 7, timeout: 2s}\ngrace: 3s\n")
	c := as2.DefaultServerConfig()
	c.Rankers = []string{"b=bm25"}
	c.Limits.Timeout = time.Second
	given := map[string]bool{"timeout": true}
	if err := c.MergeFile(cfgFile, func(s string) bool { return given[s] }); err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9" || c.Default != "fast" || c.Limits.MaxDocuments != 7 || c.Limits.Timeout != time.Second || c.Run.Grace != 3*time.Second ||
		strings.Join(c.Rankers, " ") != "a=wo+rr b=bm25" || strings.Join(c.Cascades, " ") != "fast=bm25:2,wo" || c.ServedRankers() != 3 {
		t.Fatalf("merged: %+v", c)
	}
	srv, err := as2.NewServer(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/models", nil))
	var models serve.ModelsResponse
	json.Unmarshal(rec.Body.Bytes(), &models)
	if len(models.Data) != 3 || models.Data[2].ID != "fast" || !models.Data[2].Default || models.Data[0].Calibrated {
		t.Errorf("models: %s", rec.Body)
	}
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/rerank", strings.NewReader(`{"query": "who wrote hamlet?", "documents": ["It is a play.", "Shakespeare wrote Hamlet."]}`)))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"model":"fast","results":[{"index":1`) {
		t.Errorf("rerank with the default cascade: %d %s", rec.Code, rec.Body)
	}

	missing := filepath.Join(dir, "missing.as2")
	for _, tc := range []struct {
		c       func(*as2.ServerConfig)
		setting string
		want    string
	}{
		{func(c *as2.ServerConfig) { c.Rankers = []string{"nameonly"} }, "ranker", "want NAME=SPEC"},
		{func(c *as2.ServerConfig) { c.Rankers = []string{"a=wo", "a=bm25"} }, "ranker", "given twice"},
		{func(c *as2.ServerConfig) { c.Rankers = []string{"a=magic"} }, "ranker", `unknown ranker "magic"`},
		{func(c *as2.ServerConfig) { c.Rankers = []string{"a=" + missing} }, "ranker", missing + ": file not found"},
		{func(c *as2.ServerConfig) { c.Cascades = []string{"fast"} }, "cascade", "want NAME=STAGE:K"},
		{func(c *as2.ServerConfig) { c.Cascades = []string{"fast=bm25:0"} }, "cascade", "not a positive integer"},
		{func(c *as2.ServerConfig) { c.Calibrations = []string{"x"} }, "calibration", "want NAME=FILE"},
		{func(c *as2.ServerConfig) { c.Calibrations = []string{"builtin=" + missing} }, "calibration", "no such file"},
		{func(c *as2.ServerConfig) { c.Default = "nosuch" }, "default", "nosuch"},
		{func(c *as2.ServerConfig) { c.Indexes = []string{"faq"} }, "index", "want NAME=FILE"},
		{func(c *as2.ServerConfig) { c.Hybrids = []string{"faq"} }, "hybrid", "want NAME=FUSION"},
		{func(c *as2.ServerConfig) { c.Limits.Concurrent = 0 }, "concurrent", "must be positive"},
		{func(c *as2.ServerConfig) { c.Limits.Queue = -1 }, "queue", "-1"},
	} {
		c := as2.DefaultServerConfig()
		tc.c(&c)
		_, err := as2.NewServer(ctx, c)
		var ce *as2.ConfigError
		if !errors.As(err, &ce) || ce.Setting != tc.setting || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a %s error with %q", tc.setting, err, tc.setting, tc.want)
		}
	}
}

// TestServerIndex serves an index file written by as2.BuildIndex, alone
// and fused with itself, and refuses a missing one.
func TestServerIndex(t *testing.T) {
	ctx := context.Background()
	x, err := as2.BuildIndex(ctx, []string{"a", "b", "c"}, []string{"Paris is the capital of France.", "Berlin is the capital of Germany.", "Rome is in Italy."})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "faq.idx")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	c := as2.DefaultServerConfig()
	c.Rankers = []string{"wo=wo"}
	c.Indexes = []string{"faq=" + file, "again=" + file}
	c.Hybrids = []string{"both=rrf:faq,again"}
	srv, err := as2.NewServer(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"faq", "both"} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/retrieve", strings.NewReader(`{"index": "`+name+`", "question": "What is the capital of Germany?", "k": 1}`)))
		var got serve.RetrieveResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != 200 || err != nil || len(got.Results) != 1 || got.Results[0].ID != "b" {
			t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
		}
	}
	missing := filepath.Join(dir, "missing.idx")
	c.Indexes = []string{"faq=" + missing}
	c.Hybrids = nil
	_, err = as2.NewServer(ctx, c)
	var ce *as2.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "index" || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing+": file not found") {
		t.Errorf("a missing index file: %v", err)
	}
}
