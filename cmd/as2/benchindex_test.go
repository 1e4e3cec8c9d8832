package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/bench"
	"github.com/as2/as2/index/weaviate"
)

// hasBenchReport and poolMemory keep retrieve_test.go's as2 bench has
// checks compiling: the report is bench's, and the memory model is tested
// in package bench (TestPoolMemoryBytes), where that check belongs.
type hasBenchReport = bench.HASReport

type poolMemory struct {
	Answers          int
	Words, HashBytes int64
}

func (p *poolMemory) bytes(store string, d int) (float64, int64) {
	return (&bench.PoolMemory{Answers: p.Answers, Words: p.Words, HashBytes: p.HashBytes}).Bytes(store, d)
}

// TestBenchIndex runs as2 bench index on a tiny dual encoder's flat index,
// padded: every index is measured, flat is its own truth, the exact
// settings (rescoring every vector, a beam as wide as the pool) find
// flat's answers, and bad flags are refused.
func TestBenchIndex(t *testing.T) {
	data, vectors := writeTinyData(t)
	dir := t.TempDir()
	pool := tinyPool(t, dir)
	m := filepath.Join(dir, "dual.as2")
	if _, err := run(t, "train", "--arch", "dual", "--objective", "in-batch-softmax", "--dataset", "jsonl", "--path", data, "--embeddings", vectors,
		"--embeddings-format", "glove", "--epochs", "1", "--batch", "8", "--layer", "gru", "--hidden", "4", "--pool", "mean", "--shared", "--dev-split", "none", "--out", m); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "flat.idx")
	if _, err := run(t, "index", "build", "--encoder", m, "--answers", pool, "--out", idx); err != nil {
		t.Fatal(err)
	}
	qs := fileWriter(t, dir)("qs.txt", "What is the capital of France?\nwho wrote book3 ?\n\nWhat river flows through Paris?\n")
	out, err := run(t, "bench", "index", "--vectors", idx, "--questions", qs, "--size", "300", "--k", "5",
		"--kind", "binary,hnsw,flat", "--rescore", "5,300", "--ef-search", "5,300", "--workers", "2", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep bench.IndexReport
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Size != 300 || rep.Real == 0 || rep.Real >= 300 || rep.Queries != 3 || len(rep.Rows) != 5 {
		t.Fatalf("report %+v", rep)
	}
	for i, want := range []string{"flat exact", "binary rescore 5", "binary rescore 300", "hnsw M 16, efConstruction 200, efSearch 5, 2 build workers", "hnsw M 16, efConstruction 200, efSearch 300, 2 build workers"} {
		row := rep.Rows[i]
		if got := row.Index + " " + row.Settings; got != want || row.MeanMs <= 0 || row.P99ms < row.P50ms {
			t.Errorf("row %d: %+v, want %s", i, row, want)
		}
		if exact := i == 0 || i == 2 || i == 4; exact && row.Recall != 1 {
			t.Errorf("%s: recall %v, want 1", want, row.Recall)
		}
	}
	// --index, the list's old name, still works, with a warning.
	out, err = run(t, "bench", "index", "--vectors", idx, "--questions", qs, "--size", "50", "--k", "5", "--index", "flat", "--format", "json")
	if err != nil || !strings.Contains(out, "--index has been deprecated, use --kind") {
		t.Fatalf("--index: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil || len(rep.Rows) != 1 || rep.Size != 50 {
		t.Errorf("--index flat: %v, %+v", err, rep)
	}
	// Through a real Weaviate, when one runs (scripts/weaviate.sh start):
	// ef as wide as the pool finds flat's answers, and the class goes.
	if u := os.Getenv("AS2_WEAVIATE_URL"); u != "" {
		class := fmt.Sprintf("As2BenchTest%d", time.Now().UnixNano())
		out, err := run(t, "bench", "index", "--vectors", idx, "--questions", qs, "--size", "300", "--k", "5",
			"--kind", "weaviate", "--weaviate-url", u, "--weaviate-class", class, "--ef-search", "5,300", "--format", "json")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var rep bench.IndexReport
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(rep.Rows) != 3 || rep.Rows[1].Index != "weaviate" || rep.Rows[2].Recall != 1 || rep.Rows[2].BuildSecs <= 0 {
			t.Errorf("weaviate rows %+v", rep.Rows)
		}
		if x, err := weaviate.Open(context.Background(), weaviate.Options{URL: u, Class: class, Dim: 4}); err == nil {
			x.Delete(context.Background())
			t.Errorf("class %s kept without --keep-remote", class)
		}
	} else {
		t.Log("AS2_WEAVIATE_URL not set: bench index --kind weaviate not run")
	}
	bm25 := filepath.Join(dir, "bm25.idx")
	if _, err := run(t, "index", "build", "--encoder", "bm25", "--answers", pool, "--out", bm25); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vectors", bm25}, "holds a bm25 index: want a flat one"},
		{[]string{"--vectors", idx, "--kind", "flat,ivf"}, `--kind "ivf"`},
		{[]string{"--vectors", idx, "--rescore", "3"}, "--rescore 3: want at least --k (10)"},
		{[]string{"--vectors", idx, "--size", "0"}, "--size 0"},
		{[]string{"--vectors", filepath.Join(dir, "none.idx")}, "none.idx"},
		{[]string{"--vectors", idx, "--questions", filepath.Join(dir, "none.txt")}, "--questions"},
		{[]string{}, "--vectors is required"},
	} {
		if _, err := run(t, append([]string{"bench", "index"}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestBenchInferSpecs: as2 bench infer --model takes any ranker spec (the
// built-in model, a rule-based ranker), names it in the report, and
// refuses bad flags before it loads anything.
func TestBenchInferSpecs(t *testing.T) {
	data, _ := writeTinyData(t)
	for _, spec := range []string{"builtin", "bm25"} {
		out, err := run(t, "bench", "infer", "--model", spec, "--dataset", "jsonl", "--path", data, "--repeat", "1", "--format", "json")
		if err != nil {
			t.Fatalf("--model %s: %v\n%s", spec, err, out)
		}
		var res bench.Result
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil || !strings.HasPrefix(res.Settings, spec+", ") || res.Pairs == 0 || !strings.Contains(res.Machine, bench.Kernels()) {
			t.Errorf("--model %s: %v, %+v", spec, err, res)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "nosuch"}, "--model nosuch"},
		{[]string{"--model", "none.as2"}, "--model none.as2: file not found"},
		{[]string{"--model", "bm25", "--format", "csv"}, `--format "csv": want table or json`},
		{[]string{"--model", "bm25", "--repeat", "0"}, "--repeat 0"},
		{[]string{"--model", "bm25", "--concurrency", "0"}, "--concurrency 0"},
	} {
		args := append([]string{"bench", "infer", "--dataset", "jsonl", "--path", data}, tc.args...)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestBenchTrain: as2 bench train takes as2 train's flags and reports the
// run it timed, without writing a model.
func TestBenchTrain(t *testing.T) {
	data, vectors := writeTinyData(t)
	out, err := run(t, "bench", "train", "--dataset", "jsonl", "--path", data, "--embeddings", vectors, "--embeddings-format", "glove", "--epochs", "1", "--batch", "8", "--seed", "3", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var res bench.Result
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil || res.Benchmark != "train" || res.Pairs == 0 || res.Params == 0 ||
		!strings.Contains(res.Settings, "1 epochs, batch 8, seed 3") || !strings.Contains(res.Settings, "listwise") {
		t.Errorf("%v, %+v", err, res)
	}
	if _, err := run(t, "bench", "train", "--dataset", "jsonl", "--path", data, "--format", "csv"); err == nil || !strings.Contains(err.Error(), `--format "csv"`) {
		t.Errorf("--format csv: %v", err)
	}
}
