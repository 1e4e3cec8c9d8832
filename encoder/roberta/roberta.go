// Package roberta reads RoBERTa (Liu et al. 2019) and XLM-RoBERTa (Conneau
// et al. 2020) checkpoints in Hugging Face's layout (config.json,
// model.safetensors with HF's tensor names, tokenizer.json) as an encoder
// behind the encoder seam and, with its classification head, as a
// cross-encoder's scorer.
//
// The family is BERT's post-LN transformer with three differences, all
// handled at load time so that the same kernels run it as BERT
// (encoder/bert's Model): positions count from pad_token_id + 1 (the rows
// below are dropped from the position table), there is one token type,
// and the classification head reads <s> through dense, tanh and out_proj,
// which is BERT's pooler and classifier under other names. One package
// serves both families because they differ only in their tokenizer
// (byte-level BPE or SentencePiece Unigram), which tokenizer.json declares.
package roberta

import (
	"fmt"
	"maps"
	"slices"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text/hftokenizer"
)

// Kind is the encoder kind in model files.
const Kind = "roberta"

// maxSeq bounds the sequences the encoder reads (RoBERTa's 512).
const maxSeq = 512

func init() {
	encoder.Register(Kind, decode)
	f := encoder.HFFamily{
		Name:        Kind,
		Tokenizer:   "byte-level BPE (RoBERTa) or SentencePiece Unigram (XLM-R), from tokenizer.json",
		Checkpoints: []string{"BAAI/bge-reranker-base", "BAAI/bge-reranker-large", "BAAI/bge-reranker-v2-m3", "cross-encoder/stsb-roberta-base", "cross-encoder/quora-distilroberta-base", "intfloat/multilingual-e5-base"},
		Open:        func(dir string) (encoder.PairEncoder, error) { return Load(dir) },
	}
	for _, t := range slices.Sorted(maps.Keys(architectures)) {
		f.ModelTypes = append(f.ModelTypes, t)
		f.Architectures = append(f.Architectures, architectures[t]...)
	}
	encoder.RegisterHF(f)
}

// Encoder is a RoBERTa-family encoder: encoder.Encoder and
// encoder.PairEncoder over the tokenizer.json's tokens.
type Encoder struct {
	cfg      *Config
	cfgJSON  []byte
	m        *bert.Model
	tpl      *encoder.HFTemplate
	head     *bert.Head
	identity string
}

// Load reads a checkpoint folder: config.json, model.safetensors,
// tokenizer.json and, for sentence-transformers models, modules.json and
// 1_Pooling/config.json.
func Load(dir string) (*Encoder, error) {
	cfgData, cfg, err := encoder.ReadHFConfig(dir, "roberta", ParseConfig)
	if err != nil {
		return nil, err
	}
	tok, err := encoder.LoadHFTokenizer(dir, "roberta", " (the vocab.json/merges.txt and sentencepiece.bpe.model forms are not read)")
	if err != nil {
		return nil, err
	}
	tensors, err := encoder.ReadHFSafetensors(dir, "roberta")
	if err != nil {
		return nil, err
	}
	m, head, err := build(cfg, tensors)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	if err := m.ReadPooling(dir); err != nil {
		return nil, err
	}
	e, err := newEncoder(cfg, cfgData, m, tok)
	if err != nil {
		return nil, err
	}
	e.head = head
	return e, nil
}

func newEncoder(cfg *Config, cfgJSON []byte, m *bert.Model, tok *hftokenizer.Tokenizer) (*Encoder, error) {
	tpl, err := encoder.NewHFTemplate("roberta", tok, cfg.BERT.VocabSize, cfg.BERT.TypeVocabSize, min(cfg.BERT.MaxPositionEmbeddings, maxSeq))
	if err != nil {
		return nil, err
	}
	return &Encoder{cfg: cfg, cfgJSON: cfgJSON, m: m, tpl: tpl, identity: encoder.WeightsIdentity(m.Params())}, nil
}

