package rank

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
)

func question(q string, cands ...string) *dataset.Question {
	out := &dataset.Question{ID: "q", Text: q}
	for i, c := range cands {
		out.Candidates = append(out.Candidates, dataset.Candidate{ID: string(rune('a' + i)), Text: c, Position: i, Label: dataset.Unlabeled})
	}
	return out
}

func scores(t *testing.T, name string, opts Options, q *dataset.Question) []float64 {
	t.Helper()
	r, err := New(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLexicalRankers(t *testing.T) {
	q := question("Who wrote the play Hamlet?",
		"Hamlet is a play.",                           // hamlet, play: 2 (the: no)
		"The play Hamlet was written by Shakespeare.", // the, play, hamlet: 3
		"Nothing here.",                               // 0
		"Hamlet, Hamlet, hamlet!")                     // hamlet: 1
	def := DefaultOptions()
	for _, tc := range []struct {
		name string
		opts Options
		want []float64
	}{
		{"rr", def, []float64{1, 0.5, 1.0 / 3, 0.25}},
		{"wo", def, []float64{2, 3, 0, 1}},
		{"wo+rr", def, []float64{2 + 1.0/2, 3 + 1.0/3, 0 + 1.0/4, 1 + 1.0/5}},
		{"wo", Options{Stopwords: true}, []float64{2, 2, 0, 1}},
		// question terms {who wrote the play hamlet} (5); candidate 1 {hamlet is a play} (4): 2 / 7
		{"jaccard", def, []float64{2.0 / 7, 3.0 / 9, 0, 1.0 / 5}}, // candidate 2: 3 shared of 5 + 7 - 3
	} {
		got := scores(t, tc.name, tc.opts, q)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s %+v: scores %v, want %v", tc.name, tc.opts, got, tc.want)
				break
			}
		}
	}
}

