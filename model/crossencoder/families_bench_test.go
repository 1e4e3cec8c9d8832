package crossencoder

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/kernel"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// BenchmarkFamilies is as2's side of issue 60's speed table, run by
// scripts/peers/families.sh beside scripts/peers/families.py (PyTorch fp32
// and int8 dynamic quantisation on the same shapes): each Hugging Face
// family at its base shape, with random weights, read by LoadHF from a
// checkpoint folder written in a temporary directory, scoring 32 pairs of
// 128 tokens, float32 then int8 (nn.QuantizeInt8Linears over the Linears
// model/quant runs as int8). Weights are random: speed does not depend on
// them. The vocabularies of XLM-R (250002) and DeBERTa-v3 (128100) are cut
// to BERT's 30522: the embedding lookup is one row copy a token, not the
// cost, and the full tables would write a 0.4–0.8 GB checkpoint per run.
//
//	go test -run '^$' -bench Families -benchtime 2x ./model/crossencoder/
//	go test -run '^$' -bench Families/deberta -benchtime 2x ./model/crossencoder/
func BenchmarkFamilies(b *testing.B) {
	const pairs, length = 32, 128
	for _, s := range familyShapes {
		b.Run(s.name, func(b *testing.B) {
			dir := b.TempDir()
			if err := writeBaseCheckpoint(s, dir); err != nil {
				b.Fatal(err)
			}
			m, err := LoadHF(dir)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC() // the checkpoint's tensors, read and dropped
			seqs := randomPairs(pairs, length, s.vocab())
			if !s.types {
				for i := range seqs {
					clear(seqs[i].Types)
				}
			}
			benchFamily(b, m, seqs)
		})
	}
}

