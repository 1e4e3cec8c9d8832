// Package modernbert reads ModernBERT (Warner et al. 2024, "Smarter,
// Better, Faster, Longer") checkpoints in Hugging Face's layout
// (config.json, model.safetensors with HF's tensor names, tokenizer.json)
// as an encoder behind the encoder seam and, with its classification head,
// as a cross-encoder's scorer (e.g. gte-reranker-modernbert-base).
//
// ModernBERT is a pre-norm transformer without absolute positions or
// biases: rotary position embeddings in every layer, global attention in
// every global_attn_every_n_layers-th layer and a sliding window of
// local_attention tokens in the others, and a GeGLU feed-forward block.
// It runs on nn's ops (RotaryQKV, SelfAttentionQKV and
// SelfAttentionQKVWindow) and nn.Linear, so the same kernels, and the int8
// path (Linears), serve it. The tokenizer is byte-level BPE read from
// tokenizer.json (text/hftokenizer), whose template gives [CLS] q [SEP] a
// [SEP]. The classification head (head.dense, its activation, head.norm,
// then classifier, over [CLS] or the mean of the states) is handed to the
// cross-encoder as a bert.Head.
package modernbert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
const Kind = "modernbert"

// maxSeq bounds the sequences the encoder reads (ModernBERT's 8192).
const maxSeq = 8192

func init() {
	encoder.Register(Kind, decode)
	encoder.RegisterHF(encoder.HFFamily{
		Name:          Kind,
		ModelTypes:    []string{ModelType},
		Architectures: slices.Clone(architectures),
		Tokenizer:     "byte-level BPE (tokenizer.json)",
		Checkpoints:   []string{"Alibaba-NLP/gte-reranker-modernbert-base", "answerdotai/ModernBERT-base", "answerdotai/ModernBERT-large"},
		Open:          func(dir string) (encoder.PairEncoder, error) { return Load(dir) },
	})
}

// Encoder is a ModernBERT encoder: encoder.Encoder and encoder.PairEncoder
// over the tokenizer.json's tokens.
type Encoder struct {
	cfg      *Config
	cfgJSON  []byte
	m        *Model
	tok      *hftokenizer.Tokenizer
	head     *bert.Head
	identity string
	offset   int // where sequence A starts in the single template
}

// Load reads a checkpoint folder: config.json, model.safetensors and
// tokenizer.json.
func Load(dir string) (*Encoder, error) {
	cfgData, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("modernbert: %w", err)
	}
	cfg, err := ParseConfig(cfgData)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	tok, err := hftokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("modernbert: %s has no tokenizer.json", dir)
		}
		return nil, err
	}
	tensors, err := encoder.ReadHFSafetensors(dir, "modernbert")
	if err != nil {
		return nil, err
	}
	m, head, err := build(cfg, tensors)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	e, err := newEncoder(cfg, cfgData, m, tok)
	if err != nil {
		return nil, err
	}
	e.head = head
	return e, nil
}

func newEncoder(cfg *Config, cfgJSON []byte, m *Model, tok *hftokenizer.Tokenizer) (*Encoder, error) {
	if tok.VocabSize() > cfg.VocabSize {
		return nil, fmt.Errorf("modernbert: tokenizer.json has %d tokens, the model embeds %d (vocab_size)", tok.VocabSize(), cfg.VocabSize)
	}
	e := &Encoder{cfg: cfg, cfgJSON: cfgJSON, m: m, tok: tok}
	single, _ := tok.Single([]int{-1})
	e.offset = slices.Index(single, -1)
	if e.offset < 0 {
		return nil, errors.New("modernbert: tokenizer.json: the post-processor's single template has no sequence")
	}
	e.identity = encoder.WeightsIdentity(m.Params())
	return e, nil
}

