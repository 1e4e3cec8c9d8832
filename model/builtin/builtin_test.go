package builtin_test

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/kernel"
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/model/quant"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
)

// paragraphQuestion is a question about a testdata paragraph with the
// index of its answering sentence (-1: the paragraph has none).
type paragraphQuestion struct {
	text string
	gold int
}

// readParagraph reads testdata/name's sentences and testdata/questions's
// questions.
func readParagraph(t *testing.T, name, questions string) ([]string, []paragraphQuestion) {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var sents []string
	for _, s := range text.SplitSentences(string(raw)) {
		sents = append(sents, s.Text)
	}
	f, err := os.Open("testdata/" + questions)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []paragraphQuestion
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		q, g, ok := strings.Cut(line, "\t")
		gold := -1
		if g != "-" {
			gold, err = strconv.Atoi(g)
		}
		if !ok || err != nil || gold >= len(sents) {
			t.Fatalf("%s: bad line %q", questions, line)
		}
		qs = append(qs, paragraphQuestion{q, gold})
	}
	return sents, qs
}

func top(t *testing.T, r rank.Ranker, question string, sents []string) rank.Scored {
	t.Helper()
	q := dataset.Question{ID: "q", Text: question}
	for i, s := range sents {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: strconv.Itoa(i), Text: s, Position: i, Label: dataset.Unlabeled})
	}
	ranked, err := rank.Rank(context.Background(), r, &q)
	if err != nil {
		t.Fatal(err)
	}
	return ranked[0]
}

// TestParagraph is issue 14's check on paragraphs written for it, each
// with questions it answers and one it does not: the built-in model should
// rank first every answer that wo+rr ranks first, and say "no answer" to
// the question the paragraph does not answer.
//
// paragraph.txt (9 sentences, 9 questions) is the fixture. There
// the goal is not met (docs/model-card.md: 6 of 9, as many as
// wo+rr, but not the same six), so its case holds the measured floor,
// minRight, and logs each question against wo+rr. canal.txt (10 sentences,
// 10 questions), written later and committed before any ranker ranked it,
// meets the goal (9 of 10 against wo+rr's 6), so its case asserts it.
func TestParagraph(t *testing.T) {
	m, err := builtin.Ranker()
	if err != nil {
		t.Fatal(err)
	}
	wo, err := rank.New("wo+rr", rank.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cal := builtin.Calibration()
	for _, tc := range []struct {
		text, questions string
		minRight        int
		superset        bool // every question wo+rr gets right, the model gets right
	}{
		{"paragraph.txt", "questions.tsv", 6, false},
		{"canal.txt", "canal-questions.tsv", 9, true},
	} {
		t.Run(tc.text, func(t *testing.T) {
			sents, qs := readParagraph(t, tc.text, tc.questions)
			var right, woRight int
			for _, q := range qs {
				b, w := top(t, m, q.text, sents), top(t, wo, q.text, sents)
				t.Logf("%-58q gold %2d  builtin %d (p=%.3f, answer %v)  wo+rr %d", q.text, q.gold, b.Index, cal.Prob(b.Score), cal.Answer(b.Score), w.Index)
				if q.gold < 0 {
					if cal.Answer(b.Score) {
						t.Errorf("%q: the paragraph has no answer, but the built-in model answers with sentence %d (p=%.3f)", q.text, b.Index, cal.Prob(b.Score))
					}
					continue
				}
				if b.Index == q.gold {
					right++
				}
				if w.Index == q.gold {
					woRight++
					if b.Index != q.gold {
						msg := fmt.Sprintf("%q: wo+rr ranks the answer (%d) first, the built-in model ranks %d first", q.text, q.gold, b.Index)
						if tc.superset {
							t.Error(msg)
						} else {
							t.Log(msg)
						}
					}
				}
			}
			t.Logf("built-in model: %d of %d right; wo+rr: %d", right, len(qs)-1, woRight)
			if right < tc.minRight {
				t.Errorf("the built-in model ranks %d answers first, under its floor %d", right, tc.minRight)
			}
		})
	}
}

func TestCalibration(t *testing.T) {
	c := builtin.Calibration()
	if c.A <= 0 || c.Threshold <= 0 || c.Threshold >= 1 {
		t.Fatalf("calibration %+v: want a positive slope and a threshold in (0, 1)", c)
	}
}

// TestInt8Ranker compares Int8Ranker with Ranker on the paragraphs'
// questions: the same sentence first and the same answer/no-answer call
// for each, and top scores within 0.25 (they span −1.5 to 7.9 here; int8
// moved them by up to 0.12, on the AVX-512 VNNI kernels, when this was
// written). Where the kernels are generic, Int8Ranker is Ranker.
func TestInt8Ranker(t *testing.T) {
	f, err := builtin.Ranker()
	if err != nil {
		t.Fatal(err)
	}
	i8, err := builtin.Int8Ranker()
	if err != nil {
		t.Fatal(err)
	}
	wo, err := rank.New("wo+rr", rank.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !builtin.Is(f) || !builtin.Is(i8) || builtin.Is(wo) || builtin.Is(nil) {
		t.Errorf("Is: Ranker %v, Int8Ranker %v, wo+rr %v, nil %v; want true, true, false, false", builtin.Is(f), builtin.Is(i8), builtin.Is(wo), builtin.Is(nil))
	}
	if (f == i8) == quant.Supported() {
		t.Fatalf("on the %s kernels Int8Ranker is Ranker: %v", kernel.Active(), f == i8)
	}
	cal := builtin.Calibration()
	var worst float64
	for _, p := range [][2]string{{"paragraph.txt", "questions.tsv"}, {"canal.txt", "canal-questions.tsv"}} {
		sents, qs := readParagraph(t, p[0], p[1])
		for _, q := range qs {
			a, b := top(t, f, q.text, sents), top(t, i8, q.text, sents)
			worst = max(worst, math.Abs(a.Score-b.Score))
			if a.Index != b.Index || cal.Answer(a.Score) != cal.Answer(b.Score) {
				t.Errorf("%q: float32 ranks %d first (score %.3f, answer %v), int8 %d (%.3f, %v)", q.text, a.Index, a.Score, cal.Answer(a.Score), b.Index, b.Score, cal.Answer(b.Score))
			}
		}
	}
	t.Logf("%s kernels: worst |int8 − float32| top score %.3g", kernel.Describe(), worst)
	if worst > 0.25 {
		t.Errorf("int8 top scores differ from float32 by up to %.3g, more than 0.25", worst)
	}
}