// benchFamily times m's inference over seqs, float then int8, reporting
// pairs/s. The int8 run is left out where the family's encoder exposes no
// Linears (model/quant's int8 path would quantise the pooler alone, and
// the run would be float32 under another name): it logs so.
func benchFamily(b *testing.B, m *Model, seqs []encoder.Sequence) {
	bs := inferBuckets(seqs, m.hyper.BatchTokens)
	b.Logf("kernels: %s", kernel.Describe())
	_, hasInt8 := m.enc.(interface{ Linears() []*nn.Linear[float32] })
	for _, int8 := range []bool{false, true} {
		name := "float"
		if int8 {
			if !hasInt8 {
				b.Logf("%T has no Linears: no int8 path, no int8 run", m.enc)
				break
			}
			name = "int8"
			if err := nn.QuantizeInt8Linears(m.Linears()...); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				m.infer(nn.NewTape[float32](nil, 0), seqs, bs)
			}
			b.ReportMetric(float64(len(seqs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// familyShape is a family's base shape, scaled up from its tiny test
// checkpoint: the tiny checkpoint gives the tensor names (so what LoadHF
// reads is what the family's real checkpoints hold), config sets the base
// sizes, and dims maps each tiny dimension to its base size.
type familyShape struct {
	name string
	// tiny is the tiny checkpoint folder, relative to encoder/.
	tiny string
	// config holds the config.json fields set to the base shape.
	config map[string]any
	// layersKey names the layer count in config.
	layersKey string
	// dims maps the tiny checkpoint's dimensions to the base ones; maxPos
	// is the rows of a position_embeddings table, whose tiny size equals
	// another dimension in some families.
	dims   map[int]int
	maxPos int
	// types: the family's pairs carry token types 0 and 1 (BERT-style
	// segment embeddings); the others are all type 0.
	types bool
	// drop names tensors of the tiny checkpoint the base shape has not
	// (ELECTRA base's embeddings are as wide as its layers: no projection).
	drop []string
}

func (s familyShape) vocab() int { return s.config["vocab_size"].(int) }

// familyVocab is the vocabulary every shape uses (BERT's): see
// BenchmarkFamilies.
const familyVocab = 30522

// familyShapes are the base shapes of issue 60 (hidden 768, 12 heads,
// FFN 3072 unless said). scripts/peers/families.py builds the same ones.
var familyShapes = []familyShape{
	{
		name: "xlmr", tiny: "roberta/testdata/tiny-xlm-roberta", layersKey: "num_hidden_layers",
		config: map[string]any{"vocab_size": familyVocab, "hidden_size": 768, "num_hidden_layers": 12,
			"num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 514},
		dims: map[int]int{1: 1, 32: 768, 64: 3072, 152: familyVocab}, maxPos: 514,
	},
	{
		name: "roberta", tiny: "roberta/testdata/tiny-roberta", layersKey: "num_hidden_layers",
		config: map[string]any{"vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12,
			"num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 514},
		dims: map[int]int{1: 1, 2: 2, 32: 768, 64: 3072, 411: 50265}, maxPos: 514,
	},
	{
		name: "distilbert", tiny: "distilbert/testdata/tiny-distilbert", layersKey: "n_layers",
		config: map[string]any{"vocab_size": familyVocab, "dim": 768, "n_layers": 6, "n_heads": 12,
			"hidden_dim": 3072, "max_position_embeddings": 512},
		dims: map[int]int{2: 2, 32: 768, 64: 3072, 182: familyVocab}, maxPos: 512,
	},
	{
		name: "electra", tiny: "electra/testdata/tiny-electra", layersKey: "num_hidden_layers",
		config: map[string]any{"vocab_size": familyVocab, "embedding_size": 768, "hidden_size": 768,
			"num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
			"max_position_embeddings": 512},
		dims: map[int]int{1: 1, 2: 2, 16: 768, 32: 768, 64: 3072, 182: familyVocab}, maxPos: 512, types: true,
		drop: []string{"embeddings_project."},
	},
	{
		// DeBERTa-v3 base: log-bucketed relative positions (256 buckets,
		// 512 positions), shared attention keys, c2p and p2c, no
		// absolute positions or token types; rel_embeddings has
		// 2 × position_buckets rows.
		name: "deberta", tiny: "deberta/testdata/tiny-deberta-v2", layersKey: "num_hidden_layers",
		config: map[string]any{"vocab_size": familyVocab, "hidden_size": 768, "num_hidden_layers": 12,
			"num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
			"position_buckets": 256, "max_relative_positions": 512, "pooler_hidden_size": 768},
		dims: map[int]int{1: 1, 16: 512, 32: 768, 64: 3072, 151: familyVocab},
	},
	{
		// ModernBERT base: 22 layers, GeGLU FFN of 1152 (Wi is 2 × 1152
		// wide, Wqkv 3 × 768: both 96 in the tiny checkpoint, both 2304
		// here), a local window of 128 tokens, global attention every
		// third layer, its own vocabulary of 50368.
		name: "modernbert", tiny: "modernbert/testdata/tiny-modernbert", layersKey: "num_hidden_layers",
		config: map[string]any{"vocab_size": 50368, "hidden_size": 768, "num_hidden_layers": 22,
			"num_attention_heads": 12, "intermediate_size": 1152, "max_position_embeddings": 8192,
			"local_attention": 128, "global_attn_every_n_layers": 3},
		dims: map[int]int{2: 2, 32: 768, 48: 1152, 96: 2304, 424: 50368},
	},
}

// layerIndex finds the layer number in a tensor name
// ("encoder.layer.3.", "transformer.layer.3.", "model.layers.3.").
var layerIndex = regexp.MustCompile(`\.layers?\.(\d+)\.`)

// writeBaseCheckpoint writes s's base-shaped checkpoint to dir: the tiny
// checkpoint's config.json with s.config set, its tokenizer files, and
// random float32 tensors of its names at the base sizes, layer 0 and the
// tiny checkpoint's last layer repeated for layers 1 and up (ModernBERT's
// layer 0 has no attention norm; its others do).
func writeBaseCheckpoint(s familyShape, dir string) error {
	src := filepath.Join("..", "..", "encoder", s.tiny)
	data, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		return fmt.Errorf("family %s: %w", s.name, err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("family %s: %s: %w", s.name, filepath.Join(src, "config.json"), err)
	}
	for k, v := range s.config {
		cfg[k] = v
	}
	if data, err = json.MarshalIndent(cfg, "", "  "); err != nil {
		return fmt.Errorf("family %s: config: %w", s.name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		return fmt.Errorf("family %s: %w", s.name, err)
	}
	for _, f := range []string{"tokenizer.json", "vocab.txt"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return fmt.Errorf("family %s: %w", s.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			return fmt.Errorf("family %s: %w", s.name, err)
		}
	}

	file, err := os.Open(filepath.Join(src, "model.safetensors"))
	if err != nil {
		return fmt.Errorf("family %s: %w", s.name, err)
	}
	tiny, _, err := safetensors.Read(file)
	file.Close()
	if err != nil {
		return fmt.Errorf("family %s: %s: %w", s.name, filepath.Join(src, "model.safetensors"), err)
	}
	tinyLayers := 0
	for _, t := range tiny {
		if m := layerIndex.FindStringSubmatch(t.Name); m != nil {
			i, _ := strconv.Atoi(m[1])
			tinyLayers = max(tinyLayers, i+1)
		}
	}
	layers, ok := s.config[s.layersKey].(int)
	if !ok || tinyLayers == 0 {
		return fmt.Errorf("family %s: no layer count %q or no layers in %s", s.name, s.layersKey, src)
	}
	rng := nn.NewRNG(3)
	var out []safetensors.Tensor
	add := func(t safetensors.Tensor, name string) error {
		for _, d := range s.drop {
			if strings.Contains(name, d) {
				return nil
			}
		}
		shape := make([]int, len(t.Shape))
		n := 1
		for j, d := range t.Shape {
			switch base, ok := s.dims[d]; {
			case strings.Contains(name, "position_embeddings") && j == 0:
				shape[j] = s.maxPos
			case ok:
				shape[j] = base
			default:
				return fmt.Errorf("family %s: %s has dimension %d, which the base shape does not map", s.name, t.Name, d)
			}
			n *= shape[j]
		}
		v := make([]float32, n)
		// Values of the usual sizes (no denormals, no overflow):
		// matrices scaled by 1/√fan-in, norm weights about 1.
		std, mean := 0.1, 0.0
		if len(shape) == 2 {
			std = 1 / math.Sqrt(float64(shape[1]))
		} else if strings.Contains(strings.ToLower(name), "norm") && strings.HasSuffix(name, ".weight") {
			mean = 1
		}
		for i := range v {
			v[i] = float32(mean + std*rng.NormFloat64())
		}
		out = append(out, safetensors.Tensor{Name: name, Shape: shape, Data: v})
		return nil
	}
	for _, t := range tiny {
		if layerIndex.MatchString(t.Name) {
			continue
		}
		if err := add(t, t.Name); err != nil {
			return err
		}
	}
	for i := 0; i < layers; i++ {
		from := strconv.Itoa(min(i, tinyLayers-1))
		for _, t := range tiny {
			m := layerIndex.FindStringSubmatchIndex(t.Name)
			if m == nil || t.Name[m[2]:m[3]] != from {
				continue
			}
			if err := add(t, t.Name[:m[2]]+strconv.Itoa(i)+t.Name[m[3]:]); err != nil {
				return err
			}
		}
	}
	path := filepath.Join(dir, "model.safetensors")
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("family %s: %w", s.name, err)
	}
	if err := safetensors.Write(f, out, map[string]string{"format": "pt"}); err != nil {
		f.Close()
		return fmt.Errorf("family %s: %s: %w", s.name, path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("family %s: %s: %w", s.name, path, err)
	}
	return nil
}
