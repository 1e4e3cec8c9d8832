package bert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text/wordpiece"
)

// Kind is the BERT encoder kind in model files.
const Kind = "bert"

// maxSeq bounds the sequences the encoder reads (BERT's 512).
const maxSeq = 512

func init() {
	encoder.Register(Kind, decode)
	encoder.RegisterHF(encoder.HFFamily{
		Name: Kind, ModelTypes: []string{"bert"},
		Architectures: []string{ArchBertModel, ArchSequenceClassifier},
		Tokenizer:     "WordPiece (vocab.txt or tokenizer.json)",
		Checkpoints:   []string{"cross-encoder/ms-marco-MiniLM-L-6-v2", "cross-encoder/ms-marco-MiniLM-L-12-v2", "cross-encoder/ms-marco-TinyBERT-L-2-v2"},
		Open:          func(dir string) (encoder.PairEncoder, error) { return LoadEncoder(dir) },
	})
}

// New returns a randomly initialised BERT encoder of cfg's sizes without
// pooler or classifier (N(0, 0.02²) embeddings as BERT's initializer_range,
// Glorot weights, unit layer-norm gains): for speed benchmarks and tests.
func New(cfg Config, rng *rand.Rand) (*Model, error) {
	raw, err := json.Marshal(cfg.hf())
	if err != nil {
		return nil, err
	}
	c, err := ParseConfig(raw) // the same bounds as config.json
	if err != nil {
		return nil, err
	}
	return skeleton(c, rng), nil
}

// skeleton allocates a headless model of c's sizes, randomly initialised.
func skeleton(c *Config, rng *rand.Rand) *Model {
	h, e := c.HiddenSize, c.EmbedWidth()
	m := &Model{Config: *c, Pooling: []PoolMode{PoolCLS}, params: nn.NewParams[float32](), maxBatchTok: 8192}
	m.Config.Architecture, m.Config.NumLabels = ArchBertModel, 0
	ps := m.params
	m.word = ps.New("embeddings.word_embeddings.weight", c.VocabSize, e)
	m.pos = ps.New("embeddings.position_embeddings.weight", c.MaxPositionEmbeddings, e)
	tables := []*nn.Param[float32]{m.word, m.pos}
	if c.TypeVocabSize > 0 {
		m.types = ps.New("embeddings.token_type_embeddings.weight", c.TypeVocabSize, e)
		tables = append(tables, m.types)
	}
	for _, p := range tables {
		nn.Normal(p.Value, 0.02, rng)
	}
	m.embNorm = nn.NewLayerNorm(ps, "embeddings.norm", e)
	m.embNorm.Eps = c.LayerNormEps
	if e != h {
		m.embProj = nn.NewLinear(ps, "embeddings.project", e, h, true, rng)
	}
	lcfg := nn.EncoderLayerConfig{
		D: h, Heads: c.NumAttentionHeads, FFN: c.IntermediateSize, Act: c.HiddenAct, Eps: c.LayerNormEps,
		Dropout: c.HiddenDropout, AttnDropout: c.AttentionDropout,
	}
	for i := 0; i < c.NumHiddenLayers; i++ {
		m.layers = append(m.layers, nn.NewTransformerEncoderLayer(ps, fmt.Sprintf("encoder.layer.%d", i), lcfg, rng))
	}
	return m
}

// paramCount is the number of values skeleton allocates for c, computed
// without allocating (decoders check files against it first).
func paramCount(c *Config) int {
	h, in, e := c.HiddenSize, c.IntermediateSize, c.EmbedWidth()
	n := (c.VocabSize+c.MaxPositionEmbeddings+c.TypeVocabSize)*e + 2*e
	if e != h {
		n += e*h + h // the projection
	}
	return n + c.NumHiddenLayers*(3*h*h+3*h+h*h+h+2*h+h*in+in+in*h+h+2*h)
}

// ParamCount is the number of values of a headless model of c's sizes,
// computed without allocating: a decoder checks a file's tensors against
// it before allocating anything of the size its configuration asks for.
func ParamCount(c Config) int { return paramCount(&c) }

