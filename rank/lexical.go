package rank

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/text"
)

// Names lists the rule-based rankers New builds. Each word-matching one
// (all but rr and answer-type) also has a "-stem" form (StemSuffix):
// "bm25-stem" is BM25 with stopwords dropped and words stemmed, the English
// analysis Anserini's BM25 runs by default. Each word-matching form, stemmed
// or not, also has a "-gated" form (GatedSuffix, Gated).
var Names = []string{"rr", "wo", "wo+rr", "jaccard", "bm25", "idf-overlap", "bigram", "answer-type"}

// unstemmed are the rankers of Names that match no words, so have no
// StemSuffix form.
var unstemmed = set([]string{"rr", "answer-type"})

// NamesHelp lists the rule-based rankers for a command's help: Names, and
// which of them also have a StemSuffix form.
func NamesHelp() string {
	var without []string
	for _, n := range Names {
		if unstemmed[n] {
			without = append(without, n)
		}
	}
	return strings.Join(Names, ", ") + "; each but " + strings.Join(without, " and ") + " also with " + StemSuffix +
		" after it, and with " + GatedSuffix + " after that (times the question's coverage)"
}

// StemSuffix, after the name of a word-matching ranker, sets Stopwords and
// Stem for it.
const StemSuffix = "-stem"

// Options configure the rule-based rankers. Start from DefaultOptions.
type Options struct {
	// Stopwords drops English stopwords (text.IsStopword) before matching.
	Stopwords bool
	// Punctuation keeps punctuation tokens as terms.
	Punctuation bool
	// Stem matches words by their Snowball English stems (text.Stem), so
	// that "invented" in a question matches "invention" in a sentence.
	Stem bool
	// K1 and B are BM25's term-frequency saturation and length
	// normalisation.
	K1, B float64
	// Collection, if set, supplies IDF and average length (BM25,
	// idf-overlap) instead of the question's own candidate pool.
	Collection *Collection
}

// DefaultOptions is the paper's setting for WO (every word counts,
// punctuation does not) and the usual BM25 parameters k1 = 1.2, b = 0.75.
func DefaultOptions() Options { return Options{K1: 1.2, B: 0.75} }

// Known reports whether New knows the name.
func Known(name string) bool {
	_, err := New(name, DefaultOptions())
	return err == nil
}

// GatedSuffix, after the name of a word-matching ranker (and after its
// StemSuffix), multiplies its scores by the question's coverage (Gated).
const GatedSuffix = "-gated"

// resolve returns the base name of the ranker called name, the options
// New builds it with (a StemSuffix sets Stopwords and Stem), and whether it
// is gated (GatedSuffix).
func resolve(name string, opts Options) (string, Options, bool) {
	key := strings.ToLower(name)
	key, gated := strings.CutSuffix(key, GatedSuffix)
	if base, ok := strings.CutSuffix(key, StemSuffix); ok && !unstemmed[base] {
		key = base
		opts.Stopwords, opts.Stem = true, true
	}
	return key, opts, gated
}

// ForRanker returns the options New uses for the ranker called name, so
// that a Collection is counted over the terms that ranker matches.
func (o Options) ForRanker(name string) Options {
	_, opts, _ := resolve(name, o)
	return opts
}

// New returns the rule-based ranker called name (see Names, StemSuffix and
// GatedSuffix).
func New(name string, opts Options) (Ranker, error) {
	key, opts, gated := resolve(name, opts)
	r, err := newBase(key, opts)
	if err != nil || gated && unstemmed[key] { // a gate needs words to cover
		return nil, fmt.Errorf("unknown ranker %q (want one of %s)", name, NamesHelp())
	}
	if gated {
		return Gated{Ranker: r, Options: opts}, nil
	}
	return r, nil
}

// newBase returns the rule-based ranker of Names called key.
func newBase(key string, opts Options) (Ranker, error) {
	switch key {
	case "rr":
		return OriginalOrder{}, nil
	case "wo":
		return WordOverlap{Options: opts}, nil
	case "wo+rr":
		return WordOverlap{Options: opts, BreakTiesByPosition: true}, nil
	case "jaccard":
		return Jaccard{Options: opts}, nil
	case "bm25":
		return BM25{Options: opts}, nil
	case "idf-overlap":
		return IDFOverlap{Options: opts}, nil
	case "bigram":
		return BigramOverlap{Options: opts}, nil
	case "answer-type":
		return AnswerType{}, nil
	}
	return nil, fmt.Errorf("unknown ranker %q", key)
}

