package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
)

// TestPadVectors checks the padding of as2 bench index: the stored
// vectors first, then mixtures with the norm of their first parent,
// the same for a seed and different for another.
func TestPadVectors(t *testing.T) {
	x, _ := index.NewFlat(3)
	if err := x.Add([]string{"a", "b"}, [][]float32{{1, 0, 0}, {0, 2, 0}}); err != nil {
		t.Fatal(err)
	}
	ids, vecs, real := padVectors(x, []string{"a", "b"}, 40, 7, 0.01)
	if real != 2 || len(ids) != 40 || len(vecs) != 40 || ids[0] != "a" || ids[1] != "b" || ids[2] != "pad-1" || ids[39] != "pad-38" {
		t.Fatalf("ids %v (%d real)", ids, real)
	}
	if !slices.Equal(vecs[1], []float32{0, 2, 0}) {
		t.Errorf("stored vector changed: %v", vecs[1])
	}
	norms := map[float64]bool{}
	for _, v := range vecs[2:] {
		n := math.Round(norm32(v)*1e4) / 1e4
		norms[n] = true
		if v[2] == 0 {
			t.Errorf("no noise in %v", v)
		}
	}
	if len(norms) != 2 || !norms[1] || !norms[2] {
		t.Errorf("padded norms %v, want those of the parents (1 and 2)", norms)
	}
	_, again, _ := padVectors(x, []string{"a", "b"}, 40, 7, 0.01)
	_, other, _ := padVectors(x, []string{"a", "b"}, 40, 8, 0.01)
	if !slices.Equal(again[20], vecs[20]) || slices.Equal(other[20], vecs[20]) {
		t.Errorf("seed 7 twice: %v and %v; seed 8: %v", vecs[20], again[20], other[20])
	}
	ids, vecs, real = padVectors(x, []string{"a", "b"}, 1, 7, 0.01)
	if real != 1 || len(vecs) != 1 || ids[0] != "a" {
		t.Errorf("size 1: %v %v", ids, real)
	}
}

func norm32(v []float32) float64 {
	s := 0.0
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return math.Sqrt(s)
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
		"--index", "binary,hnsw,flat", "--rescore", "5,300", "--ef-search", "5,300", "--workers", "2", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep indexBenchReport
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
	// Through a real Weaviate, when one runs (scripts/weaviate.sh start):
	// ef as wide as the pool finds flat's answers, and the class goes.
	if u := os.Getenv("AS2_WEAVIATE_URL"); u != "" {
		class := fmt.Sprintf("As2BenchTest%d", time.Now().UnixNano())
		out, err := run(t, "bench", "index", "--vectors", idx, "--questions", qs, "--size", "300", "--k", "5",
			"--index", "weaviate", "--weaviate-url", u, "--weaviate-class", class, "--ef-search", "5,300", "--format", "json")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var rep indexBenchReport
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
		t.Log("AS2_WEAVIATE_URL not set: bench index --index weaviate not run")
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
		{[]string{"--vectors", idx, "--index", "flat,ivf"}, `--index "ivf"`},
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
