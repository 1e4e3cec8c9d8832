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
	"fmt"
	"slices"

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
	tpl      *encoder.HFTemplate
	head     *bert.Head
	identity string
}

// Load reads a checkpoint folder: config.json, model.safetensors and
// tokenizer.json.
func Load(dir string) (*Encoder, error) {
	cfgData, cfg, err := encoder.ReadHFConfig(dir, "modernbert", ParseConfig)
	if err != nil {
		return nil, err
	}
	tok, err := encoder.LoadHFTokenizer(dir, "modernbert", "")
	if err != nil {
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
	tpl, err := encoder.NewHFTemplate("modernbert", tok, cfg.VocabSize, 0, min(cfg.MaxPositionEmbeddings, maxSeq))
	if err != nil {
		return nil, err
	}
	return &Encoder{cfg: cfg, cfgJSON: cfgJSON, m: m, tpl: tpl, identity: encoder.WeightsIdentity(m.Params())}, nil
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
	n, err := bert.HeadLabels(src, h, cfg.NumLabels, cfg.Architecture, "classifier.weight")
	if err != nil {
		return nil, err
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
func (e *Encoder) Tokenizer() *hftokenizer.Tokenizer { return e.tpl.Tok }

// Head returns the classification head (head.dense as the pooler, with
// its activation and head.norm; classifier), or nil for a bare encoder.
func (e *Encoder) Head() *bert.Head { return e.head }

// Linears returns the model's linear layers (Model.Linears), for int8
// inference.
func (e *Encoder) Linears() []*nn.Linear[float32] { return e.m.Linears() }

// Spec implements encoder.Encoder.
func (e *Encoder) Spec() encoder.Spec {
	return encoder.HFSpec(Kind, e.cfgJSON, e.tpl.Tok, e.identity, e.Dim())
}

// MaxLen implements encoder.PairEncoder: max_position_embeddings, at most
// 8192.
func (e *Encoder) MaxLen() int { return e.tpl.MaxLen }

// Dim implements encoder.Encoder: hidden_size.
func (e *Encoder) Dim() int { return e.cfg.HiddenSize }

// Tokenize implements encoder.Encoder: the tokenizer's tokens, cut to
// leave room for the single template's special tokens.
func (e *Encoder) Tokenize(s string) encoder.Tokens { return e.tpl.Tokenize(s) }

// Encode implements encoder.Encoder: the states of the single template
// ([CLS] t [SEP]) without the special tokens' rows.
func (e *Encoder) Encode(tp *nn.Tape[float32], t encoder.Tokens) *nn.Var[float32] {
	ids, lo, hi := e.tpl.Single(t.IDs)
	x, _ := e.m.ForwardBatch(tp, [][]int{ids})
	return tp.Rows(x, lo, hi)
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
func (e *Encoder) Pair(a, b encoder.Tokens) encoder.Sequence { return e.tpl.Pair(a, b) }

// EncodeBatch implements encoder.PairEncoder: the states of the padded
// batch [B·T, H] and T. An empty sequence reads as the template of no text.
func (e *Encoder) EncodeBatch(tp *nn.Tape[float32], seqs []encoder.Sequence) (*nn.Var[float32], int) {
	empty := e.tpl.Empty()
	ids := make([][]int, len(seqs))
	for i, s := range seqs {
		ids[i] = e.tpl.Clip(s.IDs)
		if len(ids[i]) == 0 {
			ids[i] = empty
		}
		ids[i] = ids[i][:min(len(ids[i]), e.MaxLen())]
	}
	return e.m.ForwardBatch(tp, ids)
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
	if want := paramCount(cfg); total != want {
		return nil, fmt.Errorf("the file holds %d encoder values, config.json needs %d", total, want)
	}
	m := newModel(cfg, nn.NewRNG(0))
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
