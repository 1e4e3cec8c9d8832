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
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
	tok      *hftokenizer.Tokenizer
	head     *bert.Head
	identity string
	offset   int // where sequence A starts in the single template
}

// Load reads a checkpoint folder: config.json, model.safetensors,
// tokenizer.json and, for sentence-transformers models, modules.json and
// 1_Pooling/config.json.
func Load(dir string) (*Encoder, error) {
	cfgData, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("roberta: %w", err)
	}
	cfg, err := ParseConfig(cfgData)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	tok, err := hftokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("roberta: %s has no tokenizer.json (the vocab.json/merges.txt and sentencepiece.bpe.model forms are not read)", dir)
		}
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
	if tok.VocabSize() > cfg.BERT.VocabSize {
		return nil, fmt.Errorf("roberta: tokenizer.json has %d tokens, the model embeds %d (vocab_size)", tok.VocabSize(), cfg.BERT.VocabSize)
	}
	e := &Encoder{cfg: cfg, cfgJSON: cfgJSON, m: m, tok: tok}
	single, _ := tok.Single([]int{-1})
	e.offset = slices.Index(single, -1)
	if e.offset < 0 {
		return nil, errors.New("roberta: tokenizer.json: the post-processor's single template has no sequence")
	}
	e.identity = encoder.WeightsIdentity(m.Params())
	return e, nil
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
	norm := func(hf, as string) {
		nt[as+".gain"] = src.Get(hf+".weight", h)
		nt[as+".bias"] = src.Get(hf+".bias", h)
	}
	linear := func(hf, as string, out, in int) {
		if w := src.Get(hf+".weight", out, in); w != nil {
			nt[as+".weight"] = encoder.Transpose(w, out, in)
		}
		nt[as+".bias"] = src.Get(hf+".bias", out)
	}
	norm("embeddings.LayerNorm", "embeddings.norm")
	for i := 0; i < c.NumHiddenLayers && len(src.Errs) == 0; i++ {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		// Query, key and value are one [H, 3H] projection in nn.
		qkv, qkvB := make([]float32, 0, 3*h*h), make([]float32, 0, 3*h)
		for _, n := range []string{"query", "key", "value"} {
			w, b := src.Get(p+"attention.self."+n+".weight", h, h), src.Get(p+"attention.self."+n+".bias", h)
			qkv, qkvB = append(qkv, w...), append(qkvB, b...)
		}
		if len(src.Errs) == 0 {
			nt[p+"attn.qkv.weight"], nt[p+"attn.qkv.bias"] = encoder.Transpose(qkv, 3*h, h), qkvB
		}
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
	top := &encoder.HFTensors{ByName: src.ByName, Family: "roberta"}
	ct, ok := src.ByName["classifier.out_proj.weight"]
	if !ok {
		return nil, fmt.Errorf(`roberta: model.safetensors: missing tensor "classifier.out_proj.weight" (a %s has a classification head)`, cfg.Architecture)
	}
	if len(ct.Shape) != 2 || ct.Shape[1] != h || ct.Shape[0] < 1 || ct.Shape[0] > 1<<16 {
		return nil, fmt.Errorf(`roberta: model.safetensors: tensor "classifier.out_proj.weight" has shape %v, want [num_labels %d]`, ct.Shape, h)
	}
	n := ct.Shape[0]
	if cfg.BERT.NumLabels != 0 && n != cfg.BERT.NumLabels {
		return nil, fmt.Errorf(`roberta: model.safetensors: tensor "classifier.out_proj.weight" has %d rows but config.json has %d labels`, n, cfg.BERT.NumLabels)
	}
	dw, db := top.Get("classifier.dense.weight", h, h), top.Get("classifier.dense.bias", h)
	ow, ob := top.Get("classifier.out_proj.weight", n, h), top.Get("classifier.out_proj.bias", n)
	if len(top.Errs) > 0 {
		return nil, top.Errs[0]
	}
	cfg.BERT.NumLabels = n
	return &bert.Head{
		PoolerW: tensor(dw, h, h), PoolerB: nn.FromSlice(slices.Clone(db), h),
		ClassifierW: tensor(ow, n, h), ClassifierB: nn.FromSlice(slices.Clone(ob), n),
	}, nil
}

// Config returns the checkpoint's configuration.
func (e *Encoder) Config() *Config { return e.cfg }

// Model returns the BERT-shaped model that runs the encoder.
func (e *Encoder) Model() *bert.Model { return e.m }

// Tokenizer returns the tokenizer.
func (e *Encoder) Tokenizer() *hftokenizer.Tokenizer { return e.tok }

