package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/evaluation"
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
		Long: `Rank candidate sentences for questions: with --question and --document,
the sentences of a document (a text file, - for standard input); with --input,
the candidates of every question of a JSONL or TSV file (labels are ignored).

The default ranker is the built-in model, which needs no data or download
(docs/model-card.md). Output formats, empty candidates and calibration:
docs/data.md ("as2 rank output").`,
		Example: `  as2 rank --question "when did the berlin wall fall?" --document article.txt --top 3
  as2 rank --input questions.jsonl > ranked.jsonl
  as2 rank --input questions.jsonl --ranker bm25 > ranked.jsonl
  as2 rank --input questions.jsonl --model m.as2 --format trec > m.run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return r.exec(cmd) },
	}
	fs := cmd.Flags()
	r.ranker.def = as2.Builtin
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
	if r.raw && r.calFile != "" {
		return fmt.Errorf("--raw-scores and --calibration: give one")
	}
	if err := r.ranker.check(); err != nil {
		return err
	}
	if r.format != "" {
		if _, err := evaluation.ParseRankingFormat(r.format); err != nil {
			return fmt.Errorf("--format %w", err)
		}
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
		return flagError("--document", r.document, err)
	}
	if !utf8.Valid(raw) {
		return fmt.Errorf("--document %s: not valid UTF-8 text", r.document)
	}
	q := dataset.Question{ID: "1", Text: r.question}
	var sentences []string
	for i, s := range text.SplitSentences(string(raw)) {
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: fmt.Sprint(i), Text: s.Text, Position: i, Label: dataset.Unlabeled})
		sentences = append(sentences, s.Text)
	}
	if len(q.Candidates) == 0 {
		return fmt.Errorf("--document %s: no sentences", r.document)
	}
	rk, cal, err := r.open([]dataset.Question{q})
	if err != nil {
		return err
	}
	// as2.SelectSentences is what /v1/select computes: the same ranking
	// and the same answer.
	sel, err := as2.SelectSentences(cmd.Context(), r.question, sentences, as2.WithRanker(rk), as2.WithCalibration(cal))
	if err != nil {
		return err
	}
	if sel.Calibrated && !sel.Answer {
		fmt.Fprintf(cmd.ErrOrStderr(), "as2: no answer: no sentence reaches the answer threshold (best probability %.3f, threshold %.3f)\n", sel.Probability, cal.Threshold)
	}
	return writeAtomic(r.output, cmd.OutOrStdout(), func(w io.Writer) error {
		out := evaluation.NewRankingWriter(w, r.options(cmp.Or(r.format, "tsv"), false, cal))
		if err := out.Write(&q, sel.Ranked()); err != nil {
			return err
		}
		return out.Flush()
	})
}

func (r *rankCmd) rankFile(cmd *cobra.Command) error {
	if !catalog.IsFile(r.inputFormat) {
		return fmt.Errorf("--input-format %q: want jsonl or tsv", r.inputFormat)
	}
	d := datasetFlags{name: r.inputFormat, path: r.input, empty: r.empty, errOut: cmd.ErrOrStderr(), fileFlag: "--input"}
	qs, _, _, err := d.load("", dataset.All)
	if err != nil {
		return err
	}
	rk, cal, err := r.open(qs)
	if err != nil {
		return err
	}
	bar := newProgress(cmd.ErrOrStderr(), len(qs), "questions")
	defer bar.done()
	return writeAtomic(r.output, cmd.OutOrStdout(), func(w io.Writer) error {
		return evaluation.WriteRankings(cmd.Context(), w, rk, qs, r.options(cmp.Or(r.format, "json"), true, cal), bar.step)
	})
}

// open opens the ranker and the calibration that turns its scores into
// probabilities: --calibration's, else the ranker's own (the built-in
// model's), else none; --raw-scores turns it off.
func (r *rankCmd) open(qs []dataset.Question) (rank.Ranker, *trigger.Calibration, error) {
	rk, err := r.ranker.build(qs)
	if err != nil || r.raw {
		return rk, nil, err
	}
	cal, err := calibration(rk, r.calFile)
	return rk, cal, err
}

func (r *rankCmd) options(format string, qid bool, cal *trigger.Calibration) evaluation.RankingOptions {
	return evaluation.RankingOptions{Format: evaluation.RankingFormat(format), QuestionID: qid, Tag: trec.Tag(r.ranker.label()), Top: r.top, Calibration: cal}
}
