package sentencepiece

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// Space is SentencePiece's word-start mark, U+2581 "▁".
const Space = "\u2581"

// unkPenalty is subtracted from the lowest piece score to score an unknown
// character (kUnkPenalty in sentencepiece and Hugging Face tokenizers).
const unkPenalty = 10.0

// Type is a piece's role, as in SentencePiece's model proto.
type Type int

const (
	Normal      Type = iota // matched by segmentation
	Unknown                 // the unknown piece; exactly one
	Control                 // <s>, </s>: never matched in text
	UserDefined             // always preferred where it matches
	Unused                  // kept for ids, never matched
	Byte                    // <0xNN> byte-fallback pieces
)

// Piece is one vocabulary entry; its index in the list is its id.
type Piece struct {
	Text  string
	Score float64
	Type  Type
}

// Algorithm selects whose Viterbi segmentation to reproduce exactly; they
// differ only in corner cases (ties, unknown characters, arithmetic).
type Algorithm int

const (
	// SentencePiece is the C++ library: float32 scores and sums, ties keep
	// the first (longest-ending-earliest) candidate, an unknown character
	// scores min(score)-10, runs of unknowns merge into one piece.
	SentencePiece Algorithm = iota
	// HuggingFace is tokenizers' Unigram model: as SentencePiece but in
	// float64 and with every vocabulary entry matchable.
	HuggingFace
	// USELiteJS is the tokenizer of USE-Lite's JavaScript runtime
	// (@energetic-ai/embeddings and tfjs-models' universal-sentence-encoder);
	// see [ReadUSELite] for its rules.
	USELiteJS
)

