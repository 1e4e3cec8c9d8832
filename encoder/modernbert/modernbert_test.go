package modernbert

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/nn"
)

// expected.json and the tiny checkpoints are written by
// scripts/reference/modernbert-reference.py (a plain-PyTorch forward pass).
var checkpoints = []string{"tiny-modernbert", "tiny-modernbert-mean"}

// The head is ModernBertForSequenceClassification's,
// classifier(norm(act(dense(pooled)))), pooled the [CLS] state or the
// mean of the rows as config.json's classifier_pooling says.
func TestConformance(t *testing.T) {
	exp := encodertest.ReadHFExpected(t, filepath.Join("testdata", "expected.json"))
	for _, tc := range []struct {
		dir  string
		mean bool
	}{
		{"tiny-modernbert", false},
		{"tiny-modernbert-mean", true},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			e, err := Load(filepath.Join("testdata", tc.dir))
			if err != nil {
				t.Fatal(err)
			}
			encodertest.CheckHF(t, encodertest.HFCase{
				Enc: e, Fixture: exp[tc.dir], Head: e.Head(),
				Formula: encodertest.HFHead{Act: bert.HeadGELU, Norm: true, Mean: tc.mean},
			})
		})
	}
}

// The local layers must see only their window: the same model with every
// layer global gives other states, so the fixtures' agreement above is not
// an accident of a window wider than the sequences.
func TestLocalAttentionMatters(t *testing.T) {
	e, err := Load(filepath.Join("testdata", "tiny-modernbert"))
	if err != nil {
		t.Fatal(err)
	}
	seq := e.Pair(e.Tokenize("Who wrote War and Peace?"), e.Tokenize("Leo Tolstoy wrote War and Peace, published in 1869."))
	if seq.Len() <= e.Config().LocalAttention {
		t.Fatalf("a pair of %d tokens is inside the window of %d", seq.Len(), e.Config().LocalAttention)
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	x, _ := e.EncodeBatch(tp, []encoder.Sequence{seq})
	local := slices.Clone(x.Value.Data)
	for _, l := range e.m.layers {
		l.radius = -1
	}
	y, _ := e.EncodeBatch(tp, []encoder.Sequence{seq})
	var diff float64
	for i, v := range y.Value.Data {
		diff = max(diff, math.Abs(float64(v-local[i])))
	}
	if diff < 1e-3 {
		t.Errorf("the states change by only %v with every layer global", diff)
	}
}

// TestModelFile checks the encoder survives its spec and tensors, as a
// model file keeps it.
func TestModelFile(t *testing.T) {
	for _, dir := range checkpoints {
		t.Run(dir, func(t *testing.T) {
			e, err := Load(filepath.Join("testdata", dir))
			if err != nil {
				t.Fatal(err)
			}
			d, err := encoder.Decode(e.Spec(), e.Tensors())
			if err != nil {
				t.Fatal(err)
			}
			s := "Who wrote War and Peace?"
			if !slices.Equal(d.Tokenize(s).IDs, e.Tokenize(s).IDs) {
				t.Fatal("tokens differ after decoding")
			}
			// A fresh tape each: the kernels' rounding may depend on where
			// the arena places a buffer.
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			a := e.Encode(tp, e.Tokenize(s)).Value.Data
			tp = nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			b := d.Encode(tp, d.Tokenize(s)).Value.Data
			if len(a) != e.Tokenize(s).Len()*e.Dim() || !slices.Equal(a, b) {
				t.Fatalf("states differ after decoding: %d and %d values for %d tokens", len(a), len(b), e.Tokenize(s).Len())
			}
			spec := e.Spec()
			spec.Tokenizer = "hf-bpe:000000000000"
			if _, err := encoder.Decode(spec, e.Tensors()); err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Errorf("a wrong tokenizer identity: %v", err)
			}
			if _, err := encoder.Decode(e.Spec(), e.Tensors()[1:]); err == nil || !strings.Contains(err.Error(), "config.json needs") {
				t.Errorf("a missing tensor: %v", err)
			}
		})
	}
}

