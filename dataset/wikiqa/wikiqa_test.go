package wikiqa

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/internal/shareddata"
)

const head = "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tLabel\n"

func TestRead(t *testing.T) {
	in := head +
		"Q1\thow are glacier caves formed?\tD1\tGlacier cave\tD1-0\tA partly \"submerged\" glacier cave.\t0\n" +
		"Q1\thow are glacier caves formed?\tD1\tGlacier cave\tD1-1\tThe ice facade is approximately 60 m high\t1\n" +
		"Q2\thow much is 1 tablespoon?\tD2\tTablespoon\tD2-0\tIt is 15 ml.\t1\n"
	qs, err := Read(strings.NewReader(in), "f.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || len(qs[0].Candidates) != 2 || qs[0].Candidates[0].Text != `A partly "submerged" glacier cave.` ||
		qs[0].Candidates[1].Position != 1 || qs[0].Candidates[1].Label != dataset.Positive || qs[0].Candidates[1].ID != "D1-1" {
		t.Fatalf("got %+v", qs)
	}
}

func TestReadErrors(t *testing.T) {
	row := func(f ...string) string { return strings.Join(f, "\t") + "\n" }
	for _, tc := range []struct{ name, in, want string }{
		{"no header", row("Q1", "q", "D1", "T", "D1-0", "s", "0"), "f.tsv:1: header is"},
		{"columns", head + row("Q1", "q", "D1", "T", "D1-0", "s"), "f.tsv:2: 6 tab-separated fields, want 7"},
		{"label", head + row("Q1", "q", "D1", "T", "D1-0", "s", "2"), `f.tsv:2: label "2" is not 0 or 1`},
		{"empty question", head + row("Q1", " ", "D1", "T", "D1-0", "s", "0"), "f.tsv:2: question Q1: empty question"},
		{"order", head + row("Q1", "q", "D1", "T", "D1-1", "s", "0"), `f.tsv:2: SentenceID "D1-1", want "D1-0"`},
		{"contiguous", head + row("Q1", "q", "D1", "T", "D1-0", "s", "0") + row("Q2", "q", "D2", "T", "D2-0", "s", "0") + row("Q1", "q", "D1", "T", "D1-1", "s", "0"), "f.tsv:4: question Q1 appears again"},
		{"empty file", head, "f.tsv: no questions"},
		{"utf8", head + row("Q1", "q\xff", "D1", "T", "D1-0", "s", "0"), "f.tsv:2: invalid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "f.tsv")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Load(t.TempDir(), "validation"); err == nil || !strings.Contains(err.Error(), "unknown split") {
		t.Fatalf("unknown split: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(head + "Q1\tq\tD1\tT\tD1-0\ts\t1\n")
	f.Add(head + "Q1\tq\tD1\tT\tD1-0\ts\t1\nQ1\tq\tD1\tT\tD1-1\tt\t0\n")
	f.Add("x\ty\n")
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := Read(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if err := dataset.ValidateAll(qs); err != nil {
			t.Fatalf("reader returned an invalid question: %v", err)
		}
	})
}

// TestOfficialSplits checks the counts of the official files
// (../shared/data/wikiqa/PROVENANCE.md) and the document order.
func TestOfficialSplits(t *testing.T) {
	dir := filepath.Join(shareddata.Dir(t), "wikiqa")
	for _, tc := range []struct {
		split                        string
		questions, pairs, answered   int
		filtered, firstCorrectIsZero int
	}{
		{"train", 2118, 20360, 873, -1, 378},
		{"dev", 296, 2733, 126, 122, 66},
		{"test", 633, 6165, 243, 237, 112},
	} {
		qs, err := Load(dir, tc.split)
		if err != nil {
			t.Fatal(err)
		}
		pairs, first0 := 0, 0
		for _, q := range qs {
			pairs += len(q.Candidates)
			for i, c := range q.Candidates {
				if c.Position != i {
					t.Fatalf("%s: question %s: candidate %d at position %d", tc.split, q.ID, i, c.Position)
				}
				if c.Label == dataset.Positive {
					if i == 0 {
						first0++
					}
					break
				}
			}
		}
		answered, filtered := len(dataset.Filter(qs, dataset.Answered)), len(dataset.Filter(qs, dataset.Filtered))
		if len(qs) != tc.questions || pairs != tc.pairs || answered != tc.answered || first0 != tc.firstCorrectIsZero || (tc.filtered >= 0 && filtered != tc.filtered) {
			t.Errorf("%s: %d questions, %d pairs, %d answered, %d filtered, %d first-correct-at-0; want %+v", tc.split, len(qs), pairs, answered, filtered, first0, tc)
		}
	}
}
