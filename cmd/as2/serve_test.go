package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/serve"
)

// startServe runs "as2 serve" with args on a free loopback port until the
// test ends, and returns its base URL (read from the line it prints).
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newRootCmd()
	pr, pw := io.Pipe()
	cmd.SetOut(pw)
	cmd.SetErr(pw)
	cmd.SetArgs(append([]string{"serve", "--addr", "127.0.0.1:0", "--drain", "0s", "--grace", "5s"}, args...))
	done := make(chan error, 1)
	go func() {
		done <- cmd.ExecuteContext(ctx)
		pw.Close()
	}()
	base := ""
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if _, addr, ok := strings.Cut(sc.Text(), " on http://"); ok {
			base = "http://" + addr
			break
		}
	}
	go io.Copy(io.Discard, pr) // the shutdown's lines
	if base == "" {
		cancel()
		t.Fatalf("as2 serve did not start: %v", <-done)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("as2 serve: %v", err)
		}
	})
	return base
}

// TestServeIndex builds a bm25 index file with as2 index build and serves
// it with as2 serve --index: /v1/retrieve answers from it, alone and
// followed by a rerank stage, and fused with itself (--hybrid, from the
// config file), and /v1/models lists it.
func TestServeIndex(t *testing.T) {
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.txt")
	if err := os.WriteFile(answers, []byte(tinyAnswers+"Which city? Which capital?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "faq.idx")
	if out, err := run(t, "index", "build", "--encoder", "bm25", "--answers", answers, "--out", idx); err != nil {
		t.Fatalf("index build: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(cfg, []byte("indexes: {fromconfig: "+idx+"}\nhybrids: {both: \"relative:faq*2,fromconfig\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, "--ranker", "wo=wo", "--index", "faq="+idx, "--config", cfg)

	retrieve := func(body string) (int, serve.RetrieveResponse, string) {
		t.Helper()
		resp, err := http.Post(base+"/v1/retrieve", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out serve.RetrieveResponse
		json.Unmarshal(raw, &out)
		return resp.StatusCode, out, string(raw)
	}
	ids := func(out serve.RetrieveResponse) string {
		var s []string
		for _, r := range out.Results {
			s = append(s, r.ID)
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		body, ids string
		reranked  bool
	}{
		// The index's own BM25, as as2 search gives it (TestIndexBuildSearch).
		{`{"index": "faq", "question": "What is the capital of Germany?", "k": 1}`, "4", false},
		{`{"index": "fromconfig", "question": "What is the capital of Germany?", "k": 2}`, "4,1", false},
		// One list fused with itself keeps its order.
		{`{"index": "both", "question": "What is the capital of Germany?", "k": 2}`, "4,1", false},
		// BM25 prefers the short answer with the rarer words; word overlap
		// the one that shares most words with the question.
		{`{"index": "faq", "question": "Which city is the capital of Italy?", "k": 2}`, "5,2", false},
		{`{"index": "faq", "question": "Which city is the capital of Italy?", "k": 2, "rerank": "wo"}`, "2,1", true},
	} {
		code, out, raw := retrieve(tc.body)
		if code != 200 || ids(out) != tc.ids || (out.Results[0].RetrievalScore != nil) != tc.reranked {
			t.Errorf("%s: %d %s, want ids %s", tc.body, code, raw, tc.ids)
		}
	}
	if code, _, raw := retrieve(`{"index": "nosuch", "question": "q"}`); code != 404 || !strings.Contains(raw, `unknown index \"nosuch\" (have both, faq, fromconfig`) {
		t.Errorf("unknown index: %d %s", code, raw)
	}
	resp, err := http.Get(base + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var models serve.ModelsResponse
	err = json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if err != nil || len(models.Indexes) != 3 || models.Indexes[1].ID != "faq" || models.Indexes[1].Answers != 4 || !strings.HasPrefix(models.Indexes[1].Description, "bm25 (k1 1.2") ||
		models.Indexes[0].Description != "relative fusion of faq (weight 2) and fromconfig (weight 1)" {
		t.Errorf("models: %v %+v", err, models)
	}
}

func TestServeIndexBadFlags(t *testing.T) {
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.txt")
	if err := os.WriteFile(answers, []byte(tinyAnswers), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "faq.idx")
	if out, err := run(t, "index", "build", "--encoder", "bm25", "--answers", answers, "--out", idx, "--quiet"); err != nil {
		t.Fatalf("index build: %v\n%s", err, out)
	}
	missing := filepath.Join(dir, "missing.idx")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--index", "faq"}, `--index "faq": want NAME=FILE`},
		{[]string{"--index", "=" + idx}, "want NAME=FILE"},
		{[]string{"--index", "faq=" + missing}, "--index faq=" + missing + ": " + missing + ": file not found"},
		{[]string{"--index", "faq=" + answers}, "not an as2 index file"},
		{[]string{"--index", "faq=" + idx, "--index", "faq=" + idx}, `index "faq" added twice`},
		{[]string{"--index", "faq=" + idx, "--hybrid", "faq"}, "--hybrid faq: want NAME=FUSION:INDEX"},
		{[]string{"--index", "faq=" + idx, "--hybrid", "both=rrf:faq"}, "fusion needs two indexes or more"},
		{[]string{"--index", "faq=" + idx, "--hybrid", "both=faq,bm25"}, `no index "bm25" added before it`},
	} {
		args := append([]string{"serve", "--ranker", "wo=wo", "--addr", "256.0.0.1:99999"}, tc.args...)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(args, " "), err, tc.want)
		}
	}
}