// Head returns the classification head as BERT's pooler and classifier
// (dense+tanh is the pooler, out_proj the classifier), or nil.
func (e *Encoder) Head() *bert.Head { return e.head }

// specConfig is Spec.Config: config.json and tokenizer.json as they were
// (the tokenizer's bytes are its identity).
type specConfig struct {
	Config    json.RawMessage `json:"config"`
	Tokenizer []byte          `json:"tokenizer"`
}

// Spec implements encoder.Encoder.
func (e *Encoder) Spec() encoder.Spec {
	js, _ := json.Marshal(specConfig{Config: e.cfgJSON, Tokenizer: e.tok.JSON()})
	return encoder.Spec{Kind: Kind, Tokenizer: e.tok.Identity(), Identity: e.identity, Dim: e.Dim(), Config: js}
}

// MaxLen implements encoder.PairEncoder: the positions after the padding
// offset, at most 512.
func (e *Encoder) MaxLen() int { return min(e.cfg.BERT.MaxPositionEmbeddings, maxSeq) }

// Dim implements encoder.Encoder: hidden_size.
func (e *Encoder) Dim() int { return e.cfg.BERT.HiddenSize }

// Tokenize implements encoder.Encoder: the tokenizer's tokens, cut to
// leave room for the single template's special tokens.
func (e *Encoder) Tokenize(s string) encoder.Tokens {
	toks, ids := e.tok.Encode(s)
	n := min(len(ids), max(e.MaxLen()-e.tok.Added(false), 0))
	return encoder.Tokens{Text: toks[:n], IDs: ids[:n]}
}

// Encode implements encoder.Encoder: the states of the single template
// (<s> t </s>) without the special tokens' rows.
func (e *Encoder) Encode(tp *nn.Tape[float32], t encoder.Tokens) *nn.Var[float32] {
	body := e.clip(t.IDs)
	body = body[:min(len(body), max(e.MaxLen()-e.tok.Added(false), 0))]
	ids, _ := e.tok.Single(body)
	x := e.m.Forward(tp, ids, nil)
	if len(body) == 0 {
		return tp.Rows(x, 0, 0)
	}
	return tp.Rows(x, e.offset, e.offset+len(body))
}

// clip maps ids outside the vocabulary to the unknown token.
func (e *Encoder) clip(ids []int) []int {
	unk := max(e.tok.UnknownID(), 0)
	out := slices.Clone(ids)
	for i, id := range out {
		if id < 0 || id >= e.cfg.BERT.VocabSize {
			out[i] = unk
		}
	}
	return out
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
func (e *Encoder) Pair(a, b encoder.Tokens) encoder.Sequence {
	x, y := e.clip(a.IDs), e.clip(b.IDs)
	for len(x)+len(y) > max(e.MaxLen()-e.tok.Added(true), 0) && len(x)+len(y) > 0 {
		if len(x) > len(y) {
			x = x[:len(x)-1]
		} else {
			y = y[:len(y)-1]
		}
	}
	ids, types := e.tok.Pair(x, y)
	if e.cfg.BERT.TypeVocabSize <= 1 || slices.Max(append(types, 0)) >= e.cfg.BERT.TypeVocabSize {
		types = nil
	}
	return encoder.Sequence{IDs: ids, Types: types}
}

// EncodeBatch implements encoder.PairEncoder.
func (e *Encoder) EncodeBatch(tp *nn.Tape[float32], seqs []encoder.Sequence) (*nn.Var[float32], int) {
	empty, _ := e.tok.Single(nil)
	return e.m.ForwardSequences(tp, seqs, empty)
}

// decode rebuilds an encoder from a model file.
func decode(spec encoder.Spec, tensors []safetensors.Tensor) (encoder.Encoder[float32], error) {
	var sc specConfig
	if err := json.Unmarshal(spec.Config, &sc); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	cfg, err := ParseConfig(sc.Config)
	if err != nil {
		return nil, err
	}
	tok, err := hftokenizer.Parse(sc.Tokenizer)
	if err != nil {
		return nil, err
	}
	if tok.Identity() != spec.Tokenizer {
		return nil, fmt.Errorf("the tokenizer is %s, the configuration says %s: the file is corrupt", tok.Identity(), spec.Tokenizer)
	}
	// Every value the configuration needs must be in the file before
	// anything of its size is allocated.
	total := 0
	for _, t := range tensors {
		if strings.HasPrefix(t.Name, encoder.TensorPrefix) {
			total += len(t.Data)
		}
	}
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
	e, err := newEncoder(cfg, sc.Config, m, tok)
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