// Terms turns text into the terms the rule-based rankers match: lowercase
// tokens, without punctuation and (optionally) stopwords, (optionally)
// stemmed.
func (o Options) Terms(s string) []string {
	toks := text.Tokenize(s)
	out := toks[:0]
	for _, t := range toks {
		if !o.Punctuation && text.IsPunctuation(t) {
			continue
		}
		if o.Stopwords && text.IsStopword(t) {
			continue
		}
		if o.Stem {
			t = text.Stem(t)
		}
		out = append(out, t)
	}
	return out
}

func set(terms []string) map[string]bool {
	m := make(map[string]bool, len(terms))
	for _, t := range terms {
		m[t] = true
	}
	return m
}

// unique returns terms without repeats, in order of first appearance, so
// that float sums over them do not depend on map iteration order.
func unique(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// OriginalOrder is RR: it keeps the original order, scoring the candidate
// at position p with its reciprocal rank 1/(p+1).
type OriginalOrder struct{}

// Score implements Ranker.
func (OriginalOrder) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	s := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		s[i] = 1 / float64(c.Position+1)
	}
	return s, nil
}

// WordOverlap is WO: the number of unique terms a candidate shares with the
// question (Cosinet paper, section 2.1.1). With BreakTiesByPosition it is
// WO+RR: 1/(p+2) < 1 is added, so the original position decides only
// between candidates with the same overlap, and the scores themselves carry
// the tie-break into run files.
type WordOverlap struct {
	Options
	BreakTiesByPosition bool
}

// Score implements Ranker.
func (w WordOverlap) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	qs := set(w.Terms(q.Text))
	s := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		for t := range set(w.Terms(c.Text)) {
			if qs[t] {
				s[i]++
			}
		}
		if w.BreakTiesByPosition {
			s[i] += 1 / float64(c.Position+2)
		}
	}
	return s, nil
}

// Jaccard scores |Q ∩ C| / |Q ∪ C| over unique terms.
type Jaccard struct{ Options }

// Score implements Ranker.
func (j Jaccard) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	qs := set(j.Terms(q.Text))
	s := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		cs := set(j.Terms(c.Text))
		inter := 0
		for t := range cs {
			if qs[t] {
				inter++
			}
		}
		if union := len(qs) + len(cs) - inter; union > 0 {
			s[i] = float64(inter) / float64(union)
		}
	}
	return s, nil
}

// Collection holds document frequencies and the average length of a set of
// sentences, for IDF and BM25 computed over more than one candidate pool.
type Collection struct {
	N      int            // sentences
	DF     map[string]int // sentences containing each term
	AvgLen float64        // mean terms per sentence
}

// NewCollection counts every distinct candidate sentence of qs (a sentence
// shared by several questions counts once). It reads no labels.
func NewCollection(qs []dataset.Question, o Options) *Collection {
	c := &Collection{DF: map[string]int{}}
	seen := map[string]bool{}
	total := 0
	for i := range qs {
		for _, cand := range qs[i].Candidates {
			if seen[cand.Text] {
				continue
			}
			seen[cand.Text] = true
			terms := o.Terms(cand.Text)
			c.add(terms)
			total += len(terms)
		}
	}
	if c.N > 0 {
		c.AvgLen = float64(total) / float64(c.N)
	}
	return c
}

func (c *Collection) add(terms []string) {
	c.N++
	for t := range set(terms) {
		c.DF[t]++
	}
}

// IDF is BM25's inverse document frequency as Lucene computes it,
// ln(1 + (N - df + 0.5)/(df + 0.5)), which stays positive for common terms.
func (c *Collection) IDF(term string) float64 {
	df := float64(c.DF[term])
	return math.Log(1 + (float64(c.N)-df+0.5)/(df+0.5))
}

// pool returns the statistics to use for q: the configured collection, or
// q's own candidates, and the candidates' terms.
func (o Options) pool(q *dataset.Question) (*Collection, [][]string) {
	terms := make([][]string, len(q.Candidates))
	for i, c := range q.Candidates {
		terms[i] = o.Terms(c.Text)
	}
	if o.Collection != nil {
		return o.Collection, terms
	}
	c := &Collection{DF: map[string]int{}}
	total := 0
	for _, t := range terms {
		c.add(t)
		total += len(t)
	}
	c.AvgLen = float64(total) / float64(max(c.N, 1))
	return c, terms
}

// BM25 is Okapi BM25 (Robertson et al.), summing over the question's terms
// (repeats included) with Lucene's IDF.
type BM25 struct{ Options }