// hfConfig is config.json's form of a headless Config.
type hfConfig struct {
	Architectures         []string `json:"architectures"`
	ModelType             string   `json:"model_type"`
	VocabSize             int      `json:"vocab_size"`
	HiddenSize            int      `json:"hidden_size"`
	NumHiddenLayers       int      `json:"num_hidden_layers"`
	NumAttentionHeads     int      `json:"num_attention_heads"`
	IntermediateSize      int      `json:"intermediate_size"`
	HiddenAct             string   `json:"hidden_act"`
	MaxPositionEmbeddings int      `json:"max_position_embeddings"`
	TypeVocabSize         int      `json:"type_vocab_size"`
	EmbeddingSize         int      `json:"embedding_size,omitempty"`
	LayerNormEps          float64  `json:"layer_norm_eps"`
	HiddenDropout         float64  `json:"hidden_dropout_prob"`
	AttentionDropout      float64  `json:"attention_probs_dropout_prob"`
}

func (c Config) hf() hfConfig {
	act := map[nn.Activation]string{nn.ActGELU: "gelu", nn.ActGELUTanh: "gelu_new", nn.ActReLU: "relu"}[c.HiddenAct]
	eps := c.LayerNormEps
	if eps == 0 {
		eps = 1e-12
	}
	return hfConfig{
		Architectures: []string{ArchBertModel}, ModelType: "bert", VocabSize: c.VocabSize, HiddenSize: c.HiddenSize,
		NumHiddenLayers: c.NumHiddenLayers, NumAttentionHeads: c.NumAttentionHeads, IntermediateSize: c.IntermediateSize,
		HiddenAct: act, MaxPositionEmbeddings: c.MaxPositionEmbeddings, TypeVocabSize: c.TypeVocabSize, EmbeddingSize: c.EmbeddingSize,
		LayerNormEps: eps, HiddenDropout: c.HiddenDropout, AttentionDropout: c.AttentionDropout,
	}
}

// Head is a checkpoint's sequence-classification head in nn's layout
// ([in, out] weights): a pooler act(W·h + b), optionally followed by a
// LayerNorm, and the classifier over it. BERT's is tanh over h_[CLS]; the
// other Hugging Face families differ only in these fields (DistilBERT's
// pre_classifier is ReLU, ELECTRA's and DeBERTa's dense GELU, ModernBERT's
// head GELU then a LayerNorm, over the mean of the states when its
// classifier_pooling is "mean"). Any tensor may be nil: no pooler, no
// classifier, a pooler or norm without bias.
type Head struct {
	PoolerW, PoolerB, ClassifierW, ClassifierB *nn.Tensor[float32]
	// Act is the pooler's activation: HeadTanh ("", BERT's), HeadReLU,
	// HeadGELU (erf) or HeadGELUTanh.
	Act string
	// NormW and NormB, when NormW is set, are a LayerNorm after the
	// activation (ModernBERT's head.norm), with epsilon NormEps.
	NormW, NormB *nn.Tensor[float32]
	NormEps      float64
	// Mean pools the mean of the real positions' states, not the first
	// position's, before the pooler (ModernBERT's classifier_pooling "mean").
	Mean bool
}

// Pooler activations a Head names.
const (
	HeadTanh     = "tanh"
	HeadReLU     = "relu"
	HeadGELU     = "gelu"
	HeadGELUTanh = "gelu_tanh"
)

// Encoder is a BERT-family encoder behind the encoder seam
// (encoder.Encoder and encoder.PairEncoder): WordPiece tokens and the last
// layer's states. Its Params are the encoder's weights only; a
// checkpoint's pooler and classifier are kept aside (Head) for the model
// that scores with them.
type Encoder struct {
	m        *Model
	tok      *wordpiece.Tokenizer
	head     *Head
	identity string
}

