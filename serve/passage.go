package serve

import (
	"context"
	"math"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
)

// InputLimiter is implemented by a ranker that reads at most
// MaxInputTokens tokens (package text's tokenizer) of a question and a
// candidate together, such as a cross-encoder: the server splits a longer
// document into passages that fit, scores each, and gives the document its
// best passage's score, where the ranker alone would read the beginning
// and ignore the rest. A ranker that does not implement it is taken to
// score sentences (as as2's answer-sentence-selection models do): a long
// document's sentences are scored and its best sentence's score is its
// own. A cross-encoder (a ranker with an Encoder() encoder.PairEncoder
// method, as model/crossencoder's) needs no method of its own: its limit
// is read from its encoder's MaxLen.
type InputLimiter interface {
	MaxInputTokens() int
}

const (
	// DefaultPassageTokens is the passage length for a ranker with no
	// input limit (a sentence-level one): a document longer than this is
	// scored by its sentences, and the passage reported is the run of
	// sentences of about this length around the best one, a paragraph.
	DefaultPassageTokens = 200
	// DefaultMaxChunks is max_chunks_per_doc when a request gives none,
	// Cohere's default: the passages of a document scored at most.
	DefaultMaxChunks = 10
	// minPassageTokens keeps a passage useful when a long question leaves
	// the model little room.
	minPassageTokens = 16
)

// passageTokens is the passage length for question with r, in tokens,
// and whether r reads passages (it has an input limit) rather than
// sentences.
func passageTokens(r rank.Ranker, question string) (int, bool) {
	n := 0
	switch x := r.(type) {
	case InputLimiter:
		n = x.MaxInputTokens()
	case interface{ Encoder() encoder.PairEncoder }:
		if e := x.Encoder(); e != nil {
			// MaxLen counts subword pieces and three separators; English
			// text has about four pieces for three of package text's
			// tokens.
			n = (e.MaxLen() - 3) * 3 / 4
		}
	}
	if n <= 0 {
		return DefaultPassageTokens, false
	}
	return max(n-len(text.Tokenize(question)), minPassageTokens), true
}

// docRank is one document of a ranking.
type docRank struct {
	Index int
	Score float64 // the best passage's (or sentence's); -Inf for an empty document
	// Passage is the best passage of a document split into passages (nil
	// for one read whole); Sentence the best sentence within it, when the
	// ranker is sentence-level.
	Passage  *text.Passage
	Sentence *text.Sentence
	// Passages is how many passages the document has, Scored how many
	// were scored: fewer when max_chunks_per_doc cut it.
	Passages, Scored int
}

// Truncated reports whether max_chunks_per_doc left passages unscored.
func (d docRank) Truncated() bool { return d.Scored < d.Passages }

// candidate is what one scored text is of a document.
type candidate struct {
	doc, passage, sentence int // passage, sentence: -1 when not one
}

// plan is the texts a request scores: a document that fits the ranker's
// input whole, or its passages (or their sentences, for a sentence-level
// ranker): at most maxChunks passages of it, and only those that begin
// within its first maxTokens tokens (0: no cap).
type plan struct {
	texts    []string
	cands    []candidate
	docs     []docRank
	passages [][]text.Passage
	sents    [][]text.Sentence
}

func planDocuments(r rank.Ranker, question string, docs []string, maxChunks, maxTokens int) *plan {
	plen, passageLevel := passageTokens(r, question)
	p := &plan{docs: make([]docRank, len(docs)), passages: make([][]text.Passage, len(docs)), sents: make([][]text.Sentence, len(docs))}
	for i, d := range docs {
		p.docs[i] = docRank{Index: i, Score: math.Inf(-1), Passages: 1, Scored: 1}
		if over, _ := text.TokensOver(plen, d); !over {
			p.texts = append(p.texts, d)
			p.cands = append(p.cands, candidate{i, -1, -1})
			continue
		}
		sents := text.SplitSentences(d)
		ps := text.SplitPassages(d, sents, plen)
		p.docs[i].Passages = len(ps)
		if maxChunks > 0 && len(ps) > maxChunks {
			ps = ps[:maxChunks]
		}
		if maxTokens > 0 {
			ps = ps[:beginWithin(sents, ps, maxTokens)]
		}
		p.docs[i].Scored = len(ps)
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

// rank scores the plan's texts as one question's candidates, in order
// (documents in the order given, each one's passages or sentences in
// document order), and returns the documents best first, each with the
// score of its best text.
func (p *plan) rank(ctx context.Context, r rank.Ranker, question string) ([]docRank, error) {
	ranked, err := rank.Texts(ctx, r, question, p.texts)
	if err != nil {
		return nil, err
	}
	out := make([]docRank, 0, len(p.docs))
	seen := make([]bool, len(p.docs))
	for _, sc := range ranked {
		c := p.cands[sc.Index]
		if seen[c.doc] {
			continue
		}
		seen[c.doc] = true
		d := p.docs[c.doc]
		d.Score = sc.Score
		switch {
		case c.passage >= 0:
			ps := p.passages[c.doc][c.passage]
			d.Passage = &ps
		case c.sentence >= 0:
			sn := p.sents[c.doc][c.sentence]
			d.Sentence = &sn
			if k := centralPassage(p.passages[c.doc], c.sentence); k >= 0 {
				d.Passage = &p.passages[c.doc][k]
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// centralPassage is the index of the passage of ps that holds sentence i
// where the sentence sits most central, so that it has most of its context
// on both sides: of the two that may hold it (with one sentence of
// overlap), the one where it is further from an end. -1 if none holds it.
func centralPassage(ps []text.Passage, i int) int {
	k, best := -1, -1
	for j, p := range ps {
		if p.First <= i && i < p.Last {
			if m := min(i-p.First, p.Last-1-i); m > best {
				k, best = j, m
			}
		}
	}
	return k
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