// build maps HF's tensors onto the model, and the classification head onto
// a bert.Head. Every tensor is checked against config.json before the
// model is allocated.
func build(cfg *Config, list []safetensors.Tensor) (*Model, *bert.Head, error) {
	src := encoder.NewHFTensors("modernbert", list)
	if _, ok := src.ByName["model.embeddings.tok_embeddings.weight"]; ok {
		src.Prefix = "model."
	}
	h, in := cfg.HiddenSize, cfg.IntermediateSize
	nt := map[string][]float32{}
	nt["embeddings.tok_embeddings.weight"] = src.Get("embeddings.tok_embeddings.weight", cfg.VocabSize, h)
	norm := func(name string) {
		nt[name+".weight"] = src.Get(name+".weight", h)
		if cfg.NormBias {
			nt[name+".bias"] = src.Get(name+".bias", h)
		}
	}
	linear := func(name string, out, in int, bias bool) {
		if w := src.Get(name+".weight", out, in); w != nil {
			nt[name+".weight"] = encoder.Transpose(w, out, in)
		}
		if bias {
			nt[name+".bias"] = src.Get(name+".bias", out)
		}
	}
	norm("embeddings.norm")
	for i := 0; i < cfg.NumHiddenLayers && len(src.Errs) == 0; i++ {
		p := fmt.Sprintf("layers.%d.", i)
		if i > 0 {
			norm(p + "attn_norm")
		} else if src.Has(p + "attn_norm.weight") {
			return nil, nil, fmt.Errorf("modernbert: model.safetensors: tensor %q: layer 0 has no attn_norm (its input is the embeddings' norm)", src.Prefix+p+"attn_norm.weight")
		}
		// Wqkv's rows are the queries, keys and values, each heads × head
		// width: nn's fused [H, 3H] layout once transposed.
		linear(p+"attn.Wqkv", 3*h, h, cfg.AttentionBias)
		linear(p+"attn.Wo", h, h, cfg.AttentionBias)
		norm(p + "mlp_norm")
		linear(p+"mlp.Wi", 2*in, h, cfg.MLPBias)
		linear(p+"mlp.Wo", h, in, cfg.MLPBias)
	}
	norm("final_norm")
	if len(src.Errs) > 0 {
		return nil, nil, src.Errs[0]
	}
	head, err := readHead(cfg, src)
	if err != nil {
		return nil, nil, err
	}
	m := newModel(cfg, nn.NewRNG(0))
	var tensors []safetensors.Tensor
	for name, data := range nt {
		p := m.params.Get(name)
		if p == nil {
			return nil, nil, fmt.Errorf("modernbert: internal: no parameter %q", name)
		}
		tensors = append(tensors, safetensors.Tensor{Name: name, Shape: p.Shape(), Data: data})
	}
	if err := encoder.LoadParams(m.params, "", tensors); err != nil {
		return nil, nil, fmt.Errorf("modernbert: %w", err)
	}
	return m, head, nil
}

// readHead reads ModernBertForSequenceClassification's head (head.dense,
// head.norm and classifier, outside the "model." prefix) as a bert.Head:
// dense → classifier_activation → norm is the pooler, its activation and
// norm, and classifier_pooling "mean" pools the mean of the states.
func readHead(cfg *Config, src *encoder.HFTensors) (*bert.Head, error) {
	if !cfg.Classifier() {
		return nil, nil
	}
	h := cfg.HiddenSize
	top := &encoder.HFTensors{ByName: src.ByName, Family: "modernbert"}
	ct, ok := src.ByName["classifier.weight"]
	if !ok {
		return nil, fmt.Errorf(`modernbert: model.safetensors: missing tensor "classifier.weight" (a %s has a classification head)`, cfg.Architecture)
	}
	if len(ct.Shape) != 2 || ct.Shape[1] != h || ct.Shape[0] < 1 || ct.Shape[0] > maxLabels {
		return nil, fmt.Errorf(`modernbert: model.safetensors: tensor "classifier.weight" has shape %v, want [num_labels %d]`, ct.Shape, h)
	}
	n := ct.Shape[0]
	if cfg.NumLabels != 0 && n != cfg.NumLabels {
		return nil, fmt.Errorf(`modernbert: model.safetensors: tensor "classifier.weight" has %d rows but config.json has %d labels`, n, cfg.NumLabels)
	}
	tensor := func(data []float32, shape ...int) *nn.Tensor[float32] {
		if data == nil {
			return nil
		}
		if len(shape) == 2 { // a PyTorch [out, in] weight
			return nn.FromSlice(encoder.Transpose(data, shape[0], shape[1]), shape[1], shape[0])
		}
		return nn.FromSlice(slices.Clone(data), shape...)
	}
	hd := &bert.Head{Act: cfg.ClassifierAct, NormEps: cfg.NormEps, Mean: cfg.MeanPooling}
	hd.PoolerW = tensor(top.Get("head.dense.weight", h, h), h, h)
	if cfg.ClassifierB {
		hd.PoolerB = tensor(top.Get("head.dense.bias", h), h)
	}
	hd.NormW = tensor(top.Get("head.norm.weight", h), h)
	if cfg.NormBias {
		hd.NormB = tensor(top.Get("head.norm.bias", h), h)
	}
	hd.ClassifierW = tensor(top.Get("classifier.weight", n, h), n, h)
	hd.ClassifierB = tensor(top.Get("classifier.bias", n), n)
	if len(top.Errs) > 0 {
		return nil, top.Errs[0]
	}
	cfg.NumLabels = n
	return hd, nil
}

