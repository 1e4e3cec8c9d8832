package serve

import (
	"strings"
	"testing"

	"github.com/as2/as2/text"
)

func TestBeginWithin(t *testing.T) {
	// Twelve sentences of ten tokens each; passages of at most 25 tokens
	// are two sentences overlapping by one, so passage k begins at token
	// 10k.
	doc := strings.TrimSpace(strings.Repeat("One two three four five six seven eight nine. ", 12))
	sents := text.SplitSentences(doc)
	ps := text.SplitPassages(doc, sents, 25)
	if len(sents) != 12 || len(ps) != 11 || ps[1].First != 1 {
		t.Fatalf("%d sentences, %d passages (second from sentence %d): want 12, 11 and 1", len(sents), len(ps), ps[1].First)
	}
	for _, tt := range []struct{ maxTokens, want int }{
		{1, 1}, // the first passage always counts
		{10, 1},
		{11, 2},
		{35, 4},
		{1000, 11},
	} {
		if got := beginWithin(sents, ps, tt.maxTokens); got != tt.want {
			t.Errorf("beginWithin(%d) = %d, want %d", tt.maxTokens, got, tt.want)
		}
	}
}
