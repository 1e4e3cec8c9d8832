package trigger

import (
	"context"
	"errors"
	"math"
	"strings"

	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
)

// Selection is answer-sentence selection's result: a document's sentences
// ranked for a question and, when the ranker is calibrated, whether the
// best one answers. as2.Select and the service's /v1/select both build it
// here, so that the library and the service agree on what the answer is.
type Selection struct {
	// Sentences are best first.
	Sentences []Selected
	// Calibrated tells whether Probability and Answer mean anything: the
	// ranker had a calibration.
	Calibrated bool
	// Probability is the calibrated probability that the best sentence
	// answers the question (the calibration judges a document's best
	// sentence only, so the others get none).
	Probability float64
	// Answer reports whether Probability reaches the calibration's
	// threshold; false means "no answer in this document".
	Answer bool
}

// Selected is one sentence of a Selection.
type Selected struct {
	Index int    // position in the document
	Text  string // the sentence
	// Score is the ranker's own score; -Inf for an empty sentence, which
	// the ranker never sees.
	Score float64
	// Start and End are the sentence's byte offsets in the document; both
	// -1 when the sentences were given rather than split from a document.
	Start, End int
}

// Ranked is the selection's order as rank.Scored (sentence index and
// score), best first, for the writers that take a ranking.
func (s Selection) Ranked() []rank.Scored {
	ranked := make([]rank.Scored, len(s.Sentences))
	for k, c := range s.Sentences {
		ranked[k] = rank.Scored{Index: c.Index, Score: c.Score}
	}
	return ranked
}

// ErrNoSentences is returned for a document without a sentence to rank,
// and ErrNoQuestion for a question of white space.
var (
	ErrNoSentences = errors.New("the document has no sentences")
	ErrNoQuestion  = errors.New("the question is empty")
)

// NewSelection builds the Selection of sentences ranked best first; cal
// (nil: not calibrated) judges the best one. Ranking stays with the
// caller, which may check the texts first (the service does).
func NewSelection(sentences []text.Sentence, ranked []rank.Scored, cal *Calibration) Selection {
	sel := Selection{Sentences: make([]Selected, len(ranked))}
	for k, s := range ranked {
		sn := sentences[s.Index]
		sel.Sentences[k] = Selected{Index: s.Index, Text: sn.Text, Score: s.Score, Start: sn.Start, End: sn.End}
	}
	if cal != nil && len(ranked) > 0 {
		sel.Calibrated = true
		// An empty best sentence (score -Inf) answers nothing; Prob would
		// say the same, but NaN-safe is cheaper than proving it.
		if best := ranked[0].Score; !math.IsInf(best, -1) && !math.IsNaN(best) {
			sel.Probability, sel.Answer = cal.Prob(best), cal.Answer(best)
		}
	}
	return sel
}

// SelectSentences ranks sentences, given in document order, for question
// with r and builds their Selection (offsets -1). Empty or white-space
// sentences are not shown to r: they come last, in order, with score -Inf,
// as as2 rank ranks them.
func SelectSentences(ctx context.Context, r rank.Ranker, cal *Calibration, question string, sentences []string) (Selection, error) {
	return selectSpans(ctx, r, cal, question, Unsplit(sentences))
}

// Unsplit gives sentences that came without a document offsets -1, for
// NewSelection.
func Unsplit(sentences []string) []text.Sentence {
	spans := make([]text.Sentence, len(sentences))
	for i, s := range sentences {
		spans[i] = text.Sentence{Text: s, Start: -1, End: -1}
	}
	return spans
}

// SelectDocument splits document into sentences (text.SplitSentences) and
// ranks them for question with r; cal (nil: none) judges the best.
func SelectDocument(ctx context.Context, r rank.Ranker, cal *Calibration, question, document string) (Selection, error) {
	return selectSpans(ctx, r, cal, question, text.SplitSentences(document))
}

func selectSpans(ctx context.Context, r rank.Ranker, cal *Calibration, question string, spans []text.Sentence) (Selection, error) {
	if isBlank(question) {
		return Selection{}, ErrNoQuestion
	}
	texts := make([]string, len(spans))
	blank := true
	for i, s := range spans {
		texts[i] = s.Text
		blank = blank && isBlank(s.Text)
	}
	if blank {
		return Selection{}, ErrNoSentences
	}
	// rank.Texts shows the ranker no blank sentence: they come last at -Inf.
	ranked, err := rank.Texts(ctx, r, question, texts)
	if err != nil {
		return Selection{}, err
	}
	return NewSelection(spans, ranked, cal), nil
}

// isBlank is dataset.Candidate.IsEmpty's test: nothing to score.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