// build maps HF's tensors onto a BERT model of the equivalent config, and
// the classification head (or pooler) onto a bert.Head. Every tensor is
// checked against config.json before the model is allocated.
func build(cfg *Config, list []safetensors.Tensor) (*bert.Model, *bert.Head, error) {
	src := encoder.NewHFTensors("roberta", list)
	if _, ok := src.ByName["roberta.embeddings.word_embeddings.weight"]; ok {
		src.Prefix = "roberta."
	}
	c := &cfg.BERT
	h, inter := c.HiddenSize, c.IntermediateSize
	nt := map[string][]float32{}
	nt["embeddings.word_embeddings.weight"] = src.Get("embeddings.word_embeddings.weight", c.VocabSize, h)
	if pos := src.Get("embeddings.position_embeddings.weight", c.MaxPositionEmbeddings+cfg.PaddingIdx+1, h); pos != nil {
		nt["embeddings.position_embeddings.weight"] = pos[(cfg.PaddingIdx+1)*h:]
	}
	nt["embeddings.token_type_embeddings.weight"] = src.Get("embeddings.token_type_embeddings.weight", c.TypeVocabSize, h)
	norm := func(hf, as string) { src.Norm(nt, hf, as, h) }
	linear := func(hf, as string, out, in int) { src.Linear(nt, hf, as, out, in, true) }
	norm("embeddings.LayerNorm", "embeddings.norm")
	for i := 0; i < c.NumHiddenLayers && len(src.Errs) == 0; i++ {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		// Query, key and value are one [H, 3H] projection in nn.
		src.QKV(nt, p+"attention.self.", [3]string{"query", "key", "value"}, p+"attn.qkv", h)
		linear(p+"attention.output.dense", p+"attn.out", h, h)
		norm(p+"attention.output.LayerNorm", p+"norm1")
		linear(p+"intermediate.dense", p+"ffn.in", inter, h)
		linear(p+"output.dense", p+"ffn.out", h, inter)
		norm(p+"output.LayerNorm", p+"norm2")
	}
	head, err := readHead(cfg, src)
	if err != nil {
		return nil, nil, err
	}
	if len(src.Errs) > 0 {
		return nil, nil, src.Errs[0]
	}
	m, err := bert.New(*c, nn.NewRNG(0)) // every value is overwritten
	if err != nil {
		return nil, nil, fmt.Errorf("roberta: %w", err)
	}
	var tensors []safetensors.Tensor
	for name, data := range nt {
		p := m.Params().Get(name)
		if p == nil {
			return nil, nil, fmt.Errorf("roberta: internal: no parameter %q", name)
		}
		tensors = append(tensors, safetensors.Tensor{Name: name, Shape: p.Shape(), Data: data})
	}
	if err := encoder.LoadParams(m.Params(), "", tensors); err != nil {
		return nil, nil, fmt.Errorf("roberta: %w", err)
	}
	return m, head, nil
}

// readHead reads RobertaClassificationHead (classifier.dense and
// classifier.out_proj, outside the "roberta." prefix) or, for a bare
// model, BERT's pooler when the checkpoint kept one.
func readHead(cfg *Config, src *encoder.HFTensors) (*bert.Head, error) {
	h := cfg.BERT.HiddenSize
	tensor := func(data []float32, out, in int) *nn.Tensor[float32] {
		return nn.FromSlice(encoder.Transpose(data, out, in), in, out)
	}
	if !cfg.Classifier() {
		if _, ok := src.ByName[src.Prefix+"pooler.dense.weight"]; !ok {
			return nil, nil
		}
		w, b := src.Get("pooler.dense.weight", h, h), src.Get("pooler.dense.bias", h)
		if w == nil || b == nil {
			return nil, nil
		}
		return &bert.Head{PoolerW: tensor(w, h, h), PoolerB: nn.FromSlice(slices.Clone(b), h)}, nil
	}
	// The dense layer's tanh is BERT's pooler's, Head's default.
	return bert.ReadHead(src, h, &cfg.BERT.NumLabels, cfg.Architecture, "classifier.dense", "classifier.out_proj", "")
}

// Config returns the checkpoint's configuration.
func (e *Encoder) Config() *Config { return e.cfg }

