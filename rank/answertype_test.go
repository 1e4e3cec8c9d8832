package rank

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/internal/shareddata"
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

// TestAnswerTypeSeparatesAnswers measures, on real dev data, how often a
// correct candidate holds the kind of word its question asks for against
// the other candidates (the rates in notes/2026-11-26-default-answer-type.md: go test -v -run
// AnswerTypeSeparates ./rank), and checks that dates and quantities are
// more common in answers.
func TestAnswerTypeSeparatesAnswers(t *testing.T) {
	data := shareddata.Dir(t)
	for _, c := range []struct{ name, split string }{{"wikiqa", "dev"}, {"squad", "train"}} {
		all, err := catalog.Load(c.name, filepath.Join(data, c.name), c.split, catalog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		qs := dataset.Filter(all, dataset.Answered)
		if len(qs) > 1000 {
			qs = qs[:1000] // SQuAD: the first 1,000 questions of the train half
		}
		type count struct{ questions, gold, goldHit, other, otherHit int }
		counts := map[AnswerKind]*count{}
		for i := range qs {
			q := &qs[i]
			k := KindOf(q.Text)
			if k == AnyKind {
				continue
			}
			s, err := AnswerType{}.Score(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if counts[k] == nil {
				counts[k] = &count{}
			}
			n := counts[k]
			n.questions++
			for j, cand := range q.Candidates {
				if cand.Label == dataset.Positive {
					n.gold++
					n.goldHit += int(s[j])
				} else {
					n.other++
					n.otherHit += int(s[j])
				}
			}
		}
		for _, k := range []AnswerKind{Quantity, Date, Name} {
			n := counts[k]
			if n == nil || n.gold == 0 || n.other == 0 {
				t.Errorf("%s %s: no %s questions with both kinds of candidate", c.name, c.split, k)
				continue
			}
			gold, other := float64(n.goldHit)/float64(n.gold), float64(n.otherHit)/float64(n.other)
			t.Logf("%s %s, %s: %d questions; in %.0f%% of answers, %.0f%% of other candidates", c.name, c.split, k, n.questions, 100*gold, 100*other)
			if k != Name && gold <= other {
				t.Errorf("%s %s, %s: answers hold the kind no more often than other candidates", c.name, c.split, k)
			}
		}
	}
}