func (a Algorithm) String() string {
	switch a {
	case SentencePiece:
		return "spm"
	case HuggingFace:
		return "hf"
	case USELiteJS:
		return "use-lite-js"
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// Options are the normalisation and segmentation settings.
type Options struct {
	Algorithm Algorithm
	// Normalize maps the raw text before white space handling; nil keeps
	// it. NFKC and NMTNFKC are SentencePiece's two common rules.
	Normalize func(string) string
	// AddDummyPrefix puts "▁" before the text, so that its first word looks
	// like every other word (SentencePiece's default).
	AddDummyPrefix bool
	// RemoveExtraWhitespaces trims spaces and collapses runs of them
	// (SentencePiece's default).
	RemoveExtraWhitespaces bool
	// ByteFallback spells unknown characters as <0xNN> pieces.
	ByteFallback bool
}

// DefaultOptions are SentencePiece's defaults for a unigram model.
func DefaultOptions() Options {
	return Options{Algorithm: SentencePiece, Normalize: NMTNFKC, AddDummyPrefix: true, RemoveExtraWhitespaces: true}
}

// Tokenizer segments text into unigram pieces. It is safe for concurrent
// use.
type Tokenizer struct {
	pieces   []Piece
	opts     Options
	ids      map[string]int
	trie     trie
	unk      int
	unkScore float64
	maxScore float64
	byteIDs  [256]int
	jsLen    []int // UTF-16 length of each piece (USELiteJS backtracking)
	identity string
}

// New builds a tokenizer from pieces (index = id). Exactly one piece must
// have type Unknown, except for USELiteJS, whose unknown id is always 0.
func New(pieces []Piece, o Options) (*Tokenizer, error) {
	if len(pieces) == 0 {
		return nil, errors.New("sentencepiece: no pieces")
	}
	if len(pieces) > math.MaxInt32 {
		return nil, errors.New("sentencepiece: too many pieces")
	}
	t := &Tokenizer{pieces: pieces, opts: o, ids: make(map[string]int, len(pieces)), unk: -1}
	minScore, maxScore := math.Inf(1), math.Inf(-1)
	h := sha256.New()
	var num [8]byte
	for i, p := range pieces {
		if !utf8.ValidString(p.Text) {
			return nil, fmt.Errorf("sentencepiece: piece %d is not valid UTF-8", i)
		}
		if math.IsNaN(p.Score) || math.IsInf(p.Score, 0) {
			return nil, fmt.Errorf("sentencepiece: piece %d (%q) has score %v", i, p.Text, p.Score)
		}
		if p.Type < Normal || p.Type > Byte {
			return nil, fmt.Errorf("sentencepiece: piece %d (%q) has unknown type %d", i, p.Text, p.Type)
		}
		if p.Type == Unknown {
			if t.unk >= 0 {
				return nil, fmt.Errorf("sentencepiece: pieces %d and %d are both unknown", t.unk, i)
			}
			t.unk = i
		}
		if _, dup := t.ids[p.Text]; !dup {
			t.ids[p.Text] = i
		}
		if p.Type == Normal || o.Algorithm == HuggingFace {
			minScore = min(minScore, p.Score)
			maxScore = max(maxScore, p.Score)
		}
		h.Write([]byte(p.Text))
		binary.LittleEndian.PutUint64(num[:], math.Float64bits(p.Score))
		h.Write(num[:])
		h.Write([]byte{byte(p.Type)})
	}
	if o.Algorithm == USELiteJS {
		t.unk = 0
	}
	if t.unk < 0 {
		return nil, errors.New("sentencepiece: no piece of type Unknown")
	}
	if math.IsInf(minScore, 0) {
		minScore, maxScore = 0, 0
	}
	t.unkScore, t.maxScore = minScore-unkPenalty, maxScore
	if o.Algorithm == SentencePiece {
		t.unkScore = float64(float32(minScore) - unkPenalty)
	}
	for i := range t.byteIDs {
		t.byteIDs[i] = -1
	}
	if o.ByteFallback {
		for b := range 256 {
			id, ok := t.ids[fmt.Sprintf("<0x%02X>", b)]
			if !ok {
				return nil, fmt.Errorf("sentencepiece: byte fallback needs piece <0x%02X>", b)
			}
			t.byteIDs[b] = id
		}
	}
	switch o.Algorithm {
	case USELiteJS:
		t.jsLen = make([]int, len(pieces))
		for i, p := range pieces {
			// An empty entry would make the runtime loop forever; stepping
			// one position is the only sane reading.
			t.jsLen[i] = max(1, len(utf16.Encode([]rune(p.Text))))
			// The runtime skips its reserved ids; a later duplicate
			// overwrites an earlier one in its trie.
			if i >= useLiteReserved && p.Text != "" {
				t.trie.insert(p.Text, int32(i))
			}
		}
	case HuggingFace:
		for i, p := range pieces {
			if p.Text != "" {
				t.trie.insertFirst(p.Text, int32(i))
			}
		}
	case SentencePiece:
		for i, p := range pieces {
			if (p.Type == Normal || p.Type == UserDefined || p.Type == Unused) && p.Text != "" {
				t.trie.insertFirst(p.Text, int32(i))
			}
		}
	default:
		return nil, fmt.Errorf("sentencepiece: unknown algorithm %d", int(o.Algorithm))
	}
	// The identity covers pieces, scores, types and the algorithm; options
	// a model file could not reproduce from them are spelled out.
	t.identity = fmt.Sprintf("sentencepiece:%s:%s", hex.EncodeToString(h.Sum(nil))[:12], o.Algorithm)
	if o.Algorithm != USELiteJS {
		t.identity += fmt.Sprintf(":prefix=%t:collapse=%t:bytes=%t", o.AddDummyPrefix, o.RemoveExtraWhitespaces, o.ByteFallback)
	}
	return t, nil
}

// Identity names the vocabulary and algorithm, e.g.
// "sentencepiece:1a2b…:use-lite-js", for model files to record and check.
// It does not name the Normalize function, which cannot be compared.
func (t *Tokenizer) Identity() string { return t.identity }

// VocabSize is the number of pieces.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// UnknownID is the id unknown characters get.
func (t *Tokenizer) UnknownID() int { return t.unk }

// ID returns the id of a piece (the first, when the vocabulary repeats it).
func (t *Tokenizer) ID(piece string) (int, bool) {
	id, ok := t.ids[piece]
	return id, ok
}

// Piece returns the piece with id.
func (t *Tokenizer) Piece(id int) (Piece, bool) {
	if id < 0 || id >= len(t.pieces) {
		return Piece{}, false
	}
	return t.pieces[id], true
}

// Encode returns the ids of s's pieces.
func (t *Tokenizer) Encode(s string) []int {
	if t.opts.Algorithm == USELiteJS {
		return t.encodeJS(s)
	}
	spans := t.viterbi(t.normalize(s))
	ids := make([]int, 0, len(spans))
	for _, sp := range spans {
		if sp.id == t.unk && t.opts.ByteFallback {
			for i := sp.start; i < sp.end; i++ {
				ids = append(ids, t.byteIDs[sp.text[i]])
			}
			continue
		}
		ids = append(ids, sp.id)
	}
	return ids
}

// Pieces returns s's pieces as text: the normalized text each covers, so an
// unknown piece shows the characters it stands for. Concatenated, they are
// the normalized input. For USELiteJS, whose backtracking does not track
// text, each id's vocabulary entry is returned instead.
func (t *Tokenizer) Pieces(s string) []string {
	if t.opts.Algorithm == USELiteJS {
		ids := t.encodeJS(s)
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = t.pieces[id].Text
		}
		return out
	}
	spans := t.viterbi(t.normalize(s))
	out := make([]string, 0, len(spans))
	for _, sp := range spans {
		if sp.id == t.unk && t.opts.ByteFallback {
			for i := sp.start; i < sp.end; i++ {
				out = append(out, t.pieces[t.byteIDs[sp.text[i]]].Text)
			}
			continue
		}
		out = append(out, sp.text[sp.start:sp.end])
	}
	return out
}

type span struct {
	text       string
	start, end int
	id         int
}

// viterbi is SentencePiece's optimized unigram Viterbi (EncodeOptimized):
// one forward pass over character boundaries keeping the best path ending
// at each byte offset, then a backtrack. Runs of unknown characters merge.
func (t *Tokenizer) viterbi(s string) []span {
	if s == "" {
		return nil
	}
	type node struct {
		score float64
		start int // -1: not reached yet
		id    int
	}
	best := make([]node, len(s)+1)
	for i := range best {
		best[i].start = -1
	}
	best[0].start = 0
	f32 := t.opts.Algorithm == SentencePiece
	for start := 0; start < len(s); {
		_, charLen := utf8.DecodeRuneInString(s[start:])
		base := best[start].score
		single := false
		// sentencepiece keeps float32 scores, but a piece's candidate is
		// summed and compared in double (the ternary choosing the
		// user-defined bonus promotes it) while the unknown's is all float;
		// both are stored as float. Reproducing that keeps ties identical.
		relax := func(end int, cand float64, id int) {
			n := &best[end]
			if n.start == -1 || cand > n.score {
				if f32 {
					cand = float64(float32(cand))
				}
				n.score, n.start, n.id = cand, start, id
			}
		}
		t.trie.walk(s[start:], func(n int, id int32) {
			p := t.pieces[id]
			score := p.Score
			if f32 {
				score = float64(float32(score))
			}
			if p.Type == UserDefined && t.opts.Algorithm == SentencePiece {
				// sentencepiece's bonus that makes user symbols win.
				score = float64(float32(n)*float32(t.maxScore)) - 0.1
			}
			relax(start+n, score+base, int(id))
			if n == charLen {
				single = true
			}
		})
		if !single {
			cand := t.unkScore + base
			if f32 {
				cand = float64(float32(t.unkScore) + float32(base))
			}
			relax(start+charLen, cand, t.unk)
		}
		start += charLen
	}
	var out []span
	for end := len(s); end > 0; {
		n := best[end]
		if n.id == t.unk && len(out) > 0 && out[len(out)-1].id == t.unk && !t.opts.ByteFallback {
			out[len(out)-1].start = n.start
		} else {
			out = append(out, span{s, n.start, end, n.id})
		}
		end = n.start
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
