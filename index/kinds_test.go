package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

func randomVecs(n, dim int, seed uint64) ([]string, [][]float32) {
	rng := rand.New(rand.NewPCG(seed, 1))
	ids := make([]string, n)
	vecs := make([][]float32, n)
	for i := range vecs {
		ids[i] = fmt.Sprintf("a%d", i)
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(rng.NormFloat64())
		}
	}
	return ids, vecs
}

// bruteForce ranks by inner product in float64, ties by order.
func bruteForce(vecs [][]float32, q []float32, k int) []string {
	type s struct {
		i int
		v float64
	}
	var all []s
	for i, v := range vecs {
		d := 0.0
		for j := range v {
			d += float64(v[j]) * float64(q[j])
		}
		all = append(all, s{i, d})
	}
	slices.SortStableFunc(all, func(a, b s) int {
		if a.v > b.v {
			return -1
		}
		if a.v < b.v {
			return 1
		}
		return 0
	})
	var out []string
	for _, x := range all[:min(k, len(all))] {
		out = append(out, fmt.Sprintf("a%d", x.i))
	}
	return out
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestExactScans(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		n, dim int
	}{
		{"small", 50, 7},
		{"kernel width", 300, 64},
		{"parallel", 2*ParallelMin/96 + 5, 96}, // past ParallelMin: split over the CPUs
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			aids, vecs := randomVecs(tc.n, tc.dim, 1)
			_, qs := randomVecs(5, tc.dim, 2)
			flat, _ := NewFlat(tc.dim)
			bin, _ := NewBinary(tc.dim)
			bin.Rescore = tc.n // rescoring everything: exact
			for _, x := range []Index[[]float32, []float32]{flat, bin} {
				if err := x.Add(aids, vecs); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range qs {
				want := bruteForce(vecs, q, 10)
				for name, x := range map[string]Index[[]float32, []float32]{"flat": flat, "binary": bin} {
					got, err := x.Search(ctx, q, 10)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(ids(got), want) {
						t.Errorf("%s: %v, want %v", name, ids(got), want)
					}
				}
			}
		})
	}
}

func TestBinaryCodes(t *testing.T) {
	tests := []struct {
		v    []float32
		want []uint64
	}{
		{[]float32{1, -1, 0, 2}, []uint64{0b1001}},
		{append(make([]float32, 64), 3), []uint64{0, 1}},
	}
	for _, tc := range tests {
		if got := Code(nil, tc.v); !slices.Equal(got, tc.want) {
			t.Errorf("Code(%v) = %b, want %b", tc.v, got, tc.want)
		}
	}
	if d := Hamming([]uint64{0b1011, 1}, []uint64{0b0110, 0}); d != 4 {
		t.Errorf("Hamming = %d, want 4", d)
	}
	// With few candidates rescored, the nearest codes are the ones kept:
	// the answer equal to the question (distance 0, the best product)
	// comes first.
	aids, vecs := randomVecs(2000, 128, 3)
	bin, _ := NewBinary(128)
	bin.Rescore = 5
	if err := bin.Add(aids, vecs); err != nil {
		t.Fatal(err)
	}
	hits, err := bin.Search(context.Background(), vecs[1234], 3)
	if err != nil || len(hits) != 3 || hits[0].ID != "a1234" {
		t.Errorf("hits %v, %v: want a1234 first", hits, err)
	}
}

func TestBM25MatchesRanker(t *testing.T) {
	texts := []string{
		"The cat sat on the mat.",
		"Dogs chase cats in the park.",
		"A mat is a small rug.",
		"Nothing in common here!",
		"The cat, the cat and the hat.",
	}
	aids := []string{"a", "b", "c", "d", "e"}
	q := "Where did the cat sit on the mat?"
	opts := rank.DefaultOptions()
	r, idx, err := NewBM25Retriever(context.Background(), opts, aids, texts)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := r.Retrieve(context.Background(), q, 10)
	if err != nil {
		t.Fatal(err)
	}
	// rank.BM25 over the same sentences, with the pool's statistics.
	dq := dataset.Question{Text: q}
	for i, s := range texts {
		dq.Candidates = append(dq.Candidates, dataset.Candidate{ID: aids[i], Text: s, Position: i})
	}
	opts.Collection = rank.NewCollection([]dataset.Question{dq}, opts)
	scores, err := rank.BM25{Options: opts}.Score(context.Background(), &dq)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for i, s := range scores {
		if s > 0 {
			want[aids[i]] = s
		}
	}
	if len(hits) != len(want) {
		t.Fatalf("%d hits %v, want %d (the answers sharing a term)", len(hits), hits, len(want))
	}
	for i, h := range hits {
		if math.Abs(h.Score-want[h.ID]) > 1e-12 {
			t.Errorf("%s: score %v, rank.BM25 %v", h.ID, h.Score, want[h.ID])
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hits not best first: %v", hits)
		}
	}
	if idx.Len() != 5 {
		t.Errorf("Len %d", idx.Len())
	}
}

