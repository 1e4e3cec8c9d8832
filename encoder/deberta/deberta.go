// Package deberta reads DeBERTa-v2 and DeBERTa-v3 checkpoints (He et al.
// 2021, DeBERTa; He et al. 2023, DeBERTa-v3) in Hugging Face's layout
// (config.json with model_type "deberta-v2", model.safetensors with HF's
// tensor names, tokenizer.json) as an encoder behind the encoder seam and,
// with its classification head, as a cross-encoder's scorer (e.g.
// mixedbread-ai/mxbai-rerank-base-v1).
//
// The layers are BERT's post-LN layers with disentangled attention (§3.1):
// each score adds to the content term the content-to-position and
// position-to-content terms of the relative distance, read from shared
// relative-position embeddings (log-bucketed in DeBERTa-v3) projected by
// each layer (nn's DisentangledAttention). The classification head,
// ContextPooler's dense and pooler_hidden_act over the first state then
// the classifier, is handed over as a bert.Head. What the package does not
// implement (the convolution layer of some v2 checkpoints, absolute-only
// attention) is rejected by ParseConfig with an error naming the field.
package deberta

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
const Kind = "deberta"

// maxSeq bounds the sequences the encoder reads (DeBERTa's 512).
const maxSeq = 512

func init() {
	encoder.Register(Kind, decode)
	encoder.RegisterHF(encoder.HFFamily{
		Name:          Kind,
		ModelTypes:    []string{ModelType},
		Architectures: slices.Clone(architectures),
		Tokenizer:     "SentencePiece Unigram (DeBERTa-v3), from tokenizer.json",
		Checkpoints:   []string{"mixedbread-ai/mxbai-rerank-base-v1", "mixedbread-ai/mxbai-rerank-large-v1", "microsoft/deberta-v3-base"},
		Open:          func(dir string) (encoder.PairEncoder, error) { return Load(dir) },
	})
}

// Encoder is a DeBERTa-v2/v3 encoder: encoder.Encoder and
// encoder.PairEncoder over the tokenizer.json's tokens.
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
		return nil, fmt.Errorf("deberta: %w", err)
	}
	cfg, err := ParseConfig(cfgData)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	tok, err := hftokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("deberta: %s has no tokenizer.json (the spm.model form is not read)", dir)
		}
		return nil, err
	}
	list, err := encoder.ReadHFSafetensors(dir, "deberta")
	if err != nil {
		return nil, err
	}
	src := encoder.NewHFTensors("deberta", list)
	if _, ok := src.ByName["deberta.embeddings.word_embeddings.weight"]; ok {
		src.Prefix = "deberta."
	}
	m, err := build(cfg, src)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	head, err := readHead(cfg, src)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	m.Config = *cfg
	e, err := newEncoder(cfg, cfgData, m, tok)
	if err != nil {
		return nil, err
	}
	e.head = head
	return e, nil
}

func newEncoder(cfg *Config, cfgJSON []byte, m *Model, tok *hftokenizer.Tokenizer) (*Encoder, error) {
	if tok.VocabSize() > cfg.VocabSize {
		return nil, fmt.Errorf("deberta: tokenizer.json has %d tokens, the model embeds %d (vocab_size)", tok.VocabSize(), cfg.VocabSize)
	}
	e := &Encoder{cfg: cfg, cfgJSON: cfgJSON, m: m, tok: tok}
	single, _ := tok.Single([]int{-1})
	e.offset = slices.Index(single, -1)
	if e.offset < 0 {
		return nil, errors.New("deberta: tokenizer.json: the post-processor's single template has no sequence")
	}
	e.identity = encoder.WeightsIdentity(m.Params())
	return e, nil
}

// readHead reads DebertaV2ForSequenceClassification's ContextPooler
// (pooler.dense) and classifier, outside the "deberta." prefix, as a
// bert.Head whose activation is pooler_hidden_act; a bare model has none.
func readHead(cfg *Config, src *encoder.HFTensors) (*bert.Head, error) {
	if !cfg.Classifier() {
		return nil, nil
	}
	h := cfg.HiddenSize
	ct, ok := src.ByName["classifier.weight"]
	if !ok {
		return nil, fmt.Errorf(`deberta: model.safetensors: missing tensor "classifier.weight" (a %s has a classification head)`, cfg.Architecture)
	}
	if len(ct.Shape) != 2 || ct.Shape[1] != h || ct.Shape[0] < 1 || ct.Shape[0] > maxLabels {
		return nil, fmt.Errorf(`deberta: model.safetensors: tensor "classifier.weight" has shape %v, want [num_labels %d]`, ct.Shape, h)
	}
	n := ct.Shape[0]
	if cfg.NumLabels != 0 && n != cfg.NumLabels {
		return nil, fmt.Errorf(`deberta: model.safetensors: tensor "classifier.weight" has %d rows but config.json has %d labels`, n, cfg.NumLabels)
	}
	top := &encoder.HFTensors{ByName: src.ByName, Family: "deberta"}
	pw, pb := top.Get("pooler.dense.weight", h, h), top.Get("pooler.dense.bias", h)
	cw, cb := top.Get("classifier.weight", n, h), top.Get("classifier.bias", n)
	if len(top.Errs) > 0 {
		return nil, top.Errs[0]
	}
	cfg.NumLabels = n
	return &bert.Head{
		PoolerW: nn.FromSlice(encoder.Transpose(pw, h, h), h, h), PoolerB: nn.FromSlice(slices.Clone(pb), h),
		ClassifierW: nn.FromSlice(encoder.Transpose(cw, n, h), h, n), ClassifierB: nn.FromSlice(slices.Clone(cb), n),
		Act: cfg.PoolerAct,
	}, nil
}

// Config returns the checkpoint's configuration.
func (e *Encoder) Config() *Config { return e.cfg }

// Model returns the model that runs the encoder.
func (e *Encoder) Model() *Model { return e.m }

// Tokenizer returns the tokenizer.
func (e *Encoder) Tokenizer() *hftokenizer.Tokenizer { return e.tok }

// Head returns the classification head (ContextPooler's dense and
// activation as the pooler, then the classifier), or nil.
func (e *Encoder) Head() *bert.Head { return e.head }

// Linears returns the model's linear layers (Model.Linears), those int8
// inference runs as int8.
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
// 512 (relative attention has no table to run past, but the checkpoints
// were trained to 512).
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
	x, _ := e.m.ForwardBatch(tp, [][]int{ids}, nil)
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
// ([CLS] a [SEP] b [SEP]), truncated longest-first. Token types are given
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
	if e.cfg.TypeVocabSize <= 1 || slices.Max(append(types, 0)) >= e.cfg.TypeVocabSize {
		types = nil
	}
	return encoder.Sequence{IDs: ids, Types: types}
}

// EncodeBatch implements encoder.PairEncoder: an empty sequence reads as
// the single template of no text, and token types are passed only where a
// sequence carries one per id.
func (e *Encoder) EncodeBatch(tp *nn.Tape[float32], seqs []encoder.Sequence) (*nn.Var[float32], int) {
	empty, _ := e.tok.Single(nil)
	ids := make([][]int, len(seqs))
	var types [][]int
	for i, s := range seqs {
		ids[i] = s.IDs
		if len(ids[i]) == 0 {
			ids[i] = empty
		}
		if s.Types != nil && len(s.Types) == len(ids[i]) {
			if types == nil {
				types = make([][]int, len(seqs))
			}
			types[i] = s.Types
		}
	}
	return e.m.ForwardBatch(tp, ids, types)
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
	m := newModel(cfg)
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
