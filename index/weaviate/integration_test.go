package weaviate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/as2/as2/index"
)

// TestIntegration checks a real server against Flat: 2,000 random
// 64-dimensional vectors, recall@10 of Weaviate's HNSW ≥ 0.95 and the hits
// both found in the same order with the same scores. It runs when
// AS2_WEAVIATE_URL names a ready server (scripts/weaviate.sh start), in a
// class of its own that it deletes; AS2_WEAVIATE_EF sets the class's ef.
func TestIntegration(t *testing.T) {
	u := os.Getenv("AS2_WEAVIATE_URL")
	if u == "" {
		t.Skip("AS2_WEAVIATE_URL not set: start a server with scripts/weaviate.sh start, then AS2_WEAVIATE_URL=" + DefaultURL)
	}
	ef, _ := strconv.Atoi(os.Getenv("AS2_WEAVIATE_EF"))
	const n, dim, queries, k = 2000, 64, 200, 10
	ctx := context.Background()
	class := fmt.Sprintf("As2Test%d", time.Now().UnixNano())
	probe, err := newIndex(Options{URL: u, Class: class, Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	if err := probe.Ready(ctx); err != nil {
		t.Skipf("AS2_WEAVIATE_URL=%s: not ready: %v", u, err)
	}
	x, err := Open(ctx, Options{URL: u, Class: class, Dim: dim, Create: true, Ef: ef})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := x.Delete(context.Background()); err != nil {
			t.Errorf("deleting %s: %v", class, err)
		}
	})
	rng := rand.New(rand.NewPCG(1, 2))
	gauss := func(m int) [][]float32 {
		out := make([][]float32, m)
		for i := range out {
			out[i] = make([]float32, dim)
			for j := range out[i] {
				out[i][j] = float32(rng.NormFloat64())
			}
		}
		return out
	}
	vecs, ids := gauss(n), ids(n)
	flat, _ := index.NewFlat(dim)
	if err := flat.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := x.AddContext(ctx, ids, vecs); err != nil {
		t.Fatal(err)
	}
	t.Logf("added %d vectors in %v", n, time.Since(start).Round(time.Millisecond))
	if x.Len() != n {
		t.Fatalf("Len %d after adding %d", x.Len(), n)
	}
	// The server's own errors, through a handle that believes the class
	// holds 32 dimensions: object errors in a batch, a GraphQL error.
	wrong, err := Open(ctx, Options{URL: u, Class: class, Dim: 32})
	if err != nil {
		t.Fatal(err)
	}
	if err := wrong.Add([]string{"w"}, gauss(1)[:1:1]); err == nil {
		t.Error("a 64-d vector added through a 32-d handle")
	}
	if err := wrong.Add([]string{"w1", "w2"}, [][]float32{make([]float32, 32), make([]float32, 32)}); err == nil {
		t.Error("32-d vectors added to a 64-d class")
	} else {
		t.Logf("32-d vectors in a 64-d class: %v", err)
	}
	if _, err := wrong.Search(ctx, make([]float32, 32), k); err == nil {
		t.Error("a 32-d search of a 64-d class")
	} else {
		t.Logf("a 32-d search of a 64-d class: %v", err)
	}
	found, orderOK := 0, 0
	var lat []time.Duration
	for i, q := range gauss(queries) {
		want, _ := flat.Search(ctx, q, k)
		t0 := time.Now()
		got, err := x.Search(ctx, q, k)
		lat = append(lat, time.Since(t0))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != k {
			t.Fatalf("query %d: %d hits, want %d", i, len(got), k)
		}
		score := map[string]float64{}
		for _, h := range want {
			score[h.ID] = h.Score
		}
		var common, inWant []string
		for _, h := range got {
			s, ok := score[h.ID]
			if !ok {
				continue
			}
			found++
			common = append(common, h.ID)
			if d := h.Score - s; d > 1e-3*max(1, abs(s)) || d < -1e-3*max(1, abs(s)) {
				t.Errorf("query %d: %s scored %g, Flat %g", i, h.ID, h.Score, s)
			}
		}
		for _, h := range want {
			if slices.Contains(common, h.ID) {
				inWant = append(inWant, h.ID)
			}
		}
		if slices.Equal(common, inWant) {
			orderOK++
		}
	}
	recall := float64(found) / float64(queries*k)
	slices.Sort(lat)
	t.Logf("recall@%d %.4f over %d queries (ef %d); hits found in Flat's order: %d/%d; search latency p50 %v, p95 %v",
		k, recall, queries, ef, orderOK, queries, lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*95/100].Round(time.Microsecond))
	if recall < 0.95 {
		t.Errorf("recall@%d %.4f, want ≥ 0.95", k, recall)
	}
	if orderOK != queries {
		t.Errorf("%d of %d queries' common hits out of Flat's order", queries-orderOK, queries)
	}
	// The server takes a new ef for the built class, and still searches.
	if err := x.SetEf(ctx, 400); err != nil {
		t.Fatalf("SetEf: %v", err)
	}
	if got, err := x.Search(ctx, gauss(1)[0], k); err != nil || len(got) != k {
		t.Errorf("a search after SetEf: %d hits, %v", len(got), err)
	}
}