func TestStemmedRankers(t *testing.T) {
	q := question("Who invented the Rubik's Cube?",
		"The cube was an invention of Rubik.", // stems: cube, invent, rubik: 3
		"Rubik's cubes are colourful.",        // rubik, cube: 2
		"The toy was sold widely.")            // 0
	def := DefaultOptions()
	for _, tc := range []struct {
		name string
		opts Options
		want []float64
	}{
		{"wo", def, []float64{3, 2, 1}}, // the cube rubik; rubik 's; the
		{"wo-stem", def, []float64{3, 2, 0}},
		{"WO-Stem", def, []float64{3, 2, 0}},
		{"wo", Options{Stopwords: true, Stem: true}, []float64{3, 2, 0}},
		{"wo+rr-stem", def, []float64{3 + 1.0/2, 2 + 1.0/3, 1.0 / 4}},
		// question bigrams: (who invented) (invented the) (the rubik)
		// (rubik 's) ('s cube); candidate 1 holds (rubik 's) only ("cubes"
		// is not "cube")
		{"bigram", def, []float64{0, 1, 0}},
		// stems without stopwords: (invent rubik) (rubik cube); candidate 0
		// holds the first across "of", candidate 1 the second
		{"bigram-stem", def, []float64{1, 1, 0}},
	} {
		got := scores(t, tc.name, tc.opts, q)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %+v: scores %v, want %v", tc.name, tc.opts, got, tc.want)
		}
	}
	for _, name := range []string{"rr-stem", "magic-stem", "-stem"} {
		if _, err := New(name, def); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// TestGated checks the coverage gate against its formula, and that a
// gated name is refused where the base ranker matches no words.
func TestGated(t *testing.T) {
	// Pool of 3; df(red) = 2, df(apple) = 1, df(pie) = 0 (in no candidate).
	q := question("red apple pie", "red apple", "red red red car", "green pear")
	idf := func(df float64) float64 { return math.Log(1 + (3-df+0.5)/(df+0.5)) }
	g := (idf(2) + idf(1)) / (idf(2) + idf(1) + idf(0)) // candidate 0 holds red and apple
	for _, name := range []string{"bm25", "wo", "idf-overlap-stem"} {
		base := scores(t, name, DefaultOptions(), q)
		got := scores(t, name+GatedSuffix, DefaultOptions(), q)
		for i := range base {
			if math.Abs(got[i]-g*base[i]) > 1e-12 {
				t.Errorf("%s%s: scores %v, want %v times %v", name, GatedSuffix, got, base, g)
				break
			}
		}
	}
	for _, tc := range []struct {
		question string
		cands    []string
		want     float64
	}{
		{"red apple", []string{"red apple", "pear"}, 1},
		{"red apple", []string{"pear", "fig"}, 0},
		{"", []string{"red"}, 0},                 // no terms
		{"the of", []string{"the of"}, 0},        // stopwords only, under -stem
		{"Apples", []string{"an apple", "x"}, 1}, // stems
	} {
		if got := DefaultOptions().ForRanker("bm25-stem").Coverage(question(tc.question, tc.cands...)); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("coverage of %q in %q: %v, want %v", tc.question, tc.cands, got, tc.want)
		}
	}
	for _, name := range []string{"rr-gated", "answer-type-gated", "-gated", "bm25-gated-stem", "bm25-gated-gated"} {
		if _, err := New(name, DefaultOptions()); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if o := DefaultOptions().ForRanker("bm25-stem-gated"); !o.Stem || !o.Stopwords {
		t.Errorf("bm25-stem-gated options %+v: want stems without stopwords", o)
	}
}

func TestBM25MatchesFormula(t *testing.T) {
	q := question("red apple", "red apple", "red red red car", "green pear")
	got := scores(t, "bm25", DefaultOptions(), q)
	// Pool: N = 3; df(red) = 2, df(apple) = 1; lengths 2, 4, 2, avg 8/3.
	idf := func(df float64) float64 { return math.Log(1 + (3-df+0.5)/(df+0.5)) }
	term := func(tf, dl float64) float64 {
		return tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/(8.0/3)))
	}
	want := []float64{idf(2)*term(1, 2) + idf(1)*term(1, 2), idf(2) * term(3, 4), 0}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("bm25 %v, want %v", got, want)
		}
	}
	idfo := scores(t, "idf-overlap", DefaultOptions(), q)
	if want := []float64{idf(2) + idf(1), idf(2), 0}; math.Abs(idfo[0]-want[0])+math.Abs(idfo[1]-want[1])+idfo[2] > 1e-12 {
		t.Fatalf("idf-overlap %v, want %v", idfo, want)
	}
}

// A collection counted for a -stem ranker holds stems, as the ranker
// looks them up.
func TestCollectionForStemmedRanker(t *testing.T) {
	qs := []dataset.Question{*question("capitals", "the capital", "capitals of the world")}
	c := NewCollection(qs, DefaultOptions().ForRanker("bm25-stem"))
	if c.DF["capit"] != 2 || c.DF["the"] != 0 {
		t.Fatalf("collection %+v", c)
	}
	if o := DefaultOptions().ForRanker("BM25"); o.Stem || o.Stopwords {
		t.Fatalf("bm25 options %+v", o)
	}
}

func TestCollectionIDF(t *testing.T) {
	qs := []dataset.Question{*question("x", "a b", "a c"), *question("y", "a b", "d")} // "a b" shared: counted once
	c := NewCollection(qs, DefaultOptions())
	if c.N != 3 || c.DF["a"] != 2 || c.DF["d"] != 1 || c.AvgLen != 5.0/3 {
		t.Fatalf("collection %+v", c)
	}
}

func TestRankersIgnoreLabels(t *testing.T) {
	q := question("who wrote hamlet", "hamlet by shakespeare", "a play", "hamlet")
	for _, name := range slices.Concat(Names, []string{"bm25" + StemSuffix, "idf-overlap" + StemSuffix}) {
		before := scores(t, name, DefaultOptions(), q)
		labelled := *q
		labelled.Candidates = append([]dataset.Candidate(nil), q.Candidates...)
		for i := range labelled.Candidates {
			labelled.Candidates[i].Label = i % 2
		}
		if after := scores(t, name, DefaultOptions(), &labelled); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: labels changed the scores: %v vs %v", name, before, after)
		}
	}
}