// Score implements Ranker.
func (b BM25) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	k1, bb := b.K1, b.B
	coll, terms := b.pool(q)
	qTerms := b.Terms(q.Text)
	s := make([]float64, len(q.Candidates))
	for i, ct := range terms {
		tf := map[string]int{}
		for _, t := range ct {
			tf[t]++
		}
		for _, t := range qTerms {
			if f := tf[t]; f > 0 {
				s[i] += BM25Term(coll.IDF(t), f, len(ct), coll.AvgLen, k1, bb)
			}
		}
	}
	return s, nil
}

// BM25Term is one question term's contribution to a sentence's BM25
// score: idf·f·(k1+1) / (f + k1·(1 − b + b·len/avgLen)), for a term that
// occurs f times in a sentence of len terms (avgLen 0: no length
// normalisation). BM25 and the inverted index of package index share it.
func BM25Term(idf float64, f, length int, avgLen, k1, b float64) float64 {
	norm := 1 - b
	if avgLen > 0 {
		norm += b * float64(length) / avgLen
	}
	ff := float64(f)
	return idf * ff * (k1 + 1) / (ff + k1*norm)
}

// IDFOverlap sums the IDF of the unique terms a candidate shares with the
// question: WO with rare words counting more.
type IDFOverlap struct{ Options }

// Score implements Ranker.
func (o IDFOverlap) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	coll, terms := o.pool(q)
	qs := set(o.Terms(q.Text))
	s := make([]float64, len(q.Candidates))
	for i, ct := range terms {
		s[i] = idfHeld(coll, qs, ct)
	}
	return s, nil
}

// idfHeld sums the IDF of the unique terms of ct that are in qs.
func idfHeld(coll *Collection, qs map[string]bool, ct []string) float64 {
	var held float64
	for _, t := range unique(ct) {
		if qs[t] {
			held += coll.IDF(t)
		}
	}
	return held
}

// BigramOverlap counts the unique bigrams (two consecutive terms) of the
// question that a candidate also holds as consecutive terms: the n-gram
// overlap of feature-based AS2, which sees the word order that WO, BM25 and
// IDF overlap ignore ("Rubik's Cube" as a phrase, not "Rubik" in one place
// and "Cube" in another). With StemSuffix the bigrams are of stems after
// stopwords are dropped, so they join content words across a stopword.
type BigramOverlap struct{ Options }

// Score implements Ranker.
func (b BigramOverlap) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	qs := bigrams(b.Terms(q.Text))
	s := make([]float64, len(q.Candidates))
	if len(qs) == 0 {
		return s, nil
	}
	for i, c := range q.Candidates {
		for bg := range bigrams(b.Terms(c.Text)) {
			if qs[bg] {
				s[i]++
			}
		}
	}
	return s, nil
}

// bigram is two consecutive terms.
type bigram struct{ first, second string }

// bigrams returns the set of terms' bigrams.
func bigrams(terms []string) map[bigram]bool {
	m := make(map[bigram]bool, len(terms))
	for i := 1; i < len(terms); i++ {
		m[bigram{terms[i-1], terms[i]}] = true
	}
	return m
}

// Gated multiplies a ranker's scores by the question's coverage: the
// largest share of the question's IDF mass (its unique terms, under
// Options) that one candidate holds,
//
//	g = max_c Σ_{t ∈ Q∩c} idf(t) / Σ_{t ∈ Q} idf(t),
//
// with the pool's IDF, as IDFOverlap counts it. g is the same for every
// candidate of a question, so it ranks as the ranker does. In a blend
// (rank/blend) beside the ranker itself, it lets a fit trust word matching
// more where one sentence holds most of the question (SQuAD's questions,
// written from the paragraph) than where none does (WikiQA's search
// queries): the ranker's effective weight is w + w_gated·g, a gate that
// reads no labels.
type Gated struct {
	Ranker
	Options
}

// Score implements Ranker.
func (g Gated) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	s, err := g.Ranker.Score(ctx, q)
	if err != nil {
		return nil, err
	}
	cov := g.Coverage(q)
	for i := range s {
		s[i] *= cov
	}
	return s, nil
}

// Coverage is g of Gated: 0 for a question without terms.
func (o Options) Coverage(q *dataset.Question) float64 {
	coll, terms := o.pool(q)
	qs := set(o.Terms(q.Text))
	var total float64
	for t := range qs {
		total += coll.IDF(t)
	}
	if total == 0 {
		return 0
	}
	var best float64
	for _, ct := range terms {
		best = max(best, idfHeld(coll, qs, ct))
	}
	return best / total
}
