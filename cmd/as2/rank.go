package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
	"github.com/as2/as2/trec"
	"github.com/as2/as2/trigger"
)

type rankCmd struct {
	ranker      rankerFlags
	question    string
	document    string
	input       string
	inputFormat string
	format      string
	empty       string
	output      string
	top         int
	calFile     string
	raw         bool
}

func newRankCmd() *cobra.Command {
	r := &rankCmd{}
	cmd := &cobra.Command{
		Use:   "rank",
		Short: "Rank the sentences of a document, or the candidates of JSONL questions",
		Long: `Rank candidate sentences for questions.

With --question and --document, the document (a text file, - for standard input)
is split into sentences, which are ranked for the question.

With --input, every question of a JSONL file (as2's format: {"id", "question",
"candidates": [{"id", "text"}, ...]}; labels are ignored) or TSV file is ranked.

--format chooses the output (default tsv with --document, json with --input):
  tsv   a header, then rank, score and sentence per line, best first (with
        --input, the question id comes first)
  json  one JSON line per question: {"id", "question", "ranking": [{"rank",
        "index", "id", "score", "text"}, ...]}
  trec  a TREC run ("qid Q0 docid rank score tag"), scores strictly decreasing
        in as2's order so that trec_eval ranks as as2 does (see README)

Empty or white-space candidates (--empty keep, the default) stay in their
place in the input, are never given to the ranker, and come last (score -Inf
in tsv, null in json).

The default ranker is the built-in model (--ranker builtin): two neural models
(a cross-encoder and a dual encoder) embedded in as2, blended with
word-overlap scores. It needs no data, model file or download (see the README
for what it was trained on and how it scores). Its scores are calibrated: the
probability that a document's best sentence with that score answers the
question. The best sentence is the answer (tsv column answer: yes; json:
"answer": true) when its probability reaches the threshold chosen on dev; when
it does not, the document has no answer (tsv: no; json: "answer": false; and a
note on standard error with --document). The calibration judges only the best
sentence, so the others get "-". --calibration FILE does the same for any
ranker, from as2 trigger --out; --raw-scores prints the ranker's own scores.
trec output always carries the raw scores.

--ranker wo+rr ranks by the number of words shared with the question, ties
broken by the original order, and needs nothing at all.`,
		Example: `  as2 rank --question "when did the berlin wall fall?" --document article.txt --top 3
  as2 rank --input questions.jsonl > ranked.jsonl
  as2 rank --input questions.jsonl --ranker bm25 > ranked.jsonl
  as2 rank --input questions.jsonl --model m.as2 --format trec > m.run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return r.exec(cmd) },
	}
	fs := cmd.Flags()
	r.ranker.def = builtin.Name
	r.ranker.register(fs)
	fs.StringVar(&r.question, "question", "", "the question (with --document)")
	fs.StringVar(&r.document, "document", "", "text file whose sentences are ranked (- reads standard input)")
	fs.StringVar(&r.input, "input", "", "JSONL (or TSV, see --input-format) file of questions with candidates")
	fs.StringVar(&r.inputFormat, "input-format", "jsonl", "format of --input: jsonl or tsv")
	fs.StringVar(&r.format, "format", "", "output: tsv, json or trec (default tsv with --document, json with --input)")
	fs.StringVar(&r.empty, "empty", "keep", emptyFlagHelp)
	fs.StringVar(&r.output, "output", "-", "where to write the rankings (- is standard output); files are written atomically")
	fs.IntVar(&r.top, "top", 0, "keep only the best N candidates per question (0: all)")
	fs.StringVar(&r.calFile, "calibration", "", "answer-triggering calibration (JSON from as2 trigger --out): scores become probabilities and say whether a sentence answers (the built-in model has its own)")
	fs.BoolVar(&r.raw, "raw-scores", false, "print the ranker's own scores, not calibrated probabilities")
	return cmd
}

func (r *rankCmd) exec(cmd *cobra.Command) error {
	if r.top < 0 {
		return fmt.Errorf("--top %d: must be >= 0", r.top)
	}
	if err := r.ranker.check(); err != nil {
		return err
	}
	switch r.format {
	case "", "tsv", "json", "trec":
	default:
		return fmt.Errorf("--format %q: want tsv, json or trec", r.format)
	}
	switch {
	case r.input != "" && (r.document != "" || r.question != ""):
		return fmt.Errorf("--input does not go with --question or --document")
	case r.input != "":
		return r.rankFile(cmd)
	case r.document != "" && strings.TrimSpace(r.question) == "":
		return fmt.Errorf("--document needs a non-empty --question")
	case r.document != "":
		return r.rankDocument(cmd)
	}
	return fmt.Errorf("give --question and --document, or --input")
}

func (r *rankCmd) rankDocument(cmd *cobra.Command) error {
	var raw []byte
	var err error
	if r.document == "-" {
		raw, err = io.ReadAll(cmd.InOrStdin())
	} else {
		raw, err = os.ReadFile(r.document)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return notFound("--document", r.document, err)
		}
		return fmt.Errorf("--document: %w", err)
	}
	if !utf8.Valid(raw) {
		return fmt.Errorf("--document %s: not valid UTF-8 text", r.document)
	}
	q := dataset.Question{ID: "1", Text: r.question}
	for i, s := range text.SplitSentences(string(raw)) {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: fmt.Sprint(i), Text: s.Text, Position: i, Label: dataset.Unlabeled})
	}
	if len(q.Candidates) == 0 {
		return fmt.Errorf("--document %s: no sentences", r.document)
	}
	rk, err := r.ranker.build([]dataset.Question{q})
	if err != nil {
		return err
	}
	cal, err := r.calibration()
	if err != nil {
		return err
	}
	format := cmp.Or(r.format, "tsv")
	return writeAtomic(r.output, cmd.OutOrStdout(), func(w io.Writer) error {
		out := r.newWriter(w, format, false, cal)
		ranked, err := evaluation.Rank(cmd.Context(), rk, &q, evaluation.ByPosition, 0)
		if err != nil {
			return err
		}
		if cal != nil && len(ranked) > 0 && !cal.Answer(ranked[0].Score) {
			fmt.Fprintf(cmd.ErrOrStderr(), "as2: no answer: no sentence reaches the answer threshold (best probability %.3f, threshold %.3f)\n", cal.Prob(ranked[0].Score), cal.Threshold)
		}
		if err := out.write(&q, r.cut(ranked)); err != nil {
			return err
		}
		return out.flush()
	})
}

func (r *rankCmd) rankFile(cmd *cobra.Command) error {
	policy, err := dataset.ParseEmptyPolicy(r.empty)
	if err != nil {
		return fmt.Errorf("--empty: %w", err)
	}
	var counts dataset.EmptyCounts
	ro := dataset.ReadOptions{Empty: policy, Counts: &counts}
	var read func(io.Reader, string) ([]dataset.Question, error)
	switch r.inputFormat {
	case "jsonl":
		read = ro.JSONL
	case "tsv":
		read = ro.TSV
	default:
		return fmt.Errorf("--input-format %q: want jsonl or tsv", r.inputFormat)
	}
	qs, err := dataset.ReadFile(r.input, read)
	if err != nil {
		return notFound("--input", r.input, err)
	}
	warnEmpty(cmd.ErrOrStderr(), r.input, policy, counts)
	rk, err := r.ranker.build(qs)
	if err != nil {
		return err
	}
	cal, err := r.calibration()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	bar := newProgress(cmd.ErrOrStderr(), len(qs), "questions")
	defer bar.done()
	return writeAtomic(r.output, cmd.OutOrStdout(), func(w io.Writer) error {
		out := r.newWriter(w, cmp.Or(r.format, "json"), true, cal)
		for i := range qs {
			// A signal stops the loop between questions (and the ranker,
			// if it checks ctx, within one).
			if err := ctx.Err(); err != nil {
				return err
			}
			q := &qs[i]
			ranked, err := evaluation.Rank(ctx, rk, q, evaluation.ByPosition, 0)
			if err != nil {
				return fmt.Errorf("question %q: %w", q.ID, err)
			}
			if err := out.write(q, r.cut(ranked)); err != nil {
				return err
			}
			bar.step(i + 1)
		}
		return out.flush()
	})
}

// calibration returns the calibration that turns scores into
// probabilities: --calibration's, else the ranker's own (the built-in
// model's), else none; --raw-scores turns it off.
func (r *rankCmd) calibration() (*trigger.Calibration, error) {
	if r.raw && r.calFile != "" {
		return nil, fmt.Errorf("--raw-scores and --calibration: give one")
	}
	if r.raw {
		return nil, nil
	}
	if r.calFile != "" {
		c, err := trigger.LoadCalibration(r.calFile)
		if err != nil {
			return nil, fmt.Errorf("--calibration: %w", err)
		}
		return &c, nil
	}
	if c, ok := r.ranker.calibration(); ok {
		return &c, nil
	}
	return nil, nil
}

func (r *rankCmd) cut(ranked []rank.Scored) []rank.Scored {
	if r.top > 0 && len(ranked) > r.top {
		return ranked[:r.top]
	}
	return ranked
}

type rankedCandidate struct {
	Rank  int      `json:"rank"`
	Index int      `json:"index"`
	ID    string   `json:"id"`
	Score *float64 `json:"score"` // null for an empty candidate (-Inf)
	Text  string   `json:"text"`
}

type rankedQuestion struct {
	ID       string            `json:"id"`
	Question string            `json:"question"`
	Ranking  []rankedCandidate `json:"ranking"`
	// Answer and Probability are given when the scores are calibrated:
	// whether the best candidate answers, and its probability.
	Answer      *bool    `json:"answer,omitempty"`
	Probability *float64 `json:"probability,omitempty"`
}

// rankWriter writes rankings, one question at a time, in a --format.
type rankWriter struct {
	bw     *bufio.Writer
	format string
	qid    bool // tsv: a question id column (--input)
	tag    string
	header bool
	// cal, when set, turns scores into probabilities and says which
	// sentences answer (not in trec runs, which keep the raw scores).
	cal *trigger.Calibration
}

func (r *rankCmd) newWriter(w io.Writer, format string, qid bool, cal *trigger.Calibration) *rankWriter {
	return &rankWriter{bw: bufio.NewWriter(w), format: format, qid: qid, tag: runTag(r.ranker.label()), cal: cal}
}

// tsvField keeps a field on its line and in its column.
var tsvField = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

func (o *rankWriter) write(q *dataset.Question, ranked []rank.Scored) error {
	switch o.format {
	case "json":
		out := rankedQuestion{ID: q.ID, Question: q.Text, Ranking: []rankedCandidate{}}
		for k, s := range ranked {
			c := q.Candidates[s.Index]
			rc := rankedCandidate{Rank: k + 1, Index: s.Index, ID: c.ID, Text: c.Text}
			if !math.IsInf(s.Score, 0) && !math.IsNaN(s.Score) {
				v := o.score(s.Score)
				rc.Score = &v
			}
			out.Ranking = append(out.Ranking, rc)
		}
		if o.cal != nil && len(ranked) > 0 {
			p, a := o.cal.Prob(ranked[0].Score), o.cal.Answer(ranked[0].Score)
			out.Probability, out.Answer = &p, &a
		}
		enc := json.NewEncoder(o.bw)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	case "trec":
		var run trec.Run
		evaluation.AddRun(&run, q, ranked, o.tag)
		if len(ranked) == 0 {
			return nil
		}
		return trec.WriteRun(o.bw, run)
	}
	if !o.header {
		if o.qid {
			fmt.Fprint(o.bw, "qid\t")
		}
		if o.cal != nil {
			fmt.Fprintln(o.bw, "rank\tscore\tanswer\tsentence")
		} else {
			fmt.Fprintln(o.bw, "rank\tscore\tsentence")
		}
		o.header = true
	}
	for k, s := range ranked {
		if o.qid {
			fmt.Fprintf(o.bw, "%s\t", tsvField.Replace(q.ID))
		}
		fmt.Fprintf(o.bw, "%d\t%.4f\t", k+1, o.score(s.Score))
		if o.cal != nil {
			// The calibration is of a document's best score (trigger.Fit):
			// it says whether the best sentence answers and nothing of the
			// others, which pass a threshold fitted on bests too easily.
			answer := "-"
			if k == 0 {
				answer = "no"
				if o.cal.Answer(s.Score) {
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
func (o *rankWriter) score(s float64) float64 {
	if o.cal != nil {
		return o.cal.Prob(s)
	}
	return s
}

func (o *rankWriter) flush() error { return o.bw.Flush() }
