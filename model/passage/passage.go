// Package passage ranks long documents by their passages: runs of whole
// sentences of at most a model's input length (text.SplitPassages), each
// beginning with the previous one's last sentence. A document scores as
// its best passage, and the passage (with its byte offsets) is what a
// reader is shown, where a model reading the document whole would see its
// beginning only. The service (package serve: /v1/rerank, /v2/rerank,
// TEI's /rerank, /v1/select), as2.Passages and `as2 rank --document
// --passages` all rank through this package, so they give the same
// answer.
//
// A ranker that reads at most so many tokens at once (InputLimiter, or a
// cross-encoder, whose encoder has a length) is passage-level: each
// passage is one candidate. A ranker with no input length, as as2's
// answer-sentence-selection models (the built-in model) and the rules are,
// is sentence-level: it scores sentences, as it was trained to (answer
// sentence selection ranks a document's candidate sentences, the task of
// TANDA, Garg et al. 2020), and a passage scores as its best sentence;
// the passage reported is the run of sentences of about DefaultTokens
// tokens around the best one, a paragraph of context for it.
//
// The cap on passages scored per document (MaxChunks) is Cohere's
// max_chunks_per_doc, with its default; a document it cuts says so
// (Document.Truncated), never silently.
package passage

import (
	"context"
	"math"
	"sort"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
)

// InputLimiter is implemented by a ranker that reads at most
// MaxInputTokens tokens (package text's tokenizer) of a question and a
// candidate together: a longer document is split into passages that fit,
// where the ranker alone would read the beginning and ignore the rest. A
// cross-encoder (a ranker with an Encoder() encoder.PairEncoder method, as
// model/crossencoder's) needs no method of its own: its limit is read from
// its encoder's MaxLen. A ranker that has neither is sentence-level.
type InputLimiter interface {
	MaxInputTokens() int
}

const (
	// DefaultTokens is the passage length for a ranker with no input limit
	// (a sentence-level one): a document longer than this is scored by its
	// sentences, and the passage reported is the run of sentences of about
	// this length around the best one, a paragraph.
	DefaultTokens = 200
	// DefaultMaxChunks is the passages of a document scored at most when
	// no cap is given: Cohere's default max_chunks_per_doc.
	DefaultMaxChunks = 10
	// MinTokens keeps a passage useful when a long question leaves the
	// model little room.
	MinTokens = 16
)

// Length is the passage length for question with r, in tokens of package
// text, and whether r reads passages (it has an input limit) rather than
// sentences.
func Length(r rank.Ranker, question string) (tokens int, passageLevel bool) {
	n := 0
	switch x := r.(type) {
	case InputLimiter:
		n = x.MaxInputTokens()
	case interface{ Encoder() encoder.PairEncoder }:
		if e := x.Encoder(); e != nil {
			// MaxLen counts subword pieces and three separators ([CLS] q
			// [SEP] c [SEP]); English text has about four pieces for three
			// of package text's tokens.
			n = (e.MaxLen() - 3) * 3 / 4
		}
	}
	if n <= 0 {
		return DefaultTokens, false
	}
	return max(n-len(text.Tokenize(question)), MinTokens), true
}

// Scored is one scored passage of a document.
type Scored struct {
	text.Passage
	// Index is the passage's position among the document's passages.
	Index int
	// Score is the ranker's score of the passage, or for a sentence-level
	// ranker its best sentence's.
	Score float64
	// Sentence is the best sentence of the passage when the ranker is
	// sentence-level; nil when it reads passages.
	Sentence *text.Sentence
}

// Document is one document of a ranking.
type Document struct {
	// Index is the document's position among those ranked.
	Index int
	// Score is its best passage's score (the document's own when it was
	// read whole); -Inf for an empty document, which is never scored.
	Score float64
	// Passages are the document's scored passages, best first; nil for a
	// document read whole (it fits the ranker's input).
	Passages []Scored
	// Total is how many passages the document has (1 when read whole):
	// more than len(Passages) when a cap cut it.
	Total int
}

// Best is the document's best passage; nil for a document read whole.
func (d Document) Best() *Scored {
	if len(d.Passages) == 0 {
		return nil
	}
	return &d.Passages[0]
}

// Scored is how many of the document's passages were scored.
func (d Document) Scored() int {
	if d.Passages == nil {
		return d.Total
	}
	return len(d.Passages)
}

// Truncated reports whether a cap left passages of the document unscored.
func (d Document) Truncated() bool { return d.Scored() < d.Total }

// Options are the caps on what is scored of a document.
type Options struct {
	// MaxChunks is the passages of a document scored at most, the first
	// ones (Cohere's max_chunks_per_doc); 0 is no cap.
	MaxChunks int
	// MaxTokens scores only the passages that begin within a document's
	// first MaxTokens tokens (Cohere v2's max_tokens_per_doc); 0 is no cap.
	MaxTokens int
	// Split splits every document, even one that fits the ranker's input
	// (it is then one passage), so that each has its passages; otherwise
	// such a document is read whole.
	Split bool
}

// candidate is what one scored text is of a document.
type candidate struct {
	doc, passage, sentence int // passage, sentence: -1 when not one
}

// Plan is the texts that ranking documents for a question scores: a
// document that fits the ranker's input whole, or its passages (their
// sentences, for a sentence-level ranker), as Options caps them.
type Plan struct {
	texts        []string
	cands        []candidate
	docs         []Document
	passages     [][]text.Passage
	sents        [][]text.Sentence
	passageLevel bool
}

