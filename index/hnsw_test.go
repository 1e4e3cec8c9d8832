package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"slices"
	"strings"
	"testing"
)

// recallAt is the mean share of the exact top k that x finds.
func recallAt(t testing.TB, x, exact Index[[]float32, []float32], qs [][]float32, k int) float64 {
	t.Helper()
	found, total := 0, 0
	for _, q := range qs {
		want, err := exact.Search(context.Background(), q, k)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.Search(context.Background(), q, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range want {
			if slices.ContainsFunc(got, func(g Hit) bool { return g.ID == h.ID }) {
				found++
			}
		}
		total += len(want)
	}
	return float64(found) / float64(total)
}

// TestHNSWRecall holds HNSW's recall@10 against Flat at 0.95 or more on
// seeded random vectors, whose norms vary (a test of the inner-product
// reduction, not only of cosine neighbourhoods): independent dimensions,
// the hardest case for a graph, need a larger EfSearch than vectors of a
// low intrinsic dimension, like sentence vectors.
func TestHNSWRecall(t *testing.T) {
	random := func(n, dim int, seed uint64) ([]string, [][]float32) { return randomVecs(n, dim, seed) }
	lowRank := func(n, dim int, seed uint64) ([]string, [][]float32) { return lowRankVecs(n, dim, 16, seed) }
	tests := []struct {
		name   string
		vecs   func(n, dim int, seed uint64) ([]string, [][]float32)
		n, dim int
		opts   HNSWOptions
		min    float64
	}{
		{"random, ef 200", random, 3000, 64, HNSWOptions{EfSearch: 200}, 0.95},
		{"random, small ef still finds most", random, 3000, 64, HNSWOptions{EfSearch: 20}, 0.5},
		{"low rank, defaults", lowRank, 3000, 256, HNSWOptions{}, 0.95},
		{"low rank, M 8", lowRank, 3000, 256, HNSWOptions{M: 8, EfConstruction: 100}, 0.95},
		{"low rank, 4 workers", lowRank, 3000, 256, HNSWOptions{Workers: 4}, 0.95},
		{"random, ef 200, 3 workers", random, 3000, 64, HNSWOptions{EfSearch: 200, Workers: 3}, 0.95},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			aids, vecs := tc.vecs(tc.n, tc.dim, 11)
			_, qs := tc.vecs(200, tc.dim, 12)
			flat, _ := NewFlat(tc.dim)
			x, err := NewHNSW(tc.dim, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, idx := range []Index[[]float32, []float32]{flat, x} {
				if err := idx.Add(aids, vecs); err != nil {
					t.Fatal(err)
				}
			}
			r := recallAt(t, x, flat, qs, 10)
			t.Logf("recall@10 %.4f", r)
			if r < tc.min {
				t.Errorf("recall@10 %.4f, want at least %.2f", r, tc.min)
			}
		})
	}
}

// TestHNSWFile: a read index searches as the one written, can grow, and
// damaged graphs are refused.
func TestHNSWFile(t *testing.T) {
	ctx := context.Background()
	aids, vecs := randomVecs(400, 16, 21)
	x, _ := NewHNSW(16, HNSWOptions{M: 6, EfSearch: 30})
	if err := x.Add(aids[:300], vecs[:300]); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := slices.Clone(buf.Bytes())
	back, err := ReadHNSW(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range vecs[300:320] {
		want, _ := x.Search(ctx, q, 5)
		got, _ := back.Search(ctx, q, 5)
		if !slices.Equal(got, want) {
			t.Fatalf("read back: %v, want %v", got, want)
		}
	}
	if back.Options().EfSearch != 30 || back.Options().M != 6 || back.Len() != 300 {
		t.Errorf("read back: %+v, %d answers", back.Options(), back.Len())
	}
	// A read index takes more answers (within the first Add's norm).
	if err := back.Add(aids[300:], vecs[300:]); err != nil && !strings.Contains(err.Error(), "above the bound") {
		t.Fatal(err)
	}
	big := make([]float32, 16)
	big[0] = 1e6
	if err := back.Add([]string{"big"}, [][]float32{big}); err == nil || !strings.Contains(err.Error(), "above the bound") {
		t.Errorf("a vector longer than the bound: %v", err)
	}
	// A link to a node that does not exist, behind a valid checksum.
	bad := slices.Clone(data[:len(data)-4])
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], 1000)
	bad = binary.LittleEndian.AppendUint32(bad, crc32.Checksum(bad, castagnoli))
	if _, err := ReadHNSW(bytes.NewReader(bad)); err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "links to 1000") {
		t.Errorf("a dangling link: %v", err)
	}
	for _, cut := range []int{20, 100, len(data) / 2, len(data) - 5} {
		if _, err := ReadHNSW(bytes.NewReader(data[:cut])); !errors.Is(err, ErrCorrupt) {
			t.Errorf("truncated at %d: %v", cut, err)
		}
	}
}

