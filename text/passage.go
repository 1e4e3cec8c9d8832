package text

// Passage is a run of whole sentences of a text: its text and the byte
// offsets [Start, End) of that text in the original string, and the
// sentences [First, Last) of the split it was made from.
type Passage struct {
	Text        string
	Start, End  int
	First, Last int
}

// SplitPassages groups the sentences of s (SplitSentences(s), given as
// sents) into passages of at most maxTokens tokens (as Tokenize counts
// them), in order, for a model that reads so much at a time. Each passage
// after the first begins with the previous one's last sentence, so that
// an answer whose context crosses a boundary is whole in one passage; the
// overlap is dropped where it would leave no room for a new sentence. A
// sentence is never cut: one longer than maxTokens is a passage alone
// (the model then reads its beginning). No sentences give nil.
func SplitPassages(s string, sents []Sentence, maxTokens int) []Passage {
	if len(sents) == 0 {
		return nil
	}
	maxTokens = max(maxTokens, 1)
	toks := make([]int, len(sents))
	for i, sn := range sents {
		toks[i] = len(Tokenize(sn.Text))
	}
	var out []Passage
	for i := 0; i < len(sents); {
		j, n := i, 0
		for j < len(sents) && (j == i || n+toks[j] <= maxTokens) {
			n += toks[j]
			j++
		}
		out = append(out, Passage{Text: s[sents[i].Start:sents[j-1].End], Start: sents[i].Start, End: sents[j-1].End, First: i, Last: j})
		if j == len(sents) {
			break
		}
		// Overlap by the last sentence only when the next one fits beside
		// it; otherwise the next passage would repeat it alone.
		if j-1 > i && toks[j-1]+toks[j] <= maxTokens {
			i = j - 1
		} else {
			i = j
		}
	}
	return out
}
