package deberta

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
// scripts/reference/deberta-reference.py (a plain-PyTorch forward pass).
var fixtures = []string{"tiny-deberta-v2", "tiny-deberta-v2-abs"}

func readExpected(t *testing.T) map[string]encodertest.HFFixture {
	return encodertest.ReadHFExpected(t, filepath.Join("testdata", "expected.json"))
}

// The tiny checkpoints encode and classify as the PyTorch reference does;
// their heads are ContextPooler and the classifier,
// classifier(act(dense(h_0))), with config.json's pooler_hidden_act.
func TestConformance(t *testing.T) {
	exp := readExpected(t)
	for _, tc := range []struct {
		dir string
		act string
	}{
		{"tiny-deberta-v2", bert.HeadGELU},
		{"tiny-deberta-v2-abs", bert.HeadTanh},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			e, err := Load(filepath.Join("testdata", tc.dir))
			if err != nil {
				t.Fatal(err)
			}
			fx := exp[tc.dir]
			fx.Texts = nil // TestTokenizer checks them
			encodertest.CheckHF(t, encodertest.HFCase{
				Enc: e, Fixture: fx, Head: e.Head(),
				Formula: encodertest.HFHead{Act: tc.act},
				Types:   e.Config().TypeVocabSize > 1,
			})
		})
	}
}

// TestTokenizer checks DeBERTa-v3's SentencePiece tokenizer.json against
// sentencepiece's own ids.
func TestTokenizer(t *testing.T) {
	exp := readExpected(t)
	e, err := Load(filepath.Join("testdata", "tiny-deberta-v2"))
	if err != nil {
		t.Fatal(err)
	}
	texts := exp["tiny-deberta-v2"].Texts
	if len(texts) == 0 {
		t.Fatal("no fixtures")
	}
	for _, tc := range texts {
		if got := e.Tokenize(tc.Text).IDs; !slices.Equal(got, tc.IDs) && !(len(got) == 0 && len(tc.IDs) == 0) {
			t.Errorf("Tokenize(%q) = %v, want %v", tc.Text, got, tc.IDs)
		}
	}
}

