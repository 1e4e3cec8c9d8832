package as2

import (
	"context"
	"fmt"
	"strings"

	"github.com/as2/as2/model/passage"
)

// Passage is one scored passage of a document: a run of whole sentences,
// its text and byte offsets [Start, End) in the document, its score and,
// for a sentence-level ranker (the built-in model), its best sentence.
type Passage = passage.Scored

// DefaultMaxChunks is the service's max_chunks_per_doc when a request
// gives none (Cohere's default), and as2 rank's --max-chunks.
const DefaultMaxChunks = passage.DefaultMaxChunks

// PassageRanking is a document's passages ranked for a question, best
// first, with the calibrated probability that the best one answers and
// whether it does. The best passage is what the service's /v1/rerank
// returns as a long document's "passage".
type PassageRanking struct {
	// Passages are the scored passages, best first.
	Passages []Passage
	// Total is how many passages the document has: more than
	// len(Passages) when maxChunks cut it.
	Total int
	// Calibrated says Probability and Answer were computed: the best
	// passage's score under the calibration, and whether it reaches the
	// calibration's threshold.
	Calibrated  bool
	Probability float64
	Answer      bool
}

// Truncated reports whether maxChunks left passages unscored.
func (p PassageRanking) Truncated() bool { return len(p.Passages) < p.Total }

// Passages splits document into passages of whole sentences (each
// beginning with the previous one's last sentence) and ranks them for
// question with the built-in model (or WithRanker's), as the service
// ranks a long document (package model/passage). A ranker with an input
// length, such as a cross-encoder, scores each passage, of at most that
// length; a sentence-level ranker (the built-in model, the rules) scores
// the sentences, and a passage of about 200 tokens scores as its best
// sentence, which it names. maxChunks scores only the first maxChunks
// passages (the service's max_chunks_per_doc, DefaultMaxChunks by
// default there); 0 scores them all.
func Passages(ctx context.Context, question, document string, maxChunks int, opts ...SelectOption) (PassageRanking, error) {
	switch {
	case strings.TrimSpace(question) == "":
		return PassageRanking{}, fmt.Errorf("as2.Passages: %w", ErrNoQuestion)
	case maxChunks < 0:
		return PassageRanking{}, fmt.Errorf("as2.Passages: maxChunks %d: want 0 (all) or more", maxChunks)
	}
	r, cal, err := selectRanker(opts)
	if err != nil {
		return PassageRanking{}, err
	}
	docs, err := passage.Rank(ctx, r, question, []string{document}, passage.Options{MaxChunks: maxChunks, Split: true})
	if err != nil {
		return PassageRanking{}, fmt.Errorf("as2.Passages: %w", err)
	}
	d := docs[0]
	if d.Best() == nil {
		return PassageRanking{}, fmt.Errorf("as2.Passages: %w", ErrNoSentences)
	}
	out := PassageRanking{Passages: d.Passages, Total: d.Total}
	if cal != nil {
		out.Calibrated, out.Probability, out.Answer = true, cal.Prob(d.Score), cal.Answer(d.Score)
	}
	return out, nil
}
