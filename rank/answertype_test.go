package rank

import (
	"reflect"
	"testing"
)

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want AnswerKind
	}{
		{"How many stickers does each face have?", Quantity},
		{"how much did the film gross", Quantity},
		{"What percentage of voters turned out?", Quantity},
		{"When did the Berlin Wall fall?", Date},
		{"In what year was the cube invented?", Date},
		{"which century saw the plague", Date},
		{"Who invented the Rubik's Cube?", Name},
		{"Where is the Eiffel Tower?", Name},
		{"Which company first sold the toy?", Name},
		{"The Normans were in what country?", Name}, // the wh-word need not lead
		// Only the first wh-word counts: "who" here is a relative pronoun.
		{"What are people who compete in solving the cube called?", AnyKind},
		{"How did the war end?", AnyKind},
		{"what is a puzzle", AnyKind},
		{"why do cats purr when happy", AnyKind},
		{"", AnyKind},
	} {
		if got := KindOf(tc.q); got != tc.want {
			t.Errorf("KindOf(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestAnswerType(t *testing.T) {
	def := DefaultOptions()
	for _, tc := range []struct {
		q     string
		cands []string
		want  []float64
	}{
		{"How many cubes were sold?", []string{
			"More than 450 million cubes were sold.",
			"Cubes were sold by the dozen.",  // a number word
			"The cube sold well.",            // no number
			"Cubes sold: about forty-three.", // "forty" of "forty-three"
		}, []float64{1, 1, 0, 1}},
		{"When was the toy licensed?", []string{
			"It was licensed in 1980.",
			"It was licensed in the 1980s.",
			"It was licensed in March.",
			"It was licensed 450 times.", // not a year
			"It may be licensed.",        // "may": not counted as the month
		}, []float64{1, 1, 1, 0, 0}},
		{"In 1980, when was the toy licensed?", []string{"It was licensed in 1980."}, []float64{0}}, // the question's own year
		{"Who invented the cube?", []string{
			"It was invented by Ernő Rubik.",
			"Cube puzzles are old.",            // only the first word is capitalised
			"it was invented by ernő rubik.",   // lowercased text shows no names
			"The Cube was invented in Europe.", // "Europe"; "Cube" is the question's
			"The cube was invented, they say.",
		}, []float64{1, 0, 0, 1, 0}},
		{"What is a cube?", []string{"A cube has 6 faces.", "Rubik made one."}, []float64{0, 0}},
	} {
		if got := scores(t, "answer-type", def, question(tc.q, tc.cands...)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: scores %v, want %v", tc.q, got, tc.want)
		}
	}
	if _, err := New("answer-type"+StemSuffix, def); err == nil {
		t.Error("answer-type-stem accepted: answer-type matches no words to stem")
	}
}

func FuzzAnswerType(f *testing.F) {
	f.Add("How many?", "About 40 of them.")
	f.Add("Who, when?", "Ernő  \u00ad Rubik's 1990s")
	f.Fuzz(func(t *testing.T, q, c string) {
		s := scores(t, "answer-type", DefaultOptions(), question(q, c, ""))
		if len(s) != 2 || (s[0] != 0 && s[0] != 1) || s[1] != 0 {
			t.Fatalf("scores %v", s)
		}
	})
}
