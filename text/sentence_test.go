package text

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

const normans = "The Normans (Norman: Nourmands; French: Normands; Latin: Normanni) were the people who in the 10th and 11th centuries gave their name to Normandy, a region in France. They were descended from Norse (\"Norman\" comes from \"Norseman\") raiders and pirates from Denmark, Iceland and Norway who, under their leader Rollo, agreed to swear fealty to King Charles III of West Francia."

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"white space only", " \n\t\u00a0 ", nil},
		{"one", "Hello world.", []string{"Hello world."}},
		{"no final period", "Hello world", []string{"Hello world"}},
		{"two", "Hello world. Bye now.", []string{"Hello world.", "Bye now."}},
		{"question and exclamation", "Who? Me! Yes.", []string{"Who?", "Me!", "Yes."}},
		{"titles", "Mr. Smith met Mrs. Jones and Dr. Brown. They talked.", []string{"Mr. Smith met Mrs. Jones and Dr. Brown.", "They talked."}},
		{"military titles", "Gen. Lee and Lt. Col. Smith met Capt. Hook and Sen. Rep. Gov. Fr. Brown.", []string{"Gen. Lee and Lt. Col. Smith met Capt. Hook and Sen. Rep. Gov. Fr. Brown."}},
		{"saint", "He was born in St. Louis. He moved.", []string{"He was born in St. Louis.", "He moved."}},
		{"street at sentence end", "He lived on Main St. The house was big.", []string{"He lived on Main St.", "The house was big."}},
		{"versus", "Roe v. Wade and Ali vs. Frazier were famous.", []string{"Roe v. Wade and Ali vs. Frazier were famous."}},
		{"e.g. and i.e.", "Some fruits, e.g. Apples, are red, i.e. Colored.", []string{"Some fruits, e.g. Apples, are red, i.e. Colored."}},
		{"etc. before lowercase", "Apples, pears, etc. are fruits.", []string{"Apples, pears, etc. are fruits."}},
		{"etc. before uppercase", "Apples, pears, etc. Bananas too.", []string{"Apples, pears, etc.", "Bananas too."}},
		{"U.S. inside sentence", "The U.S. Army was founded in 1775.", []string{"The U.S. Army was founded in 1775."}},
		{"U.S. at sentence end", "He moved to the U.S. The country was big.", []string{"He moved to the U.S.", "The country was big."}},
		{"company", "He joined Apple Inc. The company grew. Acme Co. Ltd. Products sold well.", []string{"He joined Apple Inc.", "The company grew.", "Acme Co. Ltd. Products sold well."}},
		{"number abbreviation", "It reached No. 5 on the chart. No. 1 Squadron flew.", []string{"It reached No. 5 on the chart.", "No. 1 Squadron flew."}},
		{"sentence-final no", "He said no. Then he left.", []string{"He said no.", "Then he left."}},
		{"circa", "He was born c. 1000 BC in Rome.", []string{"He was born c. 1000 BC in Rome."}},
		{"months", "On Jan. 5 and Feb. 12 it snowed. Sept. Rain fell.", []string{"On Jan. 5 and Feb. 12 it snowed.", "Sept. Rain fell."}},
		{"initials", "J. R. R. Tolkien wrote The Hobbit. It was published in 1937.", []string{"J. R. R. Tolkien wrote The Hobbit.", "It was published in 1937."}},
		{"middle initial", "George W. Bush was the 43rd president of the U.S. He served two terms.", []string{"George W. Bush was the 43rd president of the U.S.", "He served two terms."}},
		{"letter at sentence end", "They chose plan B. The plan worked.", []string{"They chose plan B.", "The plan worked."}},
		{"ordinal is not an abbreviation", "He came 1st. Mary came 2nd.", []string{"He came 1st.", "Mary came 2nd."}},
		{"decimals", "The population was 3.5 million. It grew by 1.2 percent.", []string{"The population was 3.5 million.", "It grew by 1.2 percent."}},
		{"closing quote", `He said "Go." Then he left.`, []string{`He said "Go."`, "Then he left."}},
		{"typographic closing quote", "He said “Go.” Then he left.", []string{"He said “Go.”", "Then he left."}},
		{"quote then lowercase", `"Go." he said.`, []string{`"Go." he said.`}},
		{"parentheses", "The city grew. (It was founded c. 900.) It is old.", []string{"The city grew.", "(It was founded c. 900.)", "It is old."}},
		{"parenthesis inside sentence", "The Normans (from Normandy) left. They won.", []string{"The Normans (from Normandy) left.", "They won."}},
		{"lowercase after question mark", `"Why?" he asked. Yahoo! is a company. What? No.`, []string{`"Why?" he asked.`, "Yahoo! is a company.", "What?", "No."}},
		{"citations", "He was born in 1990.[1] He died in 2000.[2][3] Then.[4] Next.[5]", []string{"He was born in 1990.[1]", "He died in 2000.[2][3]", "Then.[4]", "Next.[5]"}},
		{"unclosed bracket", "It ended.[1][ The end", []string{"It ended.[1]", "[ The end"}},
		{"senior", "Sammy Davis Sr. He sang. Sammy Davis Sr. Sang.", []string{"Sammy Davis Sr.", "He sang.", "Sammy Davis Sr. Sang."}},
		{"newlines", "Title\nFirst line. Second.\n\nNew paragraph", []string{"Title", "First line.", "Second.", "New paragraph"}},
		{"no split across line break after abbreviation", "Written by Mr.\nSmith", []string{"Written by Mr.", "Smith"}},
		{"ellipsis", "Wait... Then go.", []string{"Wait...", "Then go."}},
		{"missing space is not split", "It was big.It was old.", []string{"It was big.It was old."}},
		{"unicode", "Zürich is a city. Ça va? 北京是首都。上海很大。", []string{"Zürich is a city.", "Ça va?", "北京是首都。", "上海很大。"}},
		{"no split inside a word (ZWJ emoji)", "It ends.\u200d😀 Next one.", []string{"It ends.\u200d😀 Next one."}},
		{"invalid utf-8", "\xffBad. Good.\xc3", []string{"\xffBad.", "Good.", "\xc3"}},
		{"normans", normans, []string{
			"The Normans (Norman: Nourmands; French: Normands; Latin: Normanni) were the people who in the 10th and 11th centuries gave their name to Normandy, a region in France.",
			"They were descended from Norse (\"Norman\" comes from \"Norseman\") raiders and pirates from Denmark, Iceland and Norway who, under their leader Rollo, agreed to swear fealty to King Charles III of West Francia.",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sents := SplitSentences(tt.in)
			checkSentences(t, tt.in, sents)
			var got []string
			for _, s := range sents {
				got = append(got, s.Text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("SplitSentences(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitSentencesOffsets(t *testing.T) {
	in := "  Zürich is big.  It is old. \n"
	want := []Sentence{
		{Text: "Zürich is big.", Start: 2, End: 17},
		{Text: "It is old.", Start: 19, End: 29},
	}
	if got := SplitSentences(in); !slices.Equal(got, want) {
		t.Errorf("SplitSentences(%q) = %+v, want %+v", in, got, want)
	}
}

// TestSplitSentencesAnswerOffset is the SQuAD use: find the sentence that
// holds an answer given by its byte offset in the paragraph.
func TestSplitSentencesAnswerOffset(t *testing.T) {
	answer := "Rollo"
	off := strings.Index(normans, answer)
	sents := SplitSentences(normans)
	i := slices.IndexFunc(sents, func(s Sentence) bool { return s.Start <= off && off+len(answer) <= s.End })
	if i != 1 {
		t.Fatalf("answer %q at %d found in sentence %d, want 1", answer, off, i)
	}
}

func TestSplitSentencesHuge(t *testing.T) {
	s := strings.Repeat("Mr. Smith paid $3.5 million. He left \xff for the U.S. Army. ", 20000)
	if got, want := len(SplitSentences(s)), 40000; got != want {
		t.Errorf("got %d sentences, want %d", got, want)
	}
}

// checkSentences asserts the invariants every SplitSentences result must
// satisfy: exact offsets, order, no overlap, every non-space byte covered.
func checkSentences(t *testing.T, in string, sents []Sentence) {
	t.Helper()
	if strings.TrimSpace(in) == "" && sents != nil {
		t.Fatalf("SplitSentences(%q) = %+v, want nil", in, sents)
	}
	prev := 0
	for i, s := range sents {
		if s.Start < prev || s.End <= s.Start || s.End > len(in) {
			t.Fatalf("SplitSentences(%q): sentence %d has bad offsets [%d, %d) after %d", in, i, s.Start, s.End, prev)
		}
		if in[s.Start:s.End] != s.Text {
			t.Fatalf("SplitSentences(%q): sentence %d: in[%d:%d] = %q, Text = %q", in, i, s.Start, s.End, in[s.Start:s.End], s.Text)
		}
		if strings.TrimSpace(s.Text) != s.Text {
			t.Fatalf("SplitSentences(%q): sentence %d not trimmed: %q", in, i, s.Text)
		}
		if gap := in[prev:s.Start]; strings.TrimFunc(gap, unicode.IsSpace) != "" {
			t.Fatalf("SplitSentences(%q): text %q before sentence %d not covered", in, gap, i)
		}
		prev = s.End
	}
	if tail := in[prev:]; strings.TrimFunc(tail, unicode.IsSpace) != "" {
		t.Fatalf("SplitSentences(%q): trailing text %q not covered", in, tail)
	}
	// A sentence never ends inside a UAX #29 word: there is a word boundary
	// between its end and the next non-space character. (Trimming may cut
	// white space that UAX #29 glues to a word, as in "0\u202f".)
	w := wordBoundaries{rest: in, state: -1}
	for i, s := range sents {
		after := strings.TrimLeftFunc(in[s.End:], unicode.IsSpace)
		if w.at(s.End); w.pos > len(in)-len(after) {
			t.Fatalf("SplitSentences(%q): sentence %d ends inside a word: %q", in, i, s.Text)
		}
	}
}

func FuzzSplitSentences(f *testing.F) {
	for _, s := range []string{
		"", normans, "Mr. Smith went to the U.S. He left.", `He said "Go." Then (no.) 3.5`,
		"a.\u200d😀 B", "\xffBad. Good.\xc3", "Line\r\nbreak.\u2029 X",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSentences(t, s, SplitSentences(s))
	})
}