func TestOrderBreaksTiesByPosition(t *testing.T) {
	q := question("q", "a", "b", "c", "d")
	q.Candidates[0].Position, q.Candidates[1].Position, q.Candidates[2].Position, q.Candidates[3].Position = 3, 2, 1, 0
	got := Order(q, []float64{1, 2, 1, 1})
	if want := []int{1, 3, 2, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestRankChecksScoreCount(t *testing.T) {
	bad := Func(func(context.Context, *dataset.Question) ([]float64, error) { return []float64{1}, nil })
	if _, err := Rank(context.Background(), bad, question("q", "a", "b")); err == nil {
		t.Fatal("a ranker returning too few scores was accepted")
	}
}

func TestUnknownRanker(t *testing.T) {
	if _, err := New("magic", DefaultOptions()); err == nil {
		t.Fatal("unknown ranker accepted")
	}
}

func TestBigramOverlap(t *testing.T) {
	def := DefaultOptions()
	for _, tc := range []struct {
		question string
		cands    []string
		want     []float64
	}{
		// order matters: "cube rubik" is not "rubik cube"
		{"rubik cube", []string{"rubik cube", "cube rubik", "rubik and cube"}, []float64{1, 0, 0}},
		// a repeated bigram counts once, on either side
		{"the cube the cube", []string{"the cube and the cube", "cube"}, []float64{1, 0}},
		// a one-word question has no bigram
		{"cube", []string{"cube cube"}, []float64{0}},
		{"", []string{"", "a b"}, []float64{0, 0}},
	} {
		if got := scores(t, "bigram", def, question(tc.question, tc.cands...)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q %q: scores %v, want %v", tc.question, tc.cands, got, tc.want)
		}
	}
}

// FuzzRankers checks that every rule-based ranker, plain, stemmed and gated,
// scores any question and candidates without error, with one finite score
// per candidate.
func FuzzRankers(f *testing.F) {
	f.Add("Who invented the Rubik's Cube?", "The Rubik's Cube was invented in 1974.", "")
	f.Add("", "\x00\xff", "  ")
	f.Add("how many how many", "1 2 1 2", "Rubik's Rubik's")
	var names []string
	for _, n := range Names {
		names = append(names, n)
		if Known(n + StemSuffix) {
			names = append(names, n+StemSuffix, n+StemSuffix+GatedSuffix)
		}
	}
	f.Fuzz(func(t *testing.T, qtext, a, b string) {
		q := question(qtext, a, b)
		for _, n := range names {
			s := scores(t, n, DefaultOptions(), q)
			if len(s) != 2 {
				t.Fatalf("%s: %d scores for 2 candidates", n, len(s))
			}
			for _, v := range s {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s %q %q %q: score %v", n, qtext, a, b, v)
				}
			}
		}
	})
}

// TestTextsSkipsEmpty: a ranker never sees an empty or white-space text;
// those come last, in their order, at -Inf.
func TestTextsSkipsEmpty(t *testing.T) {
	r := Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
		out := make([]float64, len(q.Candidates))
		for i, c := range q.Candidates {
			if strings.TrimSpace(c.Text) == "" {
				t.Fatalf("the ranker was shown an empty candidate %q", c.Text)
			}
			out[i] = float64(len(c.Text))
		}
		return out, nil
	})
	for _, tc := range []struct {
		texts []string
		want  []int
	}{
		{[]string{"", "ab", " ", "abc"}, []int{3, 1, 0, 2}},
		{[]string{"a", "abc"}, []int{1, 0}},
		{[]string{"\t", ""}, []int{0, 1}},
	} {
		ranked, err := Texts(context.Background(), r, "q", tc.texts)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, s := range ranked {
			got = append(got, s.Index)
			if empty := strings.TrimSpace(tc.texts[s.Index]) == ""; empty != math.IsInf(s.Score, -1) {
				t.Errorf("%q: text %d scored %v", tc.texts, s.Index, s.Score)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: order %v, want %v", tc.texts, got, tc.want)
		}
	}
}
