package rank

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/text"
)

// AnswerKind is the kind of answer a question asks for, read off its first
// wh-word: the coarse classes of question classification (Li and Roth 2002:
// NUM, HUM, LOC, ENTY) that a sentence can show without a tagger.
type AnswerKind int

const (
	// AnyKind: the question's wh-word says nothing checkable ("what is",
	// "why", "how did").
	AnyKind AnswerKind = iota
	// Quantity: "how many", "how much", "how long", "what percentage".
	Quantity
	// Date: "when", "what year", "which century".
	Date
	// Name: "who", "where", "which company": a person, place or
	// organisation, which English text capitalises.
	Name
)

// String returns the kind's name.
func (k AnswerKind) String() string {
	switch k {
	case Quantity:
		return "quantity"
	case Date:
		return "date"
	case Name:
		return "name"
	}
	return "any"
}

// Words after "how" and after "what"/"which" that fix the answer's kind,
// and the words that show a quantity or a date.
var (
	howQuantity  = set(strings.Fields("many much long far old tall big large high fast deep wide heavy often"))
	nounQuantity = set(strings.Fields("percent percentage number amount proportion fraction population"))
	nounDate     = set(strings.Fields("year years date day month century decade era"))
	nounName     = set(strings.Fields(`country countries city cities state town county province region continent
		island river mountain company companies corporation firm team club band group university college school
		party person man woman actor actress singer author president king queen organization organisation
		language nationality religion`))
	numberWords = set(strings.Fields(`one two three four five six seven eight nine ten eleven twelve thirteen
		fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
		ninety hundred hundreds thousand thousands million millions billion billions trillion quadrillion
		quintillion dozen dozens half`))
	// "may" is left out: far more often a verb than the month.
	dateWords = set(strings.Fields(`january february march april june july august september october november
		december century centuries bc bce ad ce`))
)

// KindOf classifies a question by its first wh-word, and the word after it
// for "how", "what" and "which". A "who" after another wh-word ("What are
// people who ...") is a relative pronoun, not the question's, so only the
// first counts.
func KindOf(question string) AnswerKind { return kindOf(text.Tokenize(question)) }

// kindOf is KindOf over the question's tokens.
func kindOf(toks []string) AnswerKind {
	for i, t := range toks {
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch t {
		case "who", "whom", "whose", "where":
			return Name
		case "when":
			return Date
		case "how":
			if howQuantity[next] {
				return Quantity
			}
			return AnyKind
		case "what", "which":
			switch {
			case nounQuantity[next]:
				return Quantity
			case nounDate[next]:
				return Date
			case nounName[next]:
				return Name
			}
			return AnyKind
		case "why":
			return AnyKind
		}
	}
	return AnyKind
}

// AnswerType scores 1 for a candidate that holds a word of the kind the
// question asks for (KindOf) which the question does not already hold, and 0
// for the others: a number for a quantity; a year (four digits, or a
// decade such as "1990s"), month or era word for a date; a capitalised word
// other than the candidate's first for a name. A question of no checkable
// kind scores every candidate 0, and so does lowercased text for names.
//
// It is the answer-type match of feature-based AS2 (the question
// classifier and named-entity match of Wang, Smith and Mitamura 2007, and
// of IBM Watson's candidate scoring), reduced to what a sentence's own
// characters show. Alone it only splits candidates in two; it is meant as a
// feature of a blend (rank/blend), where it tells apart sentences that
// share the question's words but not its answer.
type AnswerType struct{}

// Score implements Ranker.
func (AnswerType) Score(_ context.Context, q *dataset.Question) ([]float64, error) {
	s := make([]float64, len(q.Candidates))
	toks := text.Tokenize(q.Text)
	kind := kindOf(toks)
	if kind == AnyKind {
		return s, nil
	}
	inQuestion := set(toks)
	for i, c := range q.Candidates {
		if holdsKind(c.Text, kind, inQuestion) {
			s[i] = 1
		}
	}
	return s, nil
}

// holdsKind reports whether sentence has a word of the kind that is not in
// the question (its lowercase tokens).
func holdsKind(sentence string, kind AnswerKind, inQuestion map[string]bool) bool {
	first := true
	for state := -1; sentence != ""; {
		var w string
		w, sentence, state = uniseg.FirstWordInString(sentence, state)
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		wasFirst := first
		first = false
		toks := text.Tokenize(w) // lowercase, "Rubik's" → "rubik" "'s"
		if len(toks) == 0 || inQuestion[toks[0]] {
			continue
		}
		lw := toks[0]
		switch kind {
		case Quantity:
			if unicode.IsDigit(r) || numberWords[lw] {
				return true
			}
		case Date:
			if isYear(lw) || dateWords[lw] {
				return true
			}
		case Name:
			if !wasFirst && unicode.IsUpper(r) && !text.IsStopword(lw) {
				return true
			}
		}
	}
	return false
}

// isYear reports whether w is a four-digit year from 1000 to 2099, or a
// decade written as one ("1990s").
func isYear(w string) bool {
	w = strings.TrimSuffix(w, "s")
	if len(w) != 4 || (w[0] != '1' && !strings.HasPrefix(w, "20")) {
		return false
	}
	for i := 0; i < 4; i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}