func written(t testing.TB) map[string][]byte {
	t.Helper()
	aids, vecs := randomVecs(20, 9, 4)
	flat, _ := NewFlat(9)
	bin, _ := NewBinary(9)
	bin.Rescore = 7
	bm := NewBM25(rank.DefaultOptions())
	hn, _ := NewHNSW(9, HNSWOptions{M: 4, EfConstruction: 8, EfSearch: 5})
	if err := errors.Join(flat.Add(aids, vecs), bin.Add(aids, vecs),
		bm.Add([]string{"x", "y"}, [][]string{{"a", "b", "a"}, {}}), hn.Add(aids, vecs)); err != nil {
		t.Fatal(err)
	}
	mat, _ := NewMatrices(70)
	if err := mat.Add([]string{"x", "y"}, randomMatrices(2, 70, 4)); err != nil {
		t.Fatal(err)
	}
	bundle := &Bundle{Encoder: map[string]string{"retriever": "bm25", "k1": "1.2"}, IDs: []string{"x", "y"}, Texts: []string{"a b, a.", ""}, Index: bm}
	remote := &Remote{Engine: "weaviate", Params: map[string]string{"url": "http://127.0.0.1:8079", "class": "As2Answer", "dim": "9"}, Count: 20}
	out := map[string][]byte{}
	for name, x := range map[string]interface {
		WriteTo(w io.Writer) (int64, error)
	}{FlatKind: flat, BinaryKind: bin, BM25Kind: bm, HNSWKind: hn, MatricesKind: mat, RemoteKind: remote, BundleKind: bundle} {
		var buf bytes.Buffer
		n, err := x.WriteTo(&buf)
		if err != nil || n != int64(buf.Len()) {
			t.Fatalf("%s: WriteTo = %d, %v for %d bytes", name, n, err, buf.Len())
		}
		out[name] = buf.Bytes()
	}
	return out
}

type writerTo interface {
	WriteTo(w io.Writer) (int64, error)
}

var readers = map[string]func(io.Reader) (writerTo, error){
	FlatKind:     func(r io.Reader) (writerTo, error) { return ReadFlat(r) },
	BinaryKind:   func(r io.Reader) (writerTo, error) { return ReadBinary(r) },
	BM25Kind:     func(r io.Reader) (writerTo, error) { return ReadBM25(r) },
	HNSWKind:     func(r io.Reader) (writerTo, error) { return ReadHNSW(r) },
	MatricesKind: func(r io.Reader) (writerTo, error) { return ReadMatrices(r) },
	RemoteKind:   func(r io.Reader) (writerTo, error) { return ReadRemote(r) },
	BundleKind:   func(r io.Reader) (writerTo, error) { return ReadBundle(r) },
}

func TestRoundTrip(t *testing.T) {
	for kind, data := range written(t) {
		x, err := readers[kind](bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		var again bytes.Buffer
		if _, err := x.WriteTo(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), data) {
			t.Errorf("%s: written again, the file differs", kind)
		}
	}
	// A read index searches as the one written.
	aids, vecs := randomVecs(300, 33, 5)
	bin, _ := NewBinary(33)
	bin.Rescore = 40
	if err := bin.Add(aids, vecs); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := bin.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBinary(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := bin.Search(context.Background(), vecs[7], 5)
	got, _ := back.Search(context.Background(), vecs[7], 5)
	if !slices.Equal(got, want) || back.Rescore != 40 || back.Len() != 300 {
		t.Errorf("read back: %v, want %v", got, want)
	}
}

func TestCorruptFiles(t *testing.T) {
	data := written(t)[FlatKind]
	flip := func(at int) []byte {
		b := slices.Clone(data)
		b[at] ^= 0x40
		return b
	}
	version2 := slices.Clone(data)
	version2[16] = 2
	tests := []struct {
		name    string
		in      []byte
		want    string
		corrupt bool
	}{
		{"empty", nil, "corrupt index file: reading the header", true},
		{"not an index", []byte("hello, world, this is text"), "not an as2 index file", false},
		{"other kind", written(t)[BinaryKind], `the file holds a "binary" index, not a "flat" one`, false},
		{"newer version", version2, "flat index format version 2: this build reads versions 1 to 1", false},
		{"flipped vector bit", flip(len(data) - 10), "reading a flat index: corrupt index file: checksum", true},
		{"flipped id length", flip(28), "reading a flat index: corrupt index file", true},
		{"truncated", data[:len(data)-30], "reading a flat index: corrupt index file: unexpected EOF", true},
		{"no checksum", data[:len(data)-4], "reading a flat index: corrupt index file: reading the checksum", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFlat(bytes.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if errors.Is(err, ErrCorrupt) != tc.corrupt {
				t.Errorf("errors.Is(err, ErrCorrupt) = %v", !tc.corrupt)
			}
		})
	}
}

// Every kind refuses every prefix of its file and every single flipped
// byte (damage past the header as ErrCorrupt, but in a bundle, where a
// damaged length can make the index's kind an unknown one).
func TestEveryDamageRefused(t *testing.T) {
	for kind, data := range written(t) {
		for n := range len(data) {
			if _, err := readers[kind](bytes.NewReader(data[:n])); err == nil {
				t.Fatalf("%s: a prefix of %d of %d bytes was read", kind, n, len(data))
			}
		}
		for i := range data {
			bad := slices.Clone(data)
			bad[i] ^= 0x10
			_, err := readers[kind](bytes.NewReader(bad))
			if err == nil || i >= 20 && kind != BundleKind && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: byte %d flipped: error %v", kind, i, err)
			}
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, data := range written(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// With its checksum fixed, a mutation reaches the body's checks
		// (which the checksum would otherwise hide from the fuzzer).
		fixed := data
		if len(data) > 4 {
			fixed = binary.LittleEndian.AppendUint32(slices.Clone(data[:len(data)-4]), crc32.Checksum(data[:len(data)-4], castagnoli))
		}
		for kind, read := range readers {
			for _, data := range [][]byte{data, fixed} {
				x, err := read(bytes.NewReader(data))
				if err != nil {
					continue
				}
				// What a reader accepts it writes back byte for byte.
				var buf bytes.Buffer
				if _, err := x.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), data[:buf.Len()]) {
					t.Fatalf("%s: accepted a file it does not write back", kind)
				}
			}
		}
	})
}

