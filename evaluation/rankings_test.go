package evaluation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trec"
	"github.com/as2/as2/trigger"
)

// byLength scores a candidate by its length in bytes.
var byLength = rank.Func(func(_ context.Context, q *dataset.Question) ([]float64, error) {
	s := make([]float64, len(q.Candidates))
	for i, c := range q.Candidates {
		s[i] = float64(len(c.Text))
	}
	return s, nil
})

// rankingQuestions: q1 has a tab in a candidate and an empty one; q2 a
// line break in its id.
func rankingQuestions() []dataset.Question {
	return []dataset.Question{
		{ID: "q1", Text: "who?", Candidates: []dataset.Candidate{
			{ID: "a", Text: "ab\tc", Position: 0}, {ID: "b", Text: "abcdef", Position: 1}, {ID: "c", Text: " ", Position: 2},
		}},
		{ID: "q\n2", Text: "what?", Candidates: []dataset.Candidate{{ID: "x", Text: "x", Position: 0}}},
	}
}

func TestWriteRankings(t *testing.T) {
	// Prob(s) = sigmoid(s - 5): 6 bytes give 0.7311, past the threshold.
	cal := &trigger.Calibration{A: 1, B: -5, Threshold: 0.5}
	for _, tc := range []struct {
		name string
		o    RankingOptions
		want string
	}{
		{"tsv", RankingOptions{},
			"rank\tscore\tsentence\n1\t6.0000\tabcdef\n2\t4.0000\tab c\n3\t-Inf\t \n1\t1.0000\tx\n"},
		{"tsv qid top", RankingOptions{QuestionID: true, Top: 1},
			"qid\trank\tscore\tsentence\nq1\t1\t6.0000\tabcdef\nq 2\t1\t1.0000\tx\n"},
		{"tsv calibrated", RankingOptions{Top: 2, Calibration: cal},
			"rank\tscore\tanswer\tsentence\n1\t0.7311\tyes\tabcdef\n2\t0.2689\t-\tab c\n1\t0.0180\tno\tx\n"},
		{"json top", RankingOptions{Format: JSON, Top: 1},
			`{"id":"q1","question":"who?","ranking":[{"rank":1,"index":1,"id":"b","score":6,"text":"abcdef"}]}` + "\n" +
				`{"id":"q\n2","question":"what?","ranking":[{"rank":1,"index":0,"id":"x","score":1,"text":"x"}]}` + "\n"},
		{"trec ignores the calibration", RankingOptions{Format: TREC, Tag: "t", Top: 2, Calibration: cal},
			"q1 Q0 b 1 6 t\nq1 Q0 a 2 4 t\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs := rankingQuestions()
			if tc.o.Format == TREC {
				qs = qs[:1] // a TREC id holds no white space
			}
			var b bytes.Buffer
			if err := WriteRankings(context.Background(), &b, byLength, qs, tc.o, nil); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestRankingJSON checks the JSON fields a reader relies on: an empty
// candidate's null score, and the best one's probability and answer.
func TestRankingJSON(t *testing.T) {
	var b bytes.Buffer
	cal := &trigger.Calibration{A: 1, B: -5, Threshold: 0.9}
	done := 0
	if err := WriteRankings(context.Background(), &b, byLength, rankingQuestions()[:1], RankingOptions{Format: JSON, Calibration: cal}, func(n int) { done = n }); err != nil {
		t.Fatal(err)
	}
	var q RankedQuestion
	if err := json.Unmarshal(b.Bytes(), &q); err != nil {
		t.Fatal(err)
	}
	if done != 1 || len(q.Ranking) != 3 || q.Ranking[2].Score != nil || q.Ranking[2].ID != "c" || q.Answer == nil || *q.Answer || q.Probability == nil || *q.Probability < 0.73 || *q.Probability > 0.74 {
		t.Errorf("progress %d, %+v", done, q)
	}
}

func TestWriteRankingsErrors(t *testing.T) {
	failing := rank.Func(func(context.Context, *dataset.Question) ([]float64, error) { return nil, errors.New("boom") })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		r    rank.Ranker
		o    RankingOptions
		want string
	}{
		{"ranker", context.Background(), failing, RankingOptions{}, `question "q1": boom`},
		{"cancelled", ctx, byLength, RankingOptions{}, "context canceled"},
		{"format", context.Background(), byLength, RankingOptions{Format: "csv"}, `"csv": want tsv, json or trec`},
	} {
		err := WriteRankings(tc.ctx, &bytes.Buffer{}, tc.r, rankingQuestions(), tc.o, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestParseRankingFormat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RankingFormat
		ok   bool
	}{{"tsv", TSV, true}, {"json", JSON, true}, {"trec", TREC, true}, {"", "", false}, {"TSV", "", false}} {
		got, err := ParseRankingFormat(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("%q: %q, %v", tc.in, got, err)
		}
	}
}

// TestTrecRankingReadsBack checks that a trec ranking is a run that
// trec.ReadRun reads, in as2's order even when scores tie.
func TestTrecRankingReadsBack(t *testing.T) {
	q := dataset.Question{ID: "q", Text: "?", Candidates: []dataset.Candidate{{ID: "a", Text: "xx"}, {ID: "b", Text: "yy", Position: 1}}}
	var b bytes.Buffer
	if err := WriteRankings(context.Background(), &b, byLength, []dataset.Question{q}, RankingOptions{Format: TREC, Tag: "t"}, nil); err != nil {
		t.Fatal(err)
	}
	run, err := trec.ReadRun(&b, "x.run")
	if err != nil {
		t.Fatal(err)
	}
	res := run.Results["q"]
	trec.Sort(res)
	if len(res) != 2 || res[0].DocID != "a" || res[1].DocID != "b" {
		t.Errorf("%+v", res)
	}
}