// TestInt8 runs the encoder with its Linears in int8, as model/quant
// does: the logits move, but little.
func TestInt8(t *testing.T) {
	exp := readExpected(t)
	e, err := Load(filepath.Join("testdata", "tiny-deberta-v2"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(e.Linears()), 4*e.Config().NumHiddenLayers; got != want {
		t.Fatalf("%d linears, want %d", got, want)
	}
	if err := nn.QuantizeInt8Linears(e.Linears()...); err != nil {
		t.Fatal(err)
	}
	p := exp["tiny-deberta-v2"].Pairs[0]
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	x, _ := e.EncodeBatch(tp, []encoder.Sequence{{IDs: p.IDs}})
	got := encodertest.HFHead{Act: bert.HeadGELU}.Logits(t, e.Head(), [][]float32{x.Value.Data[:e.Dim()]})
	if d := math.Abs(float64(got[0]) - p.Logits[0]); !(d < 0.05) {
		t.Errorf("int8 logit %v, float64 reference %v", got[0], p.Logits[0])
	}
}

// TestModelFile checks the encoder survives its spec and tensors, as a
// model file keeps it.
func TestModelFile(t *testing.T) {
	for _, dir := range fixtures {
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
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			a := slices.Clone(e.Encode(tp, e.Tokenize(s)).Value.Data)
			b := d.Encode(tp, d.Tokenize(s)).Value.Data
			if len(a) != e.Tokenize(s).Len()*e.Dim() || !slices.Equal(a, b) {
				t.Fatal("states differ after decoding")
			}
			spec := e.Spec()
			spec.Tokenizer = "hf-unigram:000000000000"
			if _, err := encoder.Decode(spec, e.Tensors()); err == nil || !strings.Contains(err.Error(), "corrupt") {
				t.Errorf("a wrong tokenizer identity: %v", err)
			}
			if _, err := encoder.Decode(e.Spec(), e.Tensors()[1:]); err == nil || !strings.Contains(err.Error(), "encoder values") {
				t.Errorf("a missing tensor: %v", err)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	base := `"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 10, "relative_attention": true`
	cls := `"architectures": ["DebertaV2ForSequenceClassification"], "model_type": "deberta-v2", `
	for _, tc := range []struct{ name, json, want string }{
		{"ok", `{` + cls + base + `, "pos_att_type": "p2c|c2p", "position_buckets": 4, "share_att_key": true}`, ""},
		{"list", `{` + cls + base + `, "pos_att_type": ["c2p", "p2c"], "position_buckets": 4, "share_att_key": true}`, ""},
		{"unknown architecture", `{"architectures": ["DebertaV2ForMaskedLM"], "model_type": "deberta-v2", ` + base + `}`, `architecture "DebertaV2ForMaskedLM"`},
		{"v1", `{"architectures": ["DebertaForSequenceClassification"], "model_type": "deberta", ` + base + `}`, `model_type "deberta"`},
		{"no model type", `{"architectures": ["DebertaV2Model"], ` + base + `}`, "model_type is missing"},
		{"conv", `{` + cls + base + `, "conv_kernel_size": 3}`, "conv_kernel_size"},
		{"absolute only", `{` + cls + `"vocab_size": 50, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16}`, "relative_attention"},
		{"p2p", `{` + cls + base + `, "pos_att_type": "p2c|c2p|p2p"}`, `pos_att_type "p2p"`},
		{"pos_att_type", `{` + cls + base + `, "pos_att_type": 3}`, "pos_att_type"},
		{"norm", `{` + cls + base + `, "norm_rel_ebd": "batch_norm"}`, "norm_rel_ebd"},
		{"pooler size", `{` + cls + base + `, "pooler_hidden_size": 16}`, "pooler_hidden_size"},
		{"pooler act", `{` + cls + base + `, "pooler_hidden_act": "swish"}`, "pooler_hidden_act"},
		{"head size", `{` + cls + base + `, "attention_head_size": 2}`, "attention_head_size"},
		{"heads", `{` + cls + `"vocab_size": 50, "hidden_size": 9, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "relative_attention": true}`, "num_attention_heads"},
		{"buckets", `{` + cls + base + `, "position_buckets": 8, "max_relative_positions": 4}`, "position_buckets"},
		{"hidden act", `{` + cls + base + `, "hidden_act": "swish"}`, "hidden_act"},
		{"labels", `{` + cls + base + `, "num_labels": 2, "id2label": {"0": "a"}}`, "num_labels"},
		{"missing size", `{` + cls + `"vocab_size": 50, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16, "relative_attention": true}`, "hidden_size is missing"},
		{"bad json", `{` + cls, "config.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.json))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !c.C2P || !c.P2C || !c.ShareAttKey || c.Span() != 4 || c.ScaleFactor() != 3 || !c.Classifier() || !c.PositionBiasedInput || c.PoolerAct != bert.HeadGELU || c.MaxRelativePositions != 10 {
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

// TestRelativeBucket checks the log buckets of DeBERTa-v3's usual
// configuration (position_buckets 256, max_relative_positions 512) at
// values PyTorch's make_log_bucket_position gives.
func TestRelativeBucket(t *testing.T) {
	for _, tc := range []struct{ d, want int }{
		{0, 0}, {1, 1}, {-5, -5}, {127, 127}, {128, 128}, {-128, -128}, {129, 129},
		{200, 169}, {-200, -169}, {511, 255}, {1000, 317}, {-1000, -317},
	} {
		if got := relativeBucket(tc.d, 256, 512); got != tc.want {
			t.Errorf("bucket(%d) = %d, want %d", tc.d, got, tc.want)
		}
	}
	if got := relativeBucket(-700, 0, 512); got != -700 {
		t.Errorf("without buckets: %d", got)
	}
	// The tables clamp to the 2·span rows.
	c := &Config{C2P: true, P2C: true, MaxRelativePositions: 2}
	c2p, p2c := c.relativeIndex(4)
	if want := []int{2, 1, 0, 0, 3, 2, 1, 0, 3, 3, 2, 1, 3, 3, 3, 2}; !slices.Equal(c2p, want) {
		t.Errorf("c2p %v, want %v", c2p, want)
	}
	// p2c reads −δ(j, i) = δ(i, j), since the buckets are odd: the same
	// rows as c2p.
	if !slices.Equal(p2c, c2p) {
		t.Errorf("p2c %v, want %v", p2c, c2p)
	}
}

// copyCheckpoint copies a tiny checkpoint into a temporary folder, with
// edit applied to its config.json.
func copyCheckpoint(t *testing.T, name string, edit func(cfg string) string) string {
	t.Helper()
	return encodertest.CopyCheckpoint(t, filepath.Join("testdata", name), []string{"config.json", "model.safetensors", "tokenizer.json"}, edit)
}

func TestShapeError(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"head", `"id2label": {`, `"num_labels": 2, "id2label": {"1": "LABEL_1", `, `"classifier.weight" has 1 rows but config.json has 2 labels`},
		{"intermediate", `"intermediate_size": 64`, `"intermediate_size": 48`, `"deberta.encoder.layer.0.intermediate.dense.weight" has shape [64 32], want [48 32]`},
		{"buckets", `"position_buckets": 8`, `"position_buckets": 6`, `"deberta.encoder.rel_embeddings.weight" has shape [16 32], want [12 32]`},
		{"own projections", `"share_att_key": true`, `"share_att_key": false`, `missing tensor "deberta.encoder.layer.0.attention.self.pos_key_proj.weight"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyCheckpoint(t, "tiny-deberta-v2", encodertest.Replace(t, tc.old, tc.new))
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, d := range fixtures {
		data, err := os.ReadFile(filepath.Join("testdata", d, "config.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"model_type": "deberta-v2", "vocab_size": 5, "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 4, "relative_attention": true, "pos_att_type": "c2p", "position_buckets": 2, "max_relative_positions": 3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if c.Span() < 1 || c.HiddenSize%c.NumAttentionHeads != 0 || c.EmbeddingSize < 1 || c.MaxPositionEmbeddings < 1 {
			t.Fatalf("accepted %+v", c)
		}
		// Every index a table holds must be a row of rel_embeddings.
		c2p, p2c := c.relativeIndex(5)
		for _, i := range append(c2p, p2c...) {
			if i < 0 || i >= 2*c.Span() {
				t.Fatalf("index %d outside %d rows (%+v)", i, 2*c.Span(), c)
			}
		}
	})
}