// NewEncoder wraps m and its tokenizer. A model with a pooler or a
// classifier is copied without them, which Head then holds.
func NewEncoder(m *Model, tok *wordpiece.Tokenizer) (*Encoder, error) {
	if m == nil || tok == nil {
		return nil, errors.New("bert: encoder needs a model and a tokenizer")
	}
	if tok.VocabSize() > m.Config.VocabSize {
		return nil, fmt.Errorf("bert: the tokenizer has %d tokens, the model embeds %d (vocab_size)", tok.VocabSize(), m.Config.VocabSize)
	}
	if tok.CLSID() < 0 || tok.SEPID() < 0 {
		return nil, errors.New("bert: the vocabulary has no [CLS] or [SEP]")
	}
	e := &Encoder{m: m, tok: tok}
	if m.pooler != nil || m.classifier != nil {
		e.head = &Head{}
		if m.pooler != nil {
			e.head.PoolerW, e.head.PoolerB = m.pooler.W.Value, m.pooler.B.Value
		}
		if m.classifier != nil {
			e.head.ClassifierW, e.head.ClassifierB = m.classifier.W.Value, m.classifier.B.Value
		}
		bare := skeleton(&m.Config, nn.NewRNG(0))
		bare.Pooling, bare.Normalize = m.Pooling, m.Normalize
		if err := nn.CopyParams(bare.params, m.params); err != nil {
			return nil, fmt.Errorf("bert: %w", err)
		}
		e.m = bare
	}
	e.identity = encoder.WeightsIdentity(e.m.params)
	return e, nil
}

// LoadEncoder reads a Hugging Face checkpoint directory (see Load) and its
// tokenizer: tokenizer.json when present, otherwise vocab.txt.
func LoadEncoder(dir string) (*Encoder, error) {
	m, err := Load(dir)
	if err != nil {
		return nil, err
	}
	var tok *wordpiece.Tokenizer
	for _, name := range []string{"tokenizer.json", "vocab.txt"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if tok, err = wordpiece.Load(p); err != nil {
			return nil, err
		}
		break
	}
	if tok == nil {
		return nil, fmt.Errorf("bert: %s has neither tokenizer.json nor vocab.txt", dir)
	}
	return NewEncoder(m, tok)
}

// Model returns the (headless) BERT model.
func (e *Encoder) Model() *Model { return e.m }

// Tokenizer returns the WordPiece tokenizer.
func (e *Encoder) Tokenizer() *wordpiece.Tokenizer { return e.tok }

// Head returns the checkpoint's pooler and classifier, or nil.
func (e *Encoder) Head() *Head { return e.head }

// specConfig is Spec.Config: config.json and the tokenizer's settings (its
// tokens are Spec.Vocabulary).
type specConfig struct {
	Config    json.RawMessage  `json:"config"`
	Tokenizer wordpiece.Config `json:"tokenizer"`
}

// Spec implements encoder.Encoder.
func (e *Encoder) Spec() encoder.Spec {
	cfg, _ := json.Marshal(e.m.Config.hf())
	js, _ := json.Marshal(specConfig{Config: cfg, Tokenizer: e.tok.Config()})
	vocab := make([]string, e.tok.VocabSize())
	for i := range vocab {
		vocab[i], _ = e.tok.Token(i)
	}
	return encoder.Spec{Kind: Kind, Tokenizer: e.tok.Identity(), Identity: e.identity, Dim: e.m.Config.HiddenSize, Vocabulary: vocab, Config: js}
}

// MaxLen implements encoder.PairEncoder: max_position_embeddings, at most
// 512.
func (e *Encoder) MaxLen() int { return min(e.m.Config.MaxPositionEmbeddings, maxSeq) }

// Tokenize implements encoder.Encoder: WordPiece tokens, cut to leave room
// for [CLS] and [SEP] within MaxLen.
func (e *Encoder) Tokenize(s string) encoder.Tokens {
	toks, ids := e.tok.TokenIDs(s)
	n := min(len(ids), max(e.MaxLen()-2, 0))
	return encoder.Tokens{Text: toks[:n], IDs: ids[:n]}
}

// Dim implements encoder.Encoder: hidden_size.
func (e *Encoder) Dim() int { return e.m.Config.HiddenSize }

// Encode implements encoder.Encoder: the states of [CLS] t [SEP] without
// the rows of [CLS] and [SEP].
func (e *Encoder) Encode(tp *nn.Tape[float32], t encoder.Tokens) *nn.Var[float32] {
	ids := make([]int, 0, t.Len()+2)
	body := e.clip(t.IDs)
	body = body[:min(len(body), max(e.MaxLen()-2, 0))]
	ids = append(append(append(ids, e.tok.CLSID()), body...), e.tok.SEPID())
	return tp.Rows(e.m.Forward(tp, ids, nil), 1, len(ids)-1)
}