func TestHNSWOptions(t *testing.T) {
	for _, o := range []HNSWOptions{{M: 1}, {EfSearch: -1}, {EfConstruction: 1 << 20}, {MaxNorm: -1}, {Workers: -1}} {
		if _, err := NewHNSW(8, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	x, _ := NewHNSW(8, HNSWOptions{})
	if err := x.SetEfSearch(0); err == nil {
		t.Error("SetEfSearch(0) accepted")
	}
	if _, err := x.Search(context.Background(), make([]float32, 8), 3); err != nil {
		t.Errorf("an empty index: %v", err)
	}
	nan := make([]float32, 8)
	nan[2] = float32(math.NaN())
	if err := x.Add([]string{"a"}, [][]float32{nan}); err == nil {
		t.Error("a NaN vector accepted")
	}
}

func TestHNSWAddProgress(t *testing.T) {
	aids, vecs := randomVecs(600, 8, 41)
	x, _ := NewHNSW(8, HNSWOptions{})
	var seen []int
	if err := x.AddProgress(context.Background(), aids, vecs, func(n int) { seen = append(seen, n) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []int{256, 512, 600}) {
		t.Errorf("progress %v", seen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	y, _ := NewHNSW(8, HNSWOptions{})
	if err := y.AddProgress(ctx, aids, vecs, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestHNSWWorkers: one worker builds the same graph for a seed every time;
// a parallel build, grown in two Adds, is a graph the file reader accepts
// (every link on its layer, the entry on top); a cancelled parallel build
// keeps a prefix of the answers, linked and searchable.
func TestHNSWWorkers(t *testing.T) {
	aids, vecs := lowRankVecs(2000, 32, 8, 21)
	file := func(x *HNSW) []byte {
		var b bytes.Buffer
		if _, err := x.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	one := func() *HNSW {
		x, _ := NewHNSW(32, HNSWOptions{Workers: 1})
		if err := x.Add(aids, vecs); err != nil {
			t.Fatal(err)
		}
		return x
	}
	if !bytes.Equal(file(one()), file(one())) {
		t.Error("two one-worker builds differ")
	}
	x, _ := NewHNSW(32, HNSWOptions{Workers: 4})
	if err := errors.Join(x.Add(aids[:700], vecs[:700]), x.Add(aids[700:], vecs[700:])); err != nil {
		t.Fatal(err)
	}
	y, err := ReadHNSW(bytes.NewReader(file(x)))
	if err != nil || y.Len() != 2000 {
		t.Fatalf("a parallel build read back: %v", err)
	}
	noDuplicateLinks(t, x)
	ctx, cancel := context.WithCancel(context.Background())
	z, _ := NewHNSW(32, HNSWOptions{Workers: 3})
	err = z.AddProgress(ctx, aids, vecs, func(done int) {
		if done >= 512 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || z.Len() < 512 || z.Len() >= 2000 {
		t.Fatalf("cancelled at 512: %v, %d kept", err, z.Len())
	}
	if _, err := ReadHNSW(bytes.NewReader(file(z))); err != nil {
		t.Errorf("the kept prefix: %v", err)
	}
	flat, _ := NewFlat(32)
	flat.Add(aids[:z.Len()], vecs[:z.Len()])
	_, qs := lowRankVecs(50, 32, 8, 22)
	if r := recallAt(t, z, flat, qs, 10); r < 0.95 {
		t.Errorf("the kept prefix: recall@10 %.3f", r)
	}
}

// noDuplicateLinks fails t if a node of x lists a neighbour twice on a layer.
func noDuplicateLinks(t *testing.T, x *HNSW) {
	t.Helper()
	for i, ls := range x.links {
		for l, ns := range ls {
			if len(slices.Compact(slices.Sorted(slices.Values(ns)))) != len(ns) {
				t.Fatalf("node %d lists a neighbour twice on layer %d: %v", i, l, ns)
			}
		}
	}
}