// Config returns the checkpoint's configuration.
func (e *Encoder) Config() *Config { return e.cfg }

// Model returns the model that runs the encoder.
func (e *Encoder) Model() *Model { return e.m }

// Tokenizer returns the tokenizer.
func (e *Encoder) Tokenizer() *hftokenizer.Tokenizer { return e.tok }

// Head returns the classification head (head.dense as the pooler, with
// its activation and head.norm; classifier), or nil for a bare encoder.
func (e *Encoder) Head() *bert.Head { return e.head }

// Linears returns the model's linear layers (Model.Linears), for int8
// inference.
func (e *Encoder) Linears() []*nn.Linear[float32] { return e.m.Linears() }

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

// MaxLen implements encoder.PairEncoder: max_position_embeddings, at most
// 8192.
func (e *Encoder) MaxLen() int { return min(e.cfg.MaxPositionEmbeddings, maxSeq) }

// Dim implements encoder.Encoder: hidden_size.
func (e *Encoder) Dim() int { return e.cfg.HiddenSize }

// Tokenize implements encoder.Encoder: the tokenizer's tokens, cut to
// leave room for the single template's special tokens.
func (e *Encoder) Tokenize(s string) encoder.Tokens {
	toks, ids := e.tok.Encode(s)
	n := min(len(ids), max(e.MaxLen()-e.tok.Added(false), 0))
	return encoder.Tokens{Text: toks[:n], IDs: ids[:n]}
}

// Encode implements encoder.Encoder: the states of the single template
// ([CLS] t [SEP]) without the special tokens' rows.
func (e *Encoder) Encode(tp *nn.Tape[float32], t encoder.Tokens) *nn.Var[float32] {
	body := e.clip(t.IDs)
	body = body[:min(len(body), max(e.MaxLen()-e.tok.Added(false), 0))]
	ids, _ := e.tok.Single(body)
	x, _ := e.m.ForwardBatch(tp, [][]int{ids})
	if len(body) == 0 {
		return tp.Rows(x, 0, 0)
	}
	return tp.Rows(x, e.offset, e.offset+len(body))
}

// clip maps ids outside the vocabulary to the unknown token (or 0, the
// byte-level vocabulary having none).
func (e *Encoder) clip(ids []int) []int {
	unk := max(e.tok.UnknownID(), 0)
	out := slices.Clone(ids)
	for i, id := range out {
		if id < 0 || id >= e.cfg.VocabSize {
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
// ([CLS] a [SEP] b [SEP]), truncated longest-first. ModernBERT embeds no
// token types, so none are given.
func (e *Encoder) Pair(a, b encoder.Tokens) encoder.Sequence {
	x, y := e.clip(a.IDs), e.clip(b.IDs)
	for len(x)+len(y) > max(e.MaxLen()-e.tok.Added(true), 0) && len(x)+len(y) > 0 {
		if len(x) > len(y) {
			x = x[:len(x)-1]
		} else {
			y = y[:len(y)-1]
		}
	}
	ids, _ := e.tok.Pair(x, y)
	return encoder.Sequence{IDs: ids}
}

// EncodeBatch implements encoder.PairEncoder: the states of the padded
// batch [B·T, H] and T. An empty sequence reads as the template of no text.
func (e *Encoder) EncodeBatch(tp *nn.Tape[float32], seqs []encoder.Sequence) (*nn.Var[float32], int) {
	empty, _ := e.tok.Single(nil)
	ids := make([][]int, len(seqs))
	for i, s := range seqs {
		ids[i] = e.clip(s.IDs)
		if len(ids[i]) == 0 {
			ids[i] = empty
		}
		ids[i] = ids[i][:min(len(ids[i]), e.MaxLen())]
	}
	return e.m.ForwardBatch(tp, ids)
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
	if want := paramCount(cfg); total != want {
		return nil, fmt.Errorf("the file holds %d encoder values, config.json needs %d", total, want)
	}
	m := newModel(cfg, nn.NewRNG(0))
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