// clip maps ids outside the vocabulary to [UNK], so that bad input cannot
// panic.
func (e *Encoder) clip(ids []int) []int {
	out := slices.Clone(ids)
	for i, id := range out {
		if id < 0 || id >= e.m.Config.VocabSize {
			out[i] = e.tok.UnknownID()
		}
	}
	return out
}

// Params implements encoder.Encoder: the encoder's weights, until a model
// adopts them.
func (e *Encoder) Params() *nn.Params[float32] { return e.m.params }

// Tensors implements encoder.Encoder: the weights not adopted by a model,
// under encoder.TensorPrefix.
func (e *Encoder) Tensors() []safetensors.Tensor {
	return encoder.ParamTensors(encoder.TensorPrefix, e.m.params)
}

// Pair implements encoder.PairEncoder: BERT's [CLS] a [SEP] b [SEP] with
// token types 0 then 1, truncated longest-first (as EncodePair). A model
// of fewer than two token types (DistilBERT's none) is given no types.
func (e *Encoder) Pair(a, b encoder.Tokens) encoder.Sequence {
	x, y := e.clip(a.IDs), e.clip(b.IDs)
	for len(x)+len(y) > e.MaxLen()-3 {
		if len(x) > len(y) {
			x = x[:len(x)-1]
		} else {
			y = y[:len(y)-1]
		}
	}
	ids := make([]int, 0, len(x)+len(y)+3)
	ids = append(append(ids, e.tok.CLSID()), x...)
	ids = append(ids, e.tok.SEPID())
	n := len(ids)
	ids = append(append(ids, y...), e.tok.SEPID())
	if e.m.Config.TypeVocabSize < 2 {
		return encoder.Sequence{IDs: ids}
	}
	types := make([]int, len(ids))
	for i := n; i < len(types); i++ {
		types[i] = 1
	}
	return encoder.Sequence{IDs: ids, Types: types}
}

// EncodeBatch implements encoder.PairEncoder (ForwardBatch).
func (e *Encoder) EncodeBatch(tp *nn.Tape[float32], seqs []encoder.Sequence) (*nn.Var[float32], int) {
	return e.m.ForwardSequences(tp, seqs, []int{e.tok.CLSID()})
}

// ForwardSequences runs ForwardBatch over encoded sequences: an empty
// sequence reads as empty (the tokenizer's ids of no text), and token
// types are passed only where a sequence carries one per id. The BERT
// family's encoders (this package's, RoBERTa's) share it.
func (m *Model) ForwardSequences(tp *nn.Tape[float32], seqs []encoder.Sequence, empty []int) (*nn.Var[float32], int) {
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
	return m.ForwardBatch(tp, ids, types)
}

// decode rebuilds an encoder from a model file: config.json and the
// tokenizer from the spec, the weights from the tensors under
// encoder.TensorPrefix, checked in total size before anything is allocated.
func decode(spec encoder.Spec, tensors []safetensors.Tensor) (encoder.Encoder[float32], error) {
	var sc specConfig
	if err := json.Unmarshal(spec.Config, &sc); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	cfg, err := ParseConfig(sc.Config)
	if err != nil {
		return nil, err
	}
	tok, err := wordpiece.New(spec.Vocabulary, sc.Tokenizer)
	if err != nil {
		return nil, err
	}
	if tok.Identity() != spec.Tokenizer {
		return nil, fmt.Errorf("the vocabulary is %s, the configuration says %s: the file is corrupt", tok.Identity(), spec.Tokenizer)
	}
	// The values the configuration needs must be in the file before
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
	m := skeleton(cfg, nn.NewRNG(0))
	if err := encoder.LoadParams(m.params, encoder.TensorPrefix, tensors); err != nil {
		return nil, err
	}
	enc, err := NewEncoder(m, tok)
	if err != nil {
		return nil, err
	}
	enc.identity = spec.Identity // the pre-trained weights it started from
	return enc, nil
}

var (
	_ encoder.Encoder[float32] = (*Encoder)(nil)
	_ encoder.PairEncoder      = (*Encoder)(nil)
)

// Linears returns the model's linear layers (Model.Linears).
func (e *Encoder) Linears() []*nn.Linear[float32] { return e.m.Linears() }
