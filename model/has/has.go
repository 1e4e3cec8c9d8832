package has

import (
	"fmt"
	"slices"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// Name is the architecture's name in flags and model files.
const Name = "has"

// The modes: the composition over the same encoder.
const (
	Pooling   = "pooling"   // dual encoder: cosine of max-pooled question and answer
	Attention = "attention" // additive attention over float answer states
	Hash      = "hash"      // HAS: additive attention over hashed (binary at test) answer states
)

// Modes lists the modes.
var Modes = []string{Pooling, Attention, Hash}

// Hyper are the hyperparameters, saved in the model file.
type Hyper struct {
	Mode        string  `json:"mode" flag:"has-mode" common:"true"`  // Pooling, Attention or Hash
	Hidden      int     `json:"hidden"`                              // BiLSTM size per direction; D = 2·Hidden
	AttnHidden  int     `json:"attn_hidden" flag:"attention-hidden"` // M, the attention's hidden size
	Beta        float64 `json:"beta"`                                // β of tanh(βV) (equation 1)
	Delta       float64 `json:"delta"`                               // δ, the binary constraint's coefficient
	WordDropout float64 `json:"word_dropout"`                        // dropout on the token states, in training
	Encoder     string  `json:"encoder" recipe:"-"`                  // the encoder's kind
	// HashTrain is how the hashing layer trains: HashTanh (or empty), the
	// paper's relaxation, or HashSTE.
	HashTrain string `json:"hash_train,omitempty"`
	// Layer is the encoding layer over the encoder's token states:
	// LayerBiLSTM (or empty), as2's for static vectors, or LayerNone, the
	// encoder's own states, as the paper hashes BERT's outputs (section
	// "Embedding Layer and Encoding Layer"); Hidden is then set to half
	// the encoder's width, so that D = 2·Hidden is that width.
	Layer string `json:"layer,omitempty"`
	// FineTune trains the encoder's weights too, as the paper fine-tunes
	// BERT; the model file then holds them.
	FineTune bool `json:"fine_tune,omitempty"`
}

// The encoding layers (Hyper.Layer).
const (
	LayerBiLSTM = "bilstm"
	LayerNone   = "none"
)

// The hashing layer's training forms (Hyper.HashTrain).
const (
	// HashTanh is the paper's: B = tanh(βV) in training, sgn(V) at test.
	HashTanh = "tanh"
	// HashSTE is the straight-through estimator (Bengio, Léonard and
	// Courville 2013): B = sgn(V) in training too, so the attention and
	// the cosine train on the states they see at test, with tanh(βV)'s
	// gradient β(1 − tanh²(βV)) passed back as if B were tanh(βV). The
	// binary constraint is then zero (B = 𝓑), so it needs δ = 0.
	HashSTE = "ste"
)

// PaperHyper is the paper's setting where it applies to a BiLSTM encoder:
// β = 5 (tuned among {1, 2, 5, 10, 20}, section "Hyperparameters and
// Baselines"), δ = 1e-6 (the value the paper fixes for its β sensitivity
// study, Figures 2(a) and 3(a), inside the range [1e-7, 1e-5] it finds HAS
// insensitive to), M = 128 (its WikiQA and yahooQA attention size) and
// dropout 0.1. The BiLSTM's 128 units per direction (D = 256, four 64-bit
// words per binary row) are as2's choice: the paper's encoder is BERT.
func PaperHyper() Hyper {
	return Hyper{Mode: Hash, Hidden: 128, AttnHidden: 128, Beta: 5, Delta: 1e-6, WordDropout: 0.1}
}

// RecipeHyper is as2's default, for now the paper's (not yet tuned on a
// dev set).
func RecipeHyper() Hyper { return PaperHyper() }

func (h Hyper) validate() error {
	switch {
	case !slices.Contains(Modes, h.Mode):
		return fmt.Errorf("mode %q: want pooling, attention or hash", h.Mode)
	case h.Hidden < 1 || h.Hidden > 4096:
		return fmt.Errorf("hidden size %d: want 1 to 4096", h.Hidden)
	case h.AttnHidden < 1 || h.AttnHidden > 4096:
		return fmt.Errorf("attention hidden size %d: want 1 to 4096", h.AttnHidden)
	case !(h.Beta >= 1 && h.Beta <= 1e3):
		return fmt.Errorf("beta %v: want 1 to 1000 (the paper: β ≥ 1)", h.Beta)
	case !(h.Delta >= 0 && h.Delta <= 1e3):
		return fmt.Errorf("delta %v: want 0 to 1000", h.Delta)
	case !(h.WordDropout >= 0 && h.WordDropout < 1):
		return fmt.Errorf("word dropout %v: want [0, 1)", h.WordDropout)
	case h.HashTrain != "" && h.HashTrain != HashTanh && h.HashTrain != HashSTE:
		return fmt.Errorf("hash training %q: want %s or %s", h.HashTrain, HashTanh, HashSTE)
	case h.HashTrain == HashSTE && h.Mode != Hash:
		return fmt.Errorf("hash training %s in mode %s: only mode %s has a hashing layer", HashSTE, h.Mode, Hash)
	case h.Layer != "" && h.Layer != LayerBiLSTM && h.Layer != LayerNone:
		return fmt.Errorf("layer %q: want %s or %s", h.Layer, LayerBiLSTM, LayerNone)
	case h.HashTrain == HashSTE && h.Delta != 0:
		return fmt.Errorf("hash training %s with δ %v: the straight-through layer outputs the codes themselves, so the binary constraint is always 0; set δ to 0", HashSTE, h.Delta)
	}
	return nil
}

// Model is a HAS ranker (or one of its baselines). It is safe for
// concurrent Score, EncodeAnswers and EncodeQuestion calls (and of its
// queries' scorers); Loss and ParamsChanged are for training, which owns
// the model meanwhile.
type Model struct {
	*net[float32]
	*model.Network[*input[float32]] // Score and Prepare
	model.TrainingRecord
}

// net is the network at float type T: float32 to rank and train, float64
// for the gradient checks of the real code.
type net[T nn.Float] struct {
	hyper Hyper
	enc   encoder.Encoder[T]
	ps    *nn.Params[T]
	rows  nn.TapePool[T] // inference tapes for the candidates

	lstm   nn.SeqLayer[T] // the encoding layer over the token states
	w1, w2 *nn.Linear[T]  // W₁ [D, M] (answer words), W₂ [D, M] (question)
	m      *nn.Linear[T]  // m [M, 1]
	codes  *codebook      // 𝓑 of the training answers (hash mode)
}

// New creates an untrained model over enc, initialised from seed.
func New(h Hyper, enc encoder.Encoder[float32], seed uint64) (*Model, error) {
	n, err := newNet(h, enc, seed)
	if err != nil {
		return nil, err
	}
	m := &Model{net: n}
	m.Network = model.NewNetwork(n.prepare, func(tp *nn.Tape[float32], in *input[float32], infer bool) *nn.Var[float32] {
		s, _ := n.forward(tp, in, infer)
		return s
	})
	// Each candidate is scored alone: large questions may go in chunks.
	m.SetIndependent(true)
	return m, nil
}

func newNet[T nn.Float](h Hyper, enc encoder.Encoder[T], seed uint64) (*net[T], error) {
	if err := h.validate(); err != nil {
		return nil, err
	}
	if enc == nil {
		return nil, fmt.Errorf("%s needs an encoder (word embeddings)", Name)
	}
	if h.Encoder == "" {
		h.Encoder = enc.Spec().Kind
	}
	if kind := enc.Spec().Kind; h.Encoder != kind {
		return nil, fmt.Errorf("hyperparameters name encoder %q, the model has a %s encoder", h.Encoder, kind)
	}
	if h.Layer == LayerNone {
		if enc.Dim()%2 != 0 {
			return nil, fmt.Errorf("layer %s: the %s encoder's width %d is odd; HAS's binary rows want an even D", LayerNone, enc.Spec().Kind, enc.Dim())
		}
		h.Hidden = enc.Dim() / 2 // D = 2·Hidden is the encoder's width
	}
	n := &net[T]{hyper: h, enc: enc, ps: nn.NewParams[T](), codes: newCodebook()}
	rng := nn.NewRNG(seed)
	if h.Layer != LayerNone {
		var err error
		if n.lstm, err = nn.NewRecurrent("bilstm", n.ps, "encoder.bilstm", enc.Dim(), h.Hidden, rng); err != nil {
			return nil, fmt.Errorf("encoding layer: %w", err)
		}
	}
	if h.Mode != Pooling {
		d := n.Dim()
		n.w1 = nn.NewLinear(n.ps, "attention.w1", d, h.AttnHidden, false, rng)
		n.w2 = nn.NewLinear(n.ps, "attention.w2", d, h.AttnHidden, false, rng)
		n.m = nn.NewLinear(n.ps, "attention.m", h.AttnHidden, 1, false, rng)
	}
	if h.FineTune {
		if err := encoder.FineTune(n.ps, enc); err != nil {
			return nil, err
		}
	}
	if n.ps.Count() == 0 {
		return nil, fmt.Errorf("layer %s in mode %s has no weights to train: fine-tune the encoder", LayerNone, h.Mode)
	}
	return n, nil
}

// Hyper returns the model's hyperparameters.
func (n *net[T]) Hyper() Hyper { return n.hyper }

// Dim is D, the size of a word state (and of a binary row).
func (n *net[T]) Dim() int { return 2 * n.hyper.Hidden }

// Params implements model.Trainable.
func (n *net[T]) Params() *nn.Params[T] { return n.ps }

// sentence is a prepared sentence (see net.sentence) and its text.
type sentence[T nn.Float] struct {
	encoder.Frozen[T]
	text string
}

// input is a question prepared for the model.
type input[T nn.Float] = model.Prepared[sentence[T]]

func (n *net[T]) prepare(q *dataset.Question) *input[T] { return model.Prepare(q, n.sentence) }

// sentence prepares s. Unless it is fine-tuned, a network encoder's
// states are the same in every epoch, so they are computed here once
// (encoder.Freeze; a fine-tuned encoder's weights are the model's, so
// Freeze leaves its states to each pass); static vectors are a cheap
// lookup.
func (n *net[T]) sentence(s string) sentence[T] {
	return sentence[T]{Frozen: encoder.Freeze(n.enc, &n.rows, encoder.NonEmpty(n.enc.Tokenize(s))), text: s}
}

// encode is the encoding layer: the BiLSTM over the token states [L, D],
// or with layer none the states themselves.
func (n *net[T]) encode(tp *nn.Tape[T], s sentence[T]) *nn.Var[T] {
	x := s.Encode(tp, n.enc)
	if n.hyper.WordDropout > 0 {
		x = tp.Dropout(x, n.hyper.WordDropout)
	}
	if n.lstm == nil { // layer none: the encoder's states
		return x
	}
	return n.lstm.Forward(tp, x)
}

// attend is the composition layer for one answer: b [L, D] the answer's
// word states, w2u [M] = W₂u_q; it returns v = Σ α_i b_i [1, D] with
// α = softmax_i(mᵀ tanh(W₁b_i + W₂u_q)).
func (n *net[T]) attend(tp *nn.Tape[T], b, w2u *nn.Var[T]) *nn.Var[T] {
	l := b.Value.Rows()
	e := n.m.Forward(tp, tp.Tanh(tp.AddBias(n.w1.Forward(tp, b), w2u))) // [L, 1]
	alpha := tp.Softmax(tp.Reshape(e, 1, l))
	return tp.MatMul(alpha, b)
}

// forward computes the scores [n] of the candidates and, when training in
// hash mode, the binary constraints J^c [n] of their hashed states (nil
// otherwise); infer spreads the candidates over the cores and uses the
// binary states sgn(V) in hash mode.
func (n *net[T]) forward(tp *nn.Tape[T], in *input[T], infer bool) (scores, constraints *nn.Var[T]) {
	h := n.hyper
	u := tp.MaxPool(n.encode(tp, in.Text)) // u_q [D]
	uRow := tp.Reshape(u, 1, u.Value.Len())
	var w2u *nn.Var[T]
	if h.Mode != Pooling {
		w2u = n.w2.Forward(tp, u)
	}
	// The constraints J^c come with the scores when training the tanh form.
	hashTrain := h.Mode == Hash && !infer && h.HashTrain != HashSTE
	row := func(tp *nn.Tape[T], i int) *nn.Var[T] {
		c := in.Candidates[i]
		v := n.encode(tp, c) // V_a [L, D]
		var a, jc *nn.Var[T]
		switch {
		case h.Mode == Pooling:
			a = tp.Reshape(tp.MaxPool(v), 1, v.Value.Cols())
		case h.Mode == Attention:
			a = n.attend(tp, v, w2u)
		case infer: // hash at test time: 𝓑_a = sgn(V_a)
			a = n.attend(tp, tp.Const(signs(v.Value)), w2u)
		case h.HashTrain == HashSTE: // hash in training, straight through: sgn(V_a)
			a = n.attend(tp, hashSTE(tp, v, h.Beta), w2u)
		default: // hash in training: B_a = tanh(βV_a) and its constraint
			b := hashLayer(tp, v, h.Beta)
			code := updateCode(n.codes, c.text, v.Value)
			jc = binaryConstraint(tp, b, code)
			a = n.attend(tp, b, w2u)
		}
		s := tp.Reshape(tp.CosineSim(uRow, a), 1)
		if hashTrain {
			return tp.Concat(s, jc)
		}
		return s
	}
	x := n.rows.StackRows(tp, len(in.Candidates), infer, row)
	if !hashTrain {
		return tp.Reshape(x, len(in.Candidates)), nil
	}
	k := len(in.Candidates)
	return tp.Reshape(tp.SliceCols(x, 0, 1), k), tp.Reshape(tp.SliceCols(x, 1, 2), k)
}

// loss is obj's loss of the candidates' scores plus, in hash mode, δ times
// the binary constraints weighted as the paper's sum over triplets
// weights them: over a question's P·N (positive, negative) pairs, the mean
// of J^c(p) + J^c(n) is the mean of J^c over the positives plus the mean
// over the negatives. A question without both (under another objective)
// weights every candidate 2/n.
func (n *net[T]) loss(tp *nn.Tape[T], in *input[T], lossOf func(*nn.Var[T]) *nn.Var[T]) *nn.Var[T] {
	scores, jc := n.forward(tp, in, false)
	loss := lossOf(scores)
	if jc == nil || n.hyper.Delta == 0 {
		return loss
	}
	cands := in.Q.Candidates
	pos := 0
	for _, c := range cands {
		if c.Label == dataset.Positive {
			pos++
		}
	}
	w := nn.NewTensor[T](len(cands))
	for i, c := range cands {
		switch {
		case pos == 0 || pos == len(cands):
			w.Data[i] = T(2 / float64(len(cands)))
		case c.Label == dataset.Positive:
			w.Data[i] = T(1 / float64(pos))
		default:
			w.Data[i] = T(1 / float64(len(cands)-pos))
		}
	}
	return tp.Add(loss, tp.Scale(tp.Sum(tp.Mul(jc, tp.Const(w))), n.hyper.Delta))
}

// Loss implements model.Trainable: obj's loss of the scores plus δ times
// the binary constraints (the paper's objective J). The model adds its
// regulariser itself, so the training loop needs no hook for it.
func (m *Model) Loss(tp *nn.Tape[float32], in model.Input, obj model.Objective) (*nn.Var[float32], error) {
	x, ok := in.(*input[float32])
	if !ok {
		return nil, fmt.Errorf("input %T was prepared by another model", in)
	}
	return m.loss(tp, x, func(s *nn.Var[float32]) *nn.Var[float32] { return obj.Loss(tp, s, x.Q) }), nil
}

// ParamsChanged implements model.Trainable: nothing is cached.
func (m *Model) ParamsChanged() {}

// Config implements model.Model.
func (m *Model) Config() model.Config {
	return model.NeuralConfig(Name, m.hyper, m.enc, m.ps, m.TrainingRecord)
}

// Tensors implements model.Model: the parameters, then the encoder's.
func (m *Model) Tensors() []safetensors.Tensor { return model.NeuralTensors(m.ps, m.enc) }

// CodeStats reports the training state of the binary codes 𝓑: how many
// training answers have one, and the share of bits that changed in the
// 𝓑-steps since the previous call (0 when none ran). The codes are not
// saved in the model file: at test time 𝓑_a = sgn(V_a) is recomputed.
func (m *Model) CodeStats() (answers int, flipRate float64) { return m.codes.stats() }
