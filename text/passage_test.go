package text

import (
	"strings"
	"testing"
)

func TestSplitPassages(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		maxTokens int
		want      []string
	}{
		{"empty", "  ", 10, nil},
		{"fits whole", "One two three. Four five six.", 100, []string{"One two three. Four five six."}},
		// Each sentence is 4 tokens (3 words and the period): two fit in 8,
		// and each passage after the first repeats the previous last one.
		{"overlap", "A b c. D e f. G h i. J k l.", 8, []string{"A b c. D e f.", "D e f. G h i.", "G h i. J k l."}},
		// A sentence over the budget is a passage alone, never cut, and
		// no passage repeats it alone.
		{"long sentence", "A b c. D e f g h i j k l m. N o p.", 8, []string{"A b c.", "D e f g h i j k l m.", "N o p."}},
		{"budget of one sentence", "A b c. D e f. G h i.", 4, []string{"A b c.", "D e f.", "G h i."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sents := SplitSentences(tt.in)
			got := SplitPassages(tt.in, sents, tt.maxTokens)
			if len(got) != len(tt.want) {
				t.Fatalf("%d passages %q, want %d %q", len(got), texts(got), len(tt.want), tt.want)
			}
			for i, p := range got {
				if p.Text != tt.want[i] {
					t.Errorf("passage %d = %q, want %q", i, p.Text, tt.want[i])
				}
				if tt.in[p.Start:p.End] != p.Text {
					t.Errorf("passage %d: offsets [%d, %d) give %q, not its text", i, p.Start, p.End, tt.in[p.Start:p.End])
				}
				if p.Start != sents[p.First].Start || p.End != sents[p.Last-1].End {
					t.Errorf("passage %d: sentences [%d, %d) do not span [%d, %d)", i, p.First, p.Last, p.Start, p.End)
				}
			}
		})
	}
}

func TestSplitPassagesCoversEverySentence(t *testing.T) {
	in := strings.Repeat("The quick brown fox jumps over the lazy dog. It ran away! ", 50)
	sents := SplitSentences(in)
	ps := SplitPassages(in, sents, 30)
	next := 0
	for i, p := range ps {
		if p.First > next {
			t.Fatalf("passage %d starts at sentence %d: sentence %d is in no passage", i, p.First, next)
		}
		if n := len(Tokenize(p.Text)); n > 30 && p.Last-p.First > 1 {
			t.Errorf("passage %d has %d tokens, over 30", i, n)
		}
		next = p.Last
	}
	if next != len(sents) {
		t.Errorf("passages end at sentence %d of %d", next, len(sents))
	}
}

func texts(ps []Passage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Text
	}
	return out
}

// FuzzSplitPassages: for any text and budget, every passage is the text
// at its offsets and spans its sentences, every sentence is in a passage,
// and each passage after the first begins at or after the previous one's
// last sentence (an overlap of at most one).
func FuzzSplitPassages(f *testing.F) {
	f.Add("A b c. D e f. G h i. J k l.", 8)
	f.Add("A b c. D e f g h i j k l m. N o p.", 4)
	f.Add("  \n\n", 3)
	f.Add("Mr. Smith went to Washington. He arrived at 3 p.m.!\n\nThen? Nothing.", 1)
	f.Fuzz(func(t *testing.T, s string, maxTokens int) {
		sents := SplitSentences(s)
		ps := SplitPassages(s, sents, maxTokens%500)
		next := 0
		for i, p := range ps {
			if p.Start < 0 || p.End > len(s) || p.Start > p.End || s[p.Start:p.End] != p.Text {
				t.Fatalf("passage %d: offsets [%d, %d) do not give its text %q", i, p.Start, p.End, p.Text)
			}
			if p.First >= p.Last || p.Start != sents[p.First].Start || p.End != sents[p.Last-1].End {
				t.Fatalf("passage %d: sentences [%d, %d) do not span [%d, %d)", i, p.First, p.Last, p.Start, p.End)
			}
			if p.First > next || (i > 0 && p.First < ps[i-1].Last-1) {
				t.Fatalf("passage %d starts at sentence %d after passage %d ended at %d", i, p.First, i-1, next)
			}
			next = p.Last
		}
		if next != len(sents) {
			t.Fatalf("passages end at sentence %d of %d", next, len(sents))
		}
	})
}
