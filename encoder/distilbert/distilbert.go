// Package distilbert reads DistilBERT (Sanh et al. 2019) checkpoints in
// Hugging Face's layout (config.json, model.safetensors with HF's tensor
// names, vocab.txt or tokenizer.json) as an encoder behind the encoder
// seam and, with its classification head, as a cross-encoder's scorer.
//
// DistilBERT is BERT's post-LN transformer (Sanh et al. 2019, §3: "the
// student has the same general architecture as BERT") under other tensor
// and config names, without token-type embeddings and with the pooler
// removed. Its weights are mapped at load time onto encoder/bert's Model,
// so that the same kernels (and int8 inference) run it. Its
// classification head reads [CLS] through pre_classifier, ReLU and
// classifier: BERT's pooler and classifier with a ReLU for the tanh.
// Scaling the queries by 1/√d_h before the dot product, as DistilBERT's
// code does, is the same product as scaling the scores.
package distilbert

import (
	"fmt"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/safetensors"
)

// Kind is the encoder kind in model files.
const Kind = "distilbert"

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
		ModelTypes:    []string{"distilbert"},
		Architectures: []string{ArchModel, ArchSequenceClassifier},
		Tokenizer:     "WordPiece (vocab.txt or tokenizer.json)",
		Checkpoints:   []string{"distilbert-base-uncased-finetuned-sst-2-english", "sentence-transformers/msmarco-distilbert-base-v4", "sentence-transformers/multi-qa-distilbert-cos-v1"},
		Open:          func(dir string) (encoder.PairEncoder, error) { return Load(dir) },
	})
}

// Encoder is a DistilBERT encoder: encoder.Encoder and encoder.PairEncoder
// over WordPiece tokens ([CLS] a [SEP] b [SEP], without token types), run
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
	src := encoder.NewHFTensors("distilbert", list)
	if _, ok := src.ByName["distilbert.embeddings.word_embeddings.weight"]; ok {
		src.Prefix = "distilbert."
	}
	c := &cfg.BERT
	h, inter := c.HiddenSize, c.IntermediateSize
	nt := map[string][]float32{}
	nt["embeddings.word_embeddings.weight"] = src.Get("embeddings.word_embeddings.weight", c.VocabSize, h)
	nt["embeddings.position_embeddings.weight"] = src.Get("embeddings.position_embeddings.weight", c.MaxPositionEmbeddings, h)
	norm := func(hf, as string) { src.Norm(nt, hf, as, h) }
	linear := func(hf, as string, out, in int) { src.Linear(nt, hf, as, out, in, true) }
	norm("embeddings.LayerNorm", "embeddings.norm")
	for i := 0; i < c.NumHiddenLayers && len(src.Errs) == 0; i++ {
		p, as := fmt.Sprintf("transformer.layer.%d.", i), fmt.Sprintf("encoder.layer.%d.", i)
		// Query, key and value are one [H, 3H] projection in nn.
		src.QKV(nt, p+"attention.", [3]string{"q_lin", "k_lin", "v_lin"}, as+"attn.qkv", h)
		linear(p+"attention.out_lin", as+"attn.out", h, h)
		norm(p+"sa_layer_norm", as+"norm1")
		linear(p+"ffn.lin1", as+"ffn.in", inter, h)
		linear(p+"ffn.lin2", as+"ffn.out", h, inter)
		norm(p+"output_layer_norm", as+"norm2")
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
		return nil, nil, fmt.Errorf("distilbert: %w", err)
	}
	return m, head, nil
}

// readHead reads DistilBertForSequenceClassification's head
// (pre_classifier and classifier, outside the "distilbert." prefix): the
// pooler and classifier of a bert.Head with a ReLU between them. A bare
// model has none.
func readHead(cfg *Config, src *encoder.HFTensors) (*bert.Head, error) {
	if !cfg.Classifier() {
		return nil, nil
	}
	return bert.ReadHead(src, cfg.BERT.HiddenSize, &cfg.BERT.NumLabels, cfg.Architecture, "pre_classifier", "classifier", bert.HeadReLU)
}

var (
	_ encoder.Encoder[float32] = (*Encoder)(nil)
	_ encoder.PairEncoder      = (*Encoder)(nil)
)