// Model returns the BERT-shaped model that runs the encoder.
func (e *Encoder) Model() *bert.Model { return e.m }

// Linears returns the linear layers int8 inference runs as int8 (package
// model/quant): the BERT layers'.
func (e *Encoder) Linears() []*nn.Linear[float32] { return e.m.Linears() }

// Tokenizer returns the tokenizer.
func (e *Encoder) Tokenizer() *hftokenizer.Tokenizer { return e.tpl.Tok }

// Head returns the classification head as BERT's pooler and classifier
// (dense+tanh is the pooler, out_proj the classifier), or nil.
func (e *Encoder) Head() *bert.Head { return e.head }

// Spec implements encoder.Encoder.
func (e *Encoder) Spec() encoder.Spec {
	return encoder.HFSpec(Kind, e.cfgJSON, e.tpl.Tok, e.identity, e.Dim())
}

// MaxLen implements encoder.PairEncoder: the positions after the padding
// offset, at most 512.
func (e *Encoder) MaxLen() int { return e.tpl.MaxLen }

// Dim implements encoder.Encoder: hidden_size.
func (e *Encoder) Dim() int { return e.cfg.BERT.HiddenSize }

// Tokenize implements encoder.Encoder: the tokenizer's tokens, cut to
// leave room for the single template's special tokens.
func (e *Encoder) Tokenize(s string) encoder.Tokens { return e.tpl.Tokenize(s) }

// Encode implements encoder.Encoder: the states of the single template
// (<s> t </s>) without the special tokens' rows.
func (e *Encoder) Encode(tp *nn.Tape[float32], t encoder.Tokens) *nn.Var[float32] {
	ids, lo, hi := e.tpl.Single(t.IDs)
	x := e.m.Forward(tp, ids, nil)
	return tp.Rows(x, lo, hi)
}

// Params implements encoder.Encoder.
func (e *Encoder) Params() *nn.Params[float32] { return e.m.Params() }

// Tensors implements encoder.Encoder.
func (e *Encoder) Tensors() []safetensors.Tensor {
	return encoder.ParamTensors(encoder.TensorPrefix, e.m.Params())
}

// Pair implements encoder.PairEncoder: the tokenizer's pair template
// (<s> a </s></s> b </s>), truncated longest-first. Token types are given
// only when the model embeds more than one.
func (e *Encoder) Pair(a, b encoder.Tokens) encoder.Sequence { return e.tpl.Pair(a, b) }

// EncodeBatch implements encoder.PairEncoder.
func (e *Encoder) EncodeBatch(tp *nn.Tape[float32], seqs []encoder.Sequence) (*nn.Var[float32], int) {
	empty := e.tpl.Empty()
	return e.m.ForwardSequences(tp, seqs, empty)
}

// decode rebuilds an encoder from a model file.
func decode(spec encoder.Spec, tensors []safetensors.Tensor) (encoder.Encoder[float32], error) {
	cfgJSON, tok, err := encoder.ParseHFSpec(spec)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(cfgJSON)
	if err != nil {
		return nil, err
	}
	// Every value the configuration needs must be in the file before
	// anything of its size is allocated.
	total := encoder.EncoderValues(tensors)
	c := &cfg.BERT
	h, in := c.HiddenSize, c.IntermediateSize
	want := (c.VocabSize+c.MaxPositionEmbeddings+c.TypeVocabSize)*h + 2*h + c.NumHiddenLayers*(4*h*h+2*h*in+in+9*h)
	if total != want {
		return nil, fmt.Errorf("the file holds %d encoder values, config.json needs %d", total, want)
	}
	m, err := bert.New(*c, nn.NewRNG(0))
	if err != nil {
		return nil, err
	}
	if err := encoder.LoadParams(m.Params(), encoder.TensorPrefix, tensors); err != nil {
		return nil, err
	}
	e, err := newEncoder(cfg, cfgJSON, m, tok)
	if err != nil {
		return nil, err
	}
	e.identity = spec.Identity
	return e, nil
}

var (
	_ encoder.Encoder[float32] = (*Encoder)(nil)
	_ encoder.PairEncoder      = (*Encoder)(nil)
)