// int8 inference runs the four linear maps of every layer as int8 and
// stays close to float32.
func TestInt8(t *testing.T) {
	e, err := Load(filepath.Join("testdata", "tiny-modernbert"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.Linears()); n != 4*e.Config().NumHiddenLayers {
		t.Fatalf("%d linears for %d layers", n, e.Config().NumHiddenLayers)
	}
	seq := e.Pair(e.Tokenize("Where is the Eiffel Tower?"), e.Tokenize("The Eiffel Tower is in Paris."))
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	x, _ := e.EncodeBatch(tp, []encoder.Sequence{seq})
	f32 := slices.Clone(x.Value.Data)
	if err := nn.QuantizeInt8Linears(e.Linears()...); err != nil {
		t.Fatal(err)
	}
	y, _ := e.EncodeBatch(tp, []encoder.Sequence{seq})
	var worst float64
	for i, v := range y.Value.Data {
		worst = max(worst, math.Abs(float64(v-f32[i])))
	}
	// Rounding alone moves states by ~1e-7; int8 weights by far more.
	if worst < 1e-5 || worst > 0.2 {
		t.Errorf("int8 states differ from float32 by up to %v", worst)
	}
}

func TestConfigErrors(t *testing.T) {
	base := `"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 16`
	for _, tc := range []struct{ name, json, want string }{
		{"ok", `{"architectures": ["ModernBertForSequenceClassification"], "model_type": "modernbert", ` + base + `}`, ""},
		{"unknown architecture", `{"architectures": ["ModernBertForTokenClassification"], "model_type": "modernbert", ` + base + `}`, `architecture "ModernBertForTokenClassification"`},
		{"model type", `{"architectures": ["BertModel"], "model_type": "bert", ` + base + `}`, `model_type "bert"`},
		{"no model type", `{"architectures": ["ModernBertModel"], ` + base + `}`, "model_type is missing"},
		{"no hidden size", `{"model_type": "modernbert", "vocab_size": 50, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 16}`, "hidden_size is missing"},
		{"heads", `{"model_type": "modernbert", "vocab_size": 50, "hidden_size": 12, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 16}`, "even width"},
		{"attention dropout", `{"model_type": "modernbert", "attention_dropout": 0.1, ` + base + `}`, "attention_dropout"},
		{"activation", `{"model_type": "modernbert", "hidden_activation": "silu", ` + base + `}`, `hidden_activation "silu"`},
		{"pooling", `{"model_type": "modernbert", "classifier_pooling": "max", ` + base + `}`, `classifier_pooling "max"`},
		{"head activation", `{"model_type": "modernbert", "classifier_activation": "swish", ` + base + `}`, `classifier_activation "swish"`},
		{"every", `{"model_type": "modernbert", "global_attn_every_n_layers": 0, ` + base + `}`, "global_attn_every_n_layers"},
		{"theta", `{"model_type": "modernbert", "global_rope_theta": -1, ` + base + `}`, "global_rope_theta"},
		{"rope scaling", `{"model_type": "modernbert", "rope_scaling": {"type": "linear", "factor": 2}, ` + base + `}`, "rope_scaling"},
		{"rope type", `{"model_type": "modernbert", "rope_parameters": {"full_attention": {"rope_type": "yarn", "rope_theta": 10}}, ` + base + `}`, "rope_type"},
		{"layer types", `{"model_type": "modernbert", "layer_types": ["full_attention"], ` + base + `}`, "layer_types"},
		{"labels", `{"model_type": "modernbert", "num_labels": 3, "id2label": {"0": "a", "1": "b"}, ` + base + `}`, "num_labels = 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.json))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				// ModernBertConfig's defaults for what the file leaves out.
				if !c.Classifier() || !slices.Equal(c.Global, []bool{true, false}) || c.LocalAttention != 128 ||
					c.GlobalRopeTheta != 160000 || c.LocalRopeTheta != 10000 || c.NormBias || c.ClassifierAct != bert.HeadGELU {
					t.Errorf("config %+v", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Newer configs name layer types and rotary bases by layer type; a null
// local_rope_theta is the global base.
func TestConfigLayerTypes(t *testing.T) {
	base := `"model_type": "modernbert", "vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 3, "num_attention_heads": 2, "intermediate_size": 16`
	c, err := ParseConfig([]byte(`{` + base + `, "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
		"rope_parameters": {"full_attention": {"rope_theta": 5000, "rope_type": "default"}, "sliding_attention": {"rope_theta": 300}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Global, []bool{false, true, false}) || c.GlobalRopeTheta != 5000 || c.LocalRopeTheta != 300 {
		t.Errorf("config %+v", c)
	}
	c, err = ParseConfig([]byte(`{` + base + `, "global_rope_theta": 7000, "local_rope_theta": null}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.LocalRopeTheta != 7000 || !slices.Equal(c.Global, []bool{true, false, false}) {
		t.Errorf("config %+v", c)
	}
}

func copyCheckpoint(t *testing.T, name string, edit func(cfg string) string) string {
	t.Helper()
	return encodertest.CopyCheckpoint(t, filepath.Join("testdata", name), []string{"config.json", "model.safetensors", "tokenizer.json"}, edit)
}

func TestShapeErrors(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"intermediate", `"intermediate_size": 48`, `"intermediate_size": 40`, `"model.layers.0.mlp.Wi.weight" has shape [96 32], want [80 32]`},
		{"norm bias", `"norm_bias": false`, `"norm_bias": true`, `missing tensor "model.embeddings.norm.bias"`},
		{"labels", `"num_labels": 2`, `"num_labels": 3`, "config.json has 3 labels"},
		{"architecture", `"ModernBertForSequenceClassification"`, `"ModernBertForQuestionAnswering"`, `architecture "ModernBertForQuestionAnswering"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyCheckpoint(t, "tiny-modernbert", func(cfg string) string {
				if !strings.Contains(cfg, tc.from) {
					t.Fatalf("config.json has no %s", tc.from)
				}
				cfg = strings.Replace(cfg, tc.from, tc.to, 1)
				if tc.name == "labels" {
					cfg = strings.Replace(cfg, `"1": "LABEL_1"`, `"1": "LABEL_1", "2": "LABEL_2"`, 1)
				}
				return cfg
			})
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A bare encoder (ModernBertModel, or the masked-language model's
// encoder) has no head; an empty text encodes to no rows, ids outside the
// vocabulary read as a known token rather than panicking, and long pairs
// are cut to MaxLen.
func TestEncodeEdges(t *testing.T) {
	dir := copyCheckpoint(t, "tiny-modernbert", func(cfg string) string {
		return strings.Replace(cfg, `"ModernBertForSequenceClassification"`, `"ModernBertModel"`, 1)
	})
	e, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if e.Head() != nil {
		t.Error("a bare encoder has a head")
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	if x := e.Encode(tp, e.Tokenize("")); x.Value.Shape[0] != 0 {
		t.Errorf("empty sentence: shape %v", x.Value.Shape)
	}
	seq := e.Pair(e.Tokenize(""), e.Tokenize(""))
	if want := e.Tokenizer().Added(true); seq.Len() != want {
		t.Errorf("empty pair has %d positions, want %d", seq.Len(), want)
	}
	bad := e.Pair(encoder.Tokens{Text: []string{"x"}, IDs: []int{-5}}, encoder.Tokens{Text: []string{"y"}, IDs: []int{1 << 30}})
	x, _ := e.EncodeBatch(tp, []encoder.Sequence{bad, {}})
	if x.Value.Shape[0] != 2*bad.Len() {
		t.Errorf("shape %v for 2 × %d positions", x.Value.Shape, bad.Len())
	}
	for _, v := range x.Value.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatal("non-finite states")
		}
	}
	long := strings.Repeat("Tolstoy wrote War and Peace. ", 40)
	if n := e.Pair(e.Tokenize(long), e.Tokenize(long)).Len(); n != e.MaxLen() {
		t.Errorf("a long pair has %d positions, want MaxLen %d", n, e.MaxLen())
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, d := range checkpoints {
		data, err := os.ReadFile(filepath.Join("testdata", d, "config.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"model_type": "modernbert", "vocab_size": 5, "hidden_size": 4, "num_hidden_layers": 2, "num_attention_heads": 1, "intermediate_size": 3, "layer_types": ["full_attention", "sliding_attention"], "local_rope_theta": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if c.HiddenSize%c.NumAttentionHeads != 0 || c.HeadDim()%2 != 0 || len(c.Global) != c.NumHiddenLayers ||
			c.VocabSize < 1 || c.IntermediateSize < 1 || !(c.GlobalRopeTheta > 1) || !(c.LocalRopeTheta > 1) || c.LocalAttention < 0 {
			t.Fatalf("accepted %+v", c)
		}
	})
}
