package bert

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// expected is testdata/expected.json, written by scripts/reference/bert-reference.py.
type expected struct {
	Torch  string `json:"torch"`
	Models map[string][]struct {
		IDs    []int       `json:"ids"`
		Types  []int       `json:"types"`
		States [][]float64 `json:"states"`
		CLS    []float64   `json:"cls"`
		Mean   []float64   `json:"mean"`
		Max    []float64   `json:"max"`
		Pooler []float64   `json:"pooler"`
		Logits []float64   `json:"logits"`
	} `json:"models"`
}

func readExpected(t *testing.T) expected {
	t.Helper()
	data, err := os.ReadFile("testdata/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

const tol = 1e-4

// maxDiff is the largest absolute difference; it fails on length mismatch.
func maxDiff(t *testing.T, what string, got []float32, want []float64) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst := 0.0
	for i := range got {
		worst = max(worst, math.Abs(float64(got[i])-want[i]))
	}
	if worst > tol {
		t.Errorf("%s: max abs difference %.3g > %g", what, worst, tol)
	}
	return worst
}

func flat(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// The encoder reproduces a plain-PyTorch BERT forward pass on tiny random
// checkpoints, one sequence at a time and in padded batches.
func TestConformance(t *testing.T) {
	exp := readExpected(t)
	for _, name := range []string{"tiny-bert", "tiny-bert-cls"} {
		t.Run(name, func(t *testing.T) {
			m, err := Load(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			cases := exp.Models[name]
			var ids, types [][]int
			for _, c := range cases {
				ids = append(ids, c.IDs)
				types = append(types, c.Types)
			}
			worst := 0.0
			// One at a time, on an evaluation tape.
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			for _, c := range cases {
				tp.Reset()
				st := m.Forward(tp, c.IDs, c.Types)
				worst = max(worst, maxDiff(t, "Forward", st.Value.Data, flat(c.States)))
				if m.HasPooler() {
					worst = max(worst, maxDiff(t, "PoolerForward", m.PoolerForward(tp, st).Value.Data, c.Pooler))
				}
			}
			// Batched, padded, bucketed; a small token budget forces
			// several buckets.
			for _, budget := range []int{8192, 16} {
				m.maxBatchTok = budget
				states, err := m.States(ids, types)
				if err != nil {
					t.Fatal(err)
				}
				for i, c := range cases {
					worst = max(worst, maxDiff(t, "States", states[i].Data, flat(c.States)))
				}
			}
			for _, p := range []struct {
				mode PoolMode
				want func(i int) []float64
			}{
				{PoolCLS, func(i int) []float64 { return cases[i].CLS }},
				{PoolMean, func(i int) []float64 { return cases[i].Mean }},
				{PoolMax, func(i int) []float64 { return cases[i].Max }},
				{PoolPooler, func(i int) []float64 { return cases[i].Pooler }},
			} {
				m.Pooling = []PoolMode{p.mode}
				pooled, err := m.Pool(ids, types)
				if err != nil {
					t.Fatal(err)
				}
				for i := range cases {
					worst = max(worst, maxDiff(t, "Pool "+p.mode.String(), pooled[i], p.want(i)))
				}
			}
			if m.NumLabels() > 0 {
				logits, err := m.Classify(ids, types)
				if err != nil {
					t.Fatal(err)
				}
				for i, c := range cases {
					worst = max(worst, maxDiff(t, "Classify", logits[i], c.Logits))
				}
			} else if _, err := m.Classify(ids, types); err == nil {
				t.Error("Classify on a BertModel: no error")
			}
			t.Logf("%s: max abs difference from PyTorch %s: %.2g", name, exp.Torch, worst)
		})
	}
}

// copyDir copies the tiny checkpoint into a temporary directory that a
// test may alter.
func copyDir(t testing.TB, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"config.json", "model.safetensors"} {
		data, err := os.ReadFile(filepath.Join("testdata", name, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A sentence-transformers directory's pooling and normalisation apply.
func TestSentenceTransformersPooling(t *testing.T) {
	exp := readExpected(t).Models["tiny-bert"]
	dir := copyDir(t, "tiny-bert")
	os.MkdirAll(filepath.Join(dir, "1_Pooling"), 0o755)
	os.WriteFile(filepath.Join(dir, "1_Pooling", "config.json"), []byte(`{"word_embedding_dimension": 32,
		"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false}`), 0o644)
	os.WriteFile(filepath.Join(dir, "modules.json"), []byte(`[{"idx":0,"type":"sentence_transformers.models.Transformer"},
		{"idx":1,"type":"sentence_transformers.models.Pooling"},{"idx":2,"type":"sentence_transformers.models.Normalize"}]`), 0o644)
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pooling) != 2 || m.Pooling[0] != PoolCLS || m.Pooling[1] != PoolMean || !m.Normalize {
		t.Fatalf("pooling %v, normalize %v", m.Pooling, m.Normalize)
	}
	got, err := m.Pool([][]int{exp[0].IDs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]float64(nil), exp[0].CLS...), exp[0].Mean...)
	var n float64
	for _, v := range want {
		n += v * v
	}
	for i := range want {
		want[i] /= math.Sqrt(n)
	}
	maxDiff(t, "cls+mean normalised", got[0], want)
}

func writeTensors(t *testing.T, dir string, edit func(map[string]safetensors.Tensor)) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := safetensors.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]safetensors.Tensor{}
	for _, x := range list {
		byName[x.Name] = x
	}
	edit(byName)
	var out []safetensors.Tensor
	for _, x := range byName {
		out = append(out, x)
	}
	w, err := os.Create(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := safetensors.Write(w, out, nil); err != nil {
		t.Fatal(err)
	}
}

// Bad checkpoints are errors that name the problem, never panics.
func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name   string
		model  string
		config func(map[string]any)
		edit   func(map[string]safetensors.Tensor)
		want   string
	}{
		{name: "architecture", model: "tiny-bert", config: func(c map[string]any) { c["architectures"] = []string{"BertForMaskedLM"} }, want: `architecture "BertForMaskedLM" is not supported`},
		{name: "heads", model: "tiny-bert", config: func(c map[string]any) { c["num_attention_heads"] = 5 }, want: "not a multiple of num_attention_heads"},
		{name: "missing field", model: "tiny-bert", config: func(c map[string]any) { delete(c, "hidden_size") }, want: "hidden_size is missing"},
		{name: "activation", model: "tiny-bert", config: func(c map[string]any) { c["hidden_act"] = "swish" }, want: `hidden_act "swish"`},
		{name: "missing tensor", model: "tiny-bert", edit: func(m map[string]safetensors.Tensor) { delete(m, "encoder.layer.1.attention.self.key.weight") },
			want: `missing tensor "encoder.layer.1.attention.self.key.weight"`},
		{name: "shape", model: "tiny-bert", config: func(c map[string]any) { c["intermediate_size"] = 48 },
			want: `tensor "encoder.layer.0.intermediate.dense.weight" has shape [64 32], want [48 32]`},
		{name: "vocab", model: "tiny-bert", config: func(c map[string]any) { c["vocab_size"] = 101 }, want: `"embeddings.word_embeddings.weight" has shape [100 32]`},
		{name: "prefixed missing", model: "tiny-bert-cls", edit: func(m map[string]safetensors.Tensor) { delete(m, "bert.pooler.dense.bias") }, want: `missing tensor "bert.pooler.dense.bias"`},
		{name: "classifier", model: "tiny-bert-cls", edit: func(m map[string]safetensors.Tensor) { delete(m, "classifier.weight") }, want: `missing tensor "classifier.weight"`},
		{name: "labels", model: "tiny-bert-cls", config: func(c map[string]any) { c["num_labels"] = 3; delete(c, "id2label") }, want: "config.json has 3 labels"},
		{name: "embedding size", model: "tiny-bert", config: func(c map[string]any) { c["embedding_size"] = 16 }, want: "embedding_size 16 differs from hidden_size 32"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, c.model)
			if c.config != nil {
				data, _ := os.ReadFile(filepath.Join(dir, "config.json"))
				var cfg map[string]any
				json.Unmarshal(data, &cfg)
				c.config(cfg)
				data, _ = json.Marshal(cfg)
				os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644)
			}
			if c.edit != nil {
				writeTensors(t, dir, c.edit)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("empty directory: no error")
	}
}

// A checkpoint with type_vocab_size 0 has no token-type embeddings: it
// loads without the tensor, runs without types and rejects any.
func TestNoTokenTypes(t *testing.T) {
	dir := copyDir(t, "tiny-bert")
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["type_vocab_size"] = 0
	data, _ = json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	writeTensors(t, dir, func(m map[string]safetensors.Tensor) { delete(m, "embeddings.token_type_embeddings.weight") })
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Params().Get("embeddings.token_type_embeddings.weight") != nil || m.Config.TypeVocabSize != 0 {
		t.Fatalf("token type embeddings kept: type_vocab_size %d", m.Config.TypeVocabSize)
	}
	if _, err := m.States([][]int{{2, 17, 3}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.States([][]int{{2, 17, 3}}, [][]int{{0, 0, 0}}); err == nil || !strings.Contains(err.Error(), "type 0 outside [0, 0)") {
		t.Errorf("token types for a model without: %v", err)
	}
}

// Invalid inputs are errors, not panics.
func TestInputErrors(t *testing.T) {
	m, err := Load("testdata/tiny-bert")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		ids   [][]int
		types [][]int
		want  string
	}{
		{"empty", [][]int{{}}, nil, "0 tokens"},
		{"long", [][]int{make([]int, 65)}, nil, "65 tokens"},
		{"id", [][]int{{2, 100}}, nil, "id 100 outside"},
		{"negative", [][]int{{2, -1}}, nil, "id -1 outside"},
		{"type", [][]int{{2, 3}}, [][]int{{0, 2}}, "type 2 outside"},
		{"type count", [][]int{{2, 3}}, [][]int{{0}}, "1 token types for 2 tokens"},
		{"type rows", [][]int{{2, 3}}, [][]int{}, "0 token type sequences"},
	} {
		if _, err := m.States(c.ids, c.types); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func FuzzConfig(f *testing.F) {
	for _, name := range []string{"tiny-bert", "tiny-bert-cls"} {
		data, err := os.ReadFile(filepath.Join("testdata", name, "config.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"hidden_size": 0}`))
	f.Add([]byte(`{"id2label": {"x": "y"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if c.HiddenSize <= 0 || c.NumAttentionHeads <= 0 || c.HiddenSize%c.NumAttentionHeads != 0 ||
			c.NumHiddenLayers <= 0 || c.VocabSize <= 0 || c.TypeVocabSize < 0 || c.LayerNormEps <= 0 ||
			c.EmbeddingSize < 0 || c.EmbeddingSize == c.HiddenSize {
			t.Fatalf("accepted invalid config %+v", c)
		}
	})
}

// Fine-tuning: on a training tape (dropout on) the logits' gradient
// reaches the embeddings, every layer and the classifier.
func TestTrainingGradients(t *testing.T) {
	m, err := Load("testdata/tiny-bert-cls")
	if err != nil {
		t.Fatal(err)
	}
	grads := m.Params().NewGrads()
	tp := nn.NewTape(grads, 1)
	st := m.Forward(tp, []int{2, 30, 31, 3, 70, 3}, []int{0, 0, 0, 0, 1, 1})
	tp.Backward(tp.Sum(m.Logits(tp, st)))
	if err := grads.CheckFinite(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
		"encoder.layer.0.attn.qkv.weight", "encoder.layer.1.ffn.out.weight", "pooler.dense.weight", "classifier.bias"} {
		p := m.Params().Get(name)
		if p == nil {
			t.Fatalf("no parameter %s", name)
		}
		var s float64
		for _, g := range grads.Of(p).Data {
			s += math.Abs(float64(g))
		}
		if s == 0 {
			t.Errorf("%s: zero gradient", name)
		}
	}
}
