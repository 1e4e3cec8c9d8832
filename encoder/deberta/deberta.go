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
	"fmt"
	"slices"

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
	tpl      *encoder.HFTemplate
	head     *bert.Head
	identity string
}

// Load reads a checkpoint folder: config.json, model.safetensors and
// tokenizer.json.
func Load(dir string) (*Encoder, error) {
	cfgData, cfg, err := encoder.ReadHFConfig(dir, "deberta", ParseConfig)
	if err != nil {
		return nil, err
	}
	tok, err := encoder.LoadHFTokenizer(dir, "deberta", " (the spm.model form is not read)")
	if err != nil {
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
	tpl, err := encoder.NewHFTemplate("deberta", tok, cfg.VocabSize, cfg.TypeVocabSize, min(cfg.MaxPositionEmbeddings, maxSeq))
	if err != nil {
		return nil, err
	}
	return &Encoder{cfg: cfg, cfgJSON: cfgJSON, m: m, tpl: tpl, identity: encoder.WeightsIdentity(m.Params())}, nil
}

// readHead reads DebertaV2ForSequenceClassification's ContextPooler
// (pooler.dense) and classifier, outside the "deberta." prefix, as a
// bert.Head whose activation is pooler_hidden_act; a bare model has none.
func readHead(cfg *Config, src *encoder.HFTensors) (*bert.Head, error) {
	if !cfg.Classifier() {
		return nil, nil
	}
	return bert.ReadHead(src, cfg.HiddenSize, &cfg.NumLabels, cfg.Architecture, "pooler.dense", "classifier", cfg.PoolerAct)
}

// Config returns the checkpoint's configuration.
func (e *Encoder) Config() *Config { return e.cfg }

// Model returns the model that runs the encoder.
func (e *Encoder) Model() *Model { return e.m }

// Tokenizer returns the tokenizer.
func (e *Encoder) Tokenizer() *hftokenizer.Tokenizer { return e.tpl.Tok }

// Head returns the classification head (ContextPooler's dense and
// activation as the pooler, then the classifier), or nil.
func (e *Encoder) Head() *bert.Head { return e.head }

// Linears returns the model's linear layers (Model.Linears), those int8
// inference runs as int8.
func (e *Encoder) Linears() []*nn.Linear[float32] { return e.m.Linears() }

// Spec implements encoder.Encoder.
func (e *Encoder) Spec() encoder.Spec {
	return encoder.HFSpec(Kind, e.cfgJSON, e.tpl.Tok, e.identity, e.Dim())
}

// MaxLen implements encoder.PairEncoder: max_position_embeddings, at most
// 512 (relative attention has no table to run past, but the checkpoints
// were trained to 512).
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
	x, _ := e.m.ForwardBatch(tp, [][]int{ids}, nil)
	return tp.Rows(x, lo, hi)
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
func (e *Encoder) Pair(a, b encoder.Tokens) encoder.Sequence { return e.tpl.Pair(a, b) }

// EncodeBatch implements encoder.PairEncoder: an empty sequence reads as
// the single template of no text, and token types are passed only where a
// sequence carries one per id.
func (e *Encoder) EncodeBatch(tp *nn.Tape[float32], seqs []encoder.Sequence) (*nn.Var[float32], int) {
	empty := e.tpl.Empty()
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
	m := newModel(cfg)
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
