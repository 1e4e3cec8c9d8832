package serve

import (
	"github.com/as2/as2/model/passage"
	"github.com/as2/as2/rank"
)

// InputLimiter is implemented by a ranker that reads at most
// MaxInputTokens tokens (package text's tokenizer) of a question and a
// candidate together, such as a cross-encoder: the server splits a longer
// document into passages that fit, scores each, and gives the document its
// best passage's score. It is package passage's, which ranks documents by
// their passages for the service, as2.Passages and as2 rank alike; see
// there for sentence-level rankers and cross-encoders.
type InputLimiter = passage.InputLimiter

const (
	// DefaultPassageTokens is the passage length for a ranker with no
	// input limit (a sentence-level one): passage.DefaultTokens.
	DefaultPassageTokens = passage.DefaultTokens
	// DefaultMaxChunks is max_chunks_per_doc when a request gives none,
	// Cohere's default: the passages of a document scored at most.
	DefaultMaxChunks = passage.DefaultMaxChunks
	// minPassageTokens keeps a passage useful when a long question leaves
	// the model little room.
	minPassageTokens = passage.MinTokens
)

// passageTokens is the passage length for question with r, in tokens,
// and whether r reads passages rather than sentences (passage.Length).
func passageTokens(r rank.Ranker, question string) (int, bool) {
	return passage.Length(r, question)
}
