// Package electra reads ELECTRA (Clark et al. 2020) checkpoints in Hugging
// Face's layout (config.json, model.safetensors with HF's tensor names,
// vocab.txt or tokenizer.json) as an encoder behind the encoder seam and,
// with its classification head, as a cross-encoder's scorer.
//
// ELECTRA's discriminator, the part that is fine-tuned, is BERT's post-LN
// transformer under electra.* names (Clark et al. 2020, §2: "the
// discriminator is a Transformer encoder" as BERT's), except that its
// embeddings may be narrower than its layers: small models shrink them to
// embedding_size, and a linear embeddings_project maps them, after their
// LayerNorm, to hidden_size (§3.2). Its weights are mapped at load time
// onto encoder/bert's Model, which has that projection, so that the same
// kernels (and int8 inference) run it. Its classification head reads
// [CLS] through dense, GELU and out_proj: BERT's pooler and classifier
// with a GELU for the tanh.
package electra

import (
	"fmt"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/safetensors"
)

// Kind is the encoder kind in model files.
const Kind = "electra"

func init() {
	encoder.Register(Kind, bert.DecodeMapped(Kind, func(data []byte) (*bert.Config, error) {
		c, err := ParseConfig(data)
		if err != nil {
			return nil, err
		}
		return &c.BERT, nil
	}))
	encoder.RegisterHF(encoder.HFFamily{
		Name:          Kind,
		ModelTypes:    []string{"electra"},
		Architectures: []string{ArchModel, ArchSequenceClassifier},
		Tokenizer:     "WordPiece (vocab.txt or tokenizer.json)",
		Checkpoints:   []string{"cross-encoder/ms-marco-electra-base", "cross-encoder/qnli-electra-base"},
		Open:          func(dir string) (encoder.PairEncoder, error) { return Load(dir) },
	})
}

// Encoder is an ELECTRA encoder: encoder.Encoder and encoder.PairEncoder
// over WordPiece tokens ([CLS] a [SEP] b [SEP], token types 0 then 1), run
// by encoder/bert's Model.
type Encoder struct {
	*bert.Mapped
	cfg *Config
}

// Config returns the checkpoint's configuration.
func (e *Encoder) Config() *Config { return e.cfg }

// Load reads a checkpoint folder: config.json, model.safetensors, the
// tokenizer (tokenizer.json or vocab.txt) and, for sentence-transformers
// models, modules.json and 1_Pooling/config.json.
func Load(dir string) (*Encoder, error) {
	me, cfg, err := bert.LoadMapped(dir, Kind, ParseConfig, build)
	if err != nil {
		return nil, err
	}
	return &Encoder{Mapped: me, cfg: cfg}, nil
}

// build maps HF's tensors onto a BERT model of the equivalent config, and
// the classification head onto a bert.Head. Every tensor is checked
// against config.json before the model is allocated.
func build(cfg *Config, list []safetensors.Tensor) (*bert.Model, *bert.Head, error) {
	src := encoder.NewHFTensors("electra", list)
	if _, ok := src.ByName["electra.embeddings.word_embeddings.weight"]; ok {
		src.Prefix = "electra."
	}
	c := &cfg.BERT
	h, inter, e := c.HiddenSize, c.IntermediateSize, c.EmbedWidth()
	nt := map[string][]float32{}
	nt["embeddings.word_embeddings.weight"] = src.Get("embeddings.word_embeddings.weight", c.VocabSize, e)
	nt["embeddings.position_embeddings.weight"] = src.Get("embeddings.position_embeddings.weight", c.MaxPositionEmbeddings, e)
	if c.TypeVocabSize > 0 {
		nt["embeddings.token_type_embeddings.weight"] = src.Get("embeddings.token_type_embeddings.weight", c.TypeVocabSize, e)
	}
	norm := func(hf, as string, n int) { src.Norm(nt, hf, as, n) }
	linear := func(hf, as string, out, in int) { src.Linear(nt, hf, as, out, in, true) }
	norm("embeddings.LayerNorm", "embeddings.norm", e)
	if e != h {
		linear("embeddings_project", "embeddings.project", h, e)
	} else if _, ok := src.ByName[src.Prefix+"embeddings_project.weight"]; ok {
		return nil, nil, fmt.Errorf("electra: model.safetensors: tensor %q projects embeddings of embedding_size %d to hidden_size %d, which are equal", src.Prefix+"embeddings_project.weight", e, h)
	}
	for i := 0; i < c.NumHiddenLayers && len(src.Errs) == 0; i++ {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		// Query, key and value are one [H, 3H] projection in nn.
		src.QKV(nt, p+"attention.self.", [3]string{"query", "key", "value"}, p+"attn.qkv", h)
		linear(p+"attention.output.dense", p+"attn.out", h, h)
		norm(p+"attention.output.LayerNorm", p+"norm1", h)
		linear(p+"intermediate.dense", p+"ffn.in", inter, h)
		linear(p+"output.dense", p+"ffn.out", h, inter)
		norm(p+"output.LayerNorm", p+"norm2", h)
	}
	if len(src.Errs) > 0 {
		return nil, nil, src.Errs[0]
	}
	head, err := readHead(cfg, src)
	if err != nil {
		return nil, nil, err
	}
	m, err := bert.FromTensors(*c, nt)
	if err != nil {
		return nil, nil, fmt.Errorf("electra: %w", err)
	}
	return m, head, nil
}

// readHead reads ElectraClassificationHead (classifier.dense and
// classifier.out_proj, outside the "electra." prefix): the pooler and
// classifier of a bert.Head with the exact (erf) GELU between them, as the
// public modeling_electra.py's head has whatever hidden_act is. A bare
// model has none.
func readHead(cfg *Config, src *encoder.HFTensors) (*bert.Head, error) {
	if !cfg.Classifier() {
		return nil, nil
	}
	return bert.ReadHead(src, cfg.BERT.HiddenSize, &cfg.BERT.NumLabels, cfg.Architecture, "classifier.dense", "classifier.out_proj", bert.HeadGELU)
}

var (
	_ encoder.Encoder[float32] = (*Encoder)(nil)
	_ encoder.PairEncoder      = (*Encoder)(nil)
)
