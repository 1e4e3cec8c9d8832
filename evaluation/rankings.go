package evaluation

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trec"
	"github.com/as2/as2/trigger"
)

// RankingFormat is how a RankingWriter writes rankings (as2 rank
// --format). It lives beside WriteRun because a trec ranking is written
// with the same tie-breaking scores (RunScores), so that a run file and
// as2's own numbers always agree.
type RankingFormat string

const (
	// TSV writes a header, then one line per candidate, best first:
	// [qid,] rank, score, [answer,] sentence.
	TSV RankingFormat = "tsv"
	// JSON writes one line per question (RankedQuestion).
	JSON RankingFormat = "json"
	// TREC writes a TREC run ("qid Q0 docid rank score tag") with the raw
	// scores made strictly decreasing (RunScores).
	TREC RankingFormat = "trec"
)

// ParseRankingFormat turns a flag value into a RankingFormat.
func ParseRankingFormat(s string) (RankingFormat, error) {
	switch f := RankingFormat(s); f {
	case TSV, JSON, TREC:
		return f, nil
	}
	return "", fmt.Errorf("%q: want tsv, json or trec", s)
}

// RankedCandidate is one candidate of a RankedQuestion.
type RankedCandidate struct {
	Rank  int      `json:"rank"`
	Index int      `json:"index"`
	ID    string   `json:"id"`
	Score *float64 `json:"score"` // null for an empty candidate (-Inf)
	Text  string   `json:"text"`
}

// RankedQuestion is a question's ranking as the JSON format writes it.
type RankedQuestion struct {
	ID       string            `json:"id"`
	Question string            `json:"question"`
	Ranking  []RankedCandidate `json:"ranking"`
	// Answer and Probability are given when the scores are calibrated:
	// whether the best candidate answers, and its probability.
	Answer      *bool    `json:"answer,omitempty"`
	Probability *float64 `json:"probability,omitempty"`
}

// RankingOptions configure a RankingWriter.
type RankingOptions struct {
	Format RankingFormat // "": TSV
	// QuestionID adds a question id column to TSV (several questions).
	QuestionID bool
	// Tag is the TREC run tag (trec.Tag makes one from a ranker's name).
	Tag string
	// Top keeps only the best Top candidates of each question (0: all).
	Top int
	// Calibration, when set, turns scores into probabilities and says
	// whether the best candidate answers (not in TREC runs, which keep
	// the raw scores that trec_eval sorts).
	Calibration *trigger.Calibration
}

// RankingWriter writes rankings one question at a time. Call Flush at the
// end.
type RankingWriter struct {
	bw     *bufio.Writer
	o      RankingOptions
	header bool
}

// NewRankingWriter returns a writer of rankings to w.
func NewRankingWriter(w io.Writer, o RankingOptions) *RankingWriter {
	if o.Format == "" {
		o.Format = TSV
	}
	return &RankingWriter{bw: bufio.NewWriter(w), o: o}
}

// tsvField keeps a field on its line and in its column.
var tsvField = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// Write writes q's ranking (best first, as Rank returns it).
func (o *RankingWriter) Write(q *dataset.Question, ranked []rank.Scored) error {
	if o.o.Top > 0 && len(ranked) > o.o.Top {
		ranked = ranked[:o.o.Top]
	}
	cal := o.o.Calibration
	switch o.o.Format {
	case JSON:
		out := RankedQuestion{ID: q.ID, Question: q.Text, Ranking: []RankedCandidate{}}
		for k, s := range ranked {
			c := q.Candidates[s.Index]
			rc := RankedCandidate{Rank: k + 1, Index: s.Index, ID: c.ID, Text: c.Text}
			if !math.IsInf(s.Score, 0) && !math.IsNaN(s.Score) {
				v := o.score(s.Score)
				rc.Score = &v
			}
			out.Ranking = append(out.Ranking, rc)
		}
		if cal != nil && len(ranked) > 0 {
			p, a := cal.Prob(ranked[0].Score), cal.Answer(ranked[0].Score)
			out.Probability, out.Answer = &p, &a
		}
		enc := json.NewEncoder(o.bw)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	case TREC:
		if len(ranked) == 0 {
			return nil
		}
		var run trec.Run
		AddRun(&run, q, ranked, o.o.Tag)
		return trec.WriteRun(o.bw, run)
	case TSV:
	default:
		return fmt.Errorf("ranking format %q: want tsv, json or trec", o.o.Format)
	}
	if !o.header {
		if o.o.QuestionID {
			fmt.Fprint(o.bw, "qid\t")
		}
		if cal != nil {
			fmt.Fprintln(o.bw, "rank\tscore\tanswer\tsentence")
		} else {
			fmt.Fprintln(o.bw, "rank\tscore\tsentence")
		}
		o.header = true
	}
	for k, s := range ranked {
		if o.o.QuestionID {
			fmt.Fprintf(o.bw, "%s\t", tsvField.Replace(q.ID))
		}
		fmt.Fprintf(o.bw, "%d\t%.4f\t", k+1, o.score(s.Score))
		if cal != nil {
			// The calibration is of a document's best score (trigger.Fit):
			// it says whether the best sentence answers and nothing of the
			// others, which pass a threshold fitted on bests too easily.
			answer := "-"
			if k == 0 {
				answer = "no"
				if cal.Answer(s.Score) {
					answer = "yes"
				}
			}
			fmt.Fprintf(o.bw, "%s\t", answer)
		}
		fmt.Fprintln(o.bw, tsvField.Replace(q.Candidates[s.Index].Text))
	}
	return nil
}

// score is the score to print: the probability when calibrated.
func (o *RankingWriter) score(s float64) float64 {
	if o.o.Calibration != nil && o.o.Format != TREC {
		return o.o.Calibration.Prob(s)
	}
	return s
}

// Flush writes what is buffered.
func (o *RankingWriter) Flush() error { return o.bw.Flush() }

// WriteRankings ranks every question of qs with r (equal scores in
// document order, empty candidates last) and writes the rankings to w.
// It stops between questions when ctx is done; progress, if set, is
// called after each question with the number done.
func WriteRankings(ctx context.Context, w io.Writer, r rank.Ranker, qs []dataset.Question, o RankingOptions, progress func(done int)) error {
	out := NewRankingWriter(w, o)
	for i := range qs {
		if err := ctx.Err(); err != nil {
			return err
		}
		q := &qs[i]
		ranked, err := Rank(ctx, r, q, ByPosition, 0)
		if err != nil {
			return fmt.Errorf("question %q: %w", q.ID, err)
		}
		if err := out.Write(q, ranked); err != nil {
			return err
		}
		if progress != nil {
			progress(i + 1)
		}
	}
	return out.Flush()
}