func TestSearchErrors(t *testing.T) {
	flat, _ := NewFlat(4)
	if _, err := NewFlat(0); err == nil {
		t.Error("NewFlat(0) accepted")
	}
	if err := flat.Add([]string{"a"}, [][]float32{{1, 2}}); err == nil || !strings.Contains(err.Error(), "2 dimensions, want 4") {
		t.Errorf("a short vector: %v", err)
	}
	if err := flat.Add([]string{"a", "b"}, [][]float32{{1, 2, 3, 4}}); err == nil {
		t.Error("2 ids for 1 vector accepted")
	}
	if _, err := flat.Search(context.Background(), []float32{1}, 3); err == nil {
		t.Error("a short question accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := flat.Search(ctx, make([]float32, 4), 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// benchSearch times top-10 searches of x holding n random 512-dimensional
// vectors (USE-Lite's width).
func benchSearch(b *testing.B, x Index[[]float32, []float32], n int) {
	aids, vecs := randomVecs(n, 512, 6)
	if err := x.Add(aids, vecs); err != nil {
		b.Fatal(err)
	}
	_, qs := randomVecs(16, 512, 7)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := x.Search(context.Background(), qs[i%len(qs)], 10); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvectors/s")
}

func BenchmarkFlatSearch20k(b *testing.B) {
	x, _ := NewFlat(512)
	benchSearch(b, x, 20000)
}

func BenchmarkBinarySearch20k(b *testing.B) {
	x, _ := NewBinary(512)
	benchSearch(b, x, 20000)
}

// BenchmarkSearchHNSW times HNSW with the default parameters beside the
// exact scans, and reports its recall@10 against Flat, without which its
// speed means nothing: on the Search20k benchmarks' random vectors (the
// hardest case for a graph: 512 independent dimensions, no neighbourhoods)
// and on vectors of the same size with a low intrinsic dimension, as
// sentence vectors have. Building the graph takes most of the benchmark's
// time.
func BenchmarkSearchHNSW(b *testing.B) {
	for _, tc := range []struct {
		name string
		vecs func(n int, seed uint64) ([]string, [][]float32)
	}{
		{"random20k", func(n int, seed uint64) ([]string, [][]float32) { return randomVecs(n, 512, seed) }},
		{"lowrank20k", func(n int, seed uint64) ([]string, [][]float32) { return lowRankVecs(n, 512, 32, seed) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			aids, vecs := tc.vecs(20000, 6)
			_, qs := tc.vecs(64, 7)
			x, _ := NewHNSW(512, HNSWOptions{})
			flat, _ := NewFlat(512)
			if err := errors.Join(x.Add(aids, vecs), flat.Add(aids, vecs)); err != nil {
				b.Fatal(err)
			}
			recall := recallAt(b, x, flat, qs, 10)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := x.Search(context.Background(), qs[i%len(qs)], 10); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(recall, "recall@10")
		})
	}
}

// lowRankVecs are n seeded vectors of dim values with an intrinsic
// dimension of rank: a Gaussian in rank dimensions, mapped by a fixed
// random matrix, plus a little noise in every dimension.
func lowRankVecs(n, dim, rank int, seed uint64) ([]string, [][]float32) {
	_, basis := randomVecs(rank, dim, 99) // the same map for every seed
	ids, latent := randomVecs(n, rank, seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	vecs := make([][]float32, n)
	for i, z := range latent {
		v := make([]float32, dim)
		for j := range v {
			v[j] = 0.1 * float32(rng.NormFloat64())
		}
		for r, c := range z {
			for j, e := range basis[r] {
				v[j] += c * e / float32(rank)
			}
		}
		vecs[i] = v
	}
	return ids, vecs
}