// NewPlan plans the scoring of docs for question with r.
func NewPlan(r rank.Ranker, question string, docs []string, o Options) *Plan {
	plen, passageLevel := Length(r, question)
	p := &Plan{docs: make([]Document, len(docs)), passages: make([][]text.Passage, len(docs)), sents: make([][]text.Sentence, len(docs)), passageLevel: passageLevel}
	for i, d := range docs {
		p.docs[i] = Document{Index: i, Score: math.Inf(-1), Total: 1}
		sents := text.SplitSentences(d)
		if over, _ := text.TokensOver(plen, d); (!over && !o.Split) || len(sents) == 0 {
			p.texts = append(p.texts, d)
			p.cands = append(p.cands, candidate{i, -1, -1})
			continue
		}
		ps := text.SplitPassages(d, sents, plen)
		p.docs[i].Total = len(ps)
		if o.MaxChunks > 0 && len(ps) > o.MaxChunks {
			ps = ps[:o.MaxChunks]
		}
		if o.MaxTokens > 0 {
			ps = ps[:beginWithin(sents, ps, o.MaxTokens)]
		}
		p.passages[i], p.sents[i] = ps, sents
		if passageLevel {
			for k, ps := range ps {
				p.texts = append(p.texts, ps.Text)
				p.cands = append(p.cands, candidate{i, k, -1})
			}
			continue
		}
		for j := 0; j < ps[len(ps)-1].Last; j++ {
			p.texts = append(p.texts, sents[j].Text)
			p.cands = append(p.cands, candidate{i, -1, j})
		}
	}
	return p
}

// Texts are the texts the plan scores, in order: documents in the order
// given, each one's passages or sentences in document order.
func (p *Plan) Texts() []string { return p.texts }

// PassageLevel reports whether the ranker reads passages (rather than
// sentences).
func (p *Plan) PassageLevel() bool { return p.passageLevel }

// Rank scores the plan's texts with r as one question's candidates, in
// order (which is what a ranker over candidates in document order needs),
// and returns the documents best first, each with its passages best first.
func (p *Plan) Rank(ctx context.Context, r rank.Ranker, question string) ([]Document, error) {
	ranked, err := rank.Texts(ctx, r, question, p.texts)
	if err != nil {
		return nil, err
	}
	docs := make([]Document, len(p.docs))
	copy(docs, p.docs)
	// assigned[d][k]: passage k of document d has its score (a
	// sentence-level ranker's passage takes its first sentence in rank
	// order, its best).
	assigned := make([][]bool, len(docs))
	for d := range docs {
		if p.passages[d] != nil {
			assigned[d] = make([]bool, len(p.passages[d]))
		}
	}
	var order []int // documents in rank order: each as its best text
	seen := make([]bool, len(docs))
	for _, sc := range ranked {
		c := p.cands[sc.Index]
		d := &docs[c.doc]
		if !seen[c.doc] {
			seen[c.doc] = true
			order = append(order, c.doc)
			d.Score = sc.Score
		}
		switch {
		case c.passage >= 0:
			ps := p.passages[c.doc][c.passage]
			assigned[c.doc][c.passage] = true
			d.Passages = append(d.Passages, Scored{Passage: ps, Index: c.passage, Score: sc.Score})
		case c.sentence >= 0:
			sn := p.sents[c.doc][c.sentence]
			for _, k := range holding(p.passages[c.doc], c.sentence) {
				if !assigned[c.doc][k] {
					assigned[c.doc][k] = true
					d.Passages = append(d.Passages, Scored{Passage: p.passages[c.doc][k], Index: k, Score: sc.Score, Sentence: &sn})
				}
			}
		}
	}
	out := make([]Document, len(order))
	for k, d := range order {
		out[k] = docs[d]
	}
	return out, nil
}

// Rank ranks docs for question with r, long ones by their passages.
func Rank(ctx context.Context, r rank.Ranker, question string, docs []string, o Options) ([]Document, error) {
	return NewPlan(r, question, docs, o).Rank(ctx, r, question)
}

// holding is the passages of ps that hold sentence i, the one where it
// sits most central first, so that the best sentence's passage has most
// of its context on both sides: with one sentence of overlap, two
// passages may hold it, and the one where it is further from an end is
// the better paragraph for it.
func holding(ps []text.Passage, i int) []int {
	// Passages are in document order, First and Last increasing, so those
	// holding i are consecutive from the first that ends after it: a
	// search, not a scan, keeps a long document's ranking linear.
	var ks []int
	for k := sort.Search(len(ps), func(k int) bool { return ps[k].Last > i }); k < len(ps) && ps[k].First <= i; k++ {
		ks = append(ks, k)
	}
	margin := func(k int) int { return min(i-ps[k].First, ps[k].Last-1-i) }
	sort.SliceStable(ks, func(a, b int) bool { return margin(ks[a]) > margin(ks[b]) })
	return ks
}

// Central is the index of the passage of ps that holds sentence i where
// the sentence sits most central (see holding); -1 if none holds it.
func Central(ps []text.Passage, i int) int {
	if ks := holding(ps, i); len(ks) > 0 {
		return ks[0]
	}
	return -1
}

// beginWithin is how many of passages ps (of sentences sents) begin within
// the first maxTokens tokens of their text; the first always does.
func beginWithin(sents []text.Sentence, ps []text.Passage, maxTokens int) int {
	before, j := 0, 0 // tokens in sents[:j]
	for k, p := range ps {
		for ; j < p.First; j++ {
			before += len(text.Tokenize(sents[j].Text))
		}
		if k > 0 && before >= maxTokens {
			return k
		}
	}
	return len(ps)
}
