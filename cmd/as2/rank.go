package main

import (
	"cmp"
	"encoding/json"
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
	passages    bool
	maxChunks   int
}

func newRankCmd() *cobra.Command {
	r := &rankCmd{}
	cmd := &cobra.Command{
		Use:   "rank",
		Short: "Rank the sentences or passages of a document, or the candidates of JSONL questions",
		Long: `Rank candidate sentences for questions: with --question and --document,
the sentences of a document (a text file, - for standard input); with --input,
the candidates of every question of a JSONL or TSV file (labels are ignored).

With --passages, --document is split into passages of whole sentences, each
beginning with the previous one's last sentence, as the service splits a long
document: a cross-encoder (--model on a Hugging Face folder) scores each passage
of up to its input length; a sentence-level ranker (the built-in model, the
rules) scores the sentences, and a passage of about 200 tokens scores as its
best one. Each passage is printed with its score, byte offsets and best
sentence; --max-chunks scores only the first passages and says so.

The default ranker is the built-in model, which needs no data or download
(docs/model-card.md). Output formats, empty candidates and calibration:
docs/data.md ("as2 rank output").`,
		Example: `  as2 rank --question "when did the berlin wall fall?" --document article.txt --top 3
  as2 rank --question "who developed datapac?" --document article.txt --passages --max-chunks 0 --top 3
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
	fs.BoolVar(&r.passages, "passages", false, "with --document: rank its passages (runs of whole sentences, as the service does for a long document), not its sentences")
	fs.IntVar(&r.maxChunks, "max-chunks", as2.DefaultMaxChunks, "with --passages: score only the document's first N passages, the service's max_chunks_per_doc (0: all)")
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
	if err := r.checkPassages(cmd); err != nil {
		return err
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
	if r.passages {
		return r.rankPassages(cmd, string(raw), rk, cal)
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

// checkPassages checks --passages and --max-chunks against the other
// flags, before anything is read.
func (r *rankCmd) checkPassages(cmd *cobra.Command) error {
	switch {
	case r.maxChunks < 0:
		return fmt.Errorf("--max-chunks %d: must be >= 0 (0 scores every passage)", r.maxChunks)
	case cmd.Flags().Changed("max-chunks") && !r.passages:
		return fmt.Errorf("--max-chunks goes with --passages")
	case r.passages && r.input != "":
		return fmt.Errorf("--passages ranks the passages of --document; --input files hold their candidates already")
	case r.passages && r.format == string(evaluation.TREC):
		return fmt.Errorf("--format trec: a run ranks candidates by id; with --passages give tsv or json")
	}
	return nil
}

// rankedPassages is --passages' JSON: the question, the document's
// passages best first, how many it has and how many were scored.
type rankedPassages struct {
	Question  string          `json:"question"`
	Ranking   []rankedPassage `json:"ranking"`
	Passages  int             `json:"passages"`
	Scored    int             `json:"scored"`
	Truncated bool            `json:"truncated,omitempty"`
	// Probability and Answer: the calibrated probability that the best
	// passage answers, and whether it does (calibrated scores only).
	Probability *float64 `json:"probability,omitempty"`
	Answer      *bool    `json:"answer,omitempty"`
}

type rankedPassage struct {
	Rank     int       `json:"rank"`
	Index    int       `json:"index"` // the passage's position in the document
	Score    float64   `json:"score"`
	Start    int       `json:"start"`
	End      int       `json:"end"`
	Text     string    `json:"text"`
	Sentence *textSpan `json:"sentence,omitempty"` // sentence-level rankers only
}

type textSpan struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// tsvField keeps a field on its line and in its column.
var tsvField = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// rankPassages is rank --document --passages: as2.Passages, which ranks a
// long document as the service does (package model/passage), printed.
func (r *rankCmd) rankPassages(cmd *cobra.Command, doc string, rk rank.Ranker, cal *trigger.Calibration) error {
	pr, err := as2.Passages(cmd.Context(), r.question, doc, r.maxChunks, as2.WithRanker(rk), as2.WithCalibration(cal))
	if err != nil {
		return fmt.Errorf("--document %s: %w", r.document, err)
	}
	if pr.Truncated() {
		fmt.Fprintf(cmd.ErrOrStderr(), "as2: --document %s: %d passages, only the first %d scored (--max-chunks %d; 0 scores all)\n", r.document, pr.Total, len(pr.Passages), r.maxChunks)
	}
	if pr.Calibrated && !pr.Answer {
		fmt.Fprintf(cmd.ErrOrStderr(), "as2: no answer: no passage reaches the answer threshold (best probability %.3f, threshold %.3f)\n", pr.Probability, cal.Threshold)
	}
	ps := pr.Passages
	if r.top > 0 && len(ps) > r.top {
		ps = ps[:r.top]
	}
	// Scores are the probabilities that a best passage with that score
	// answers when calibrated, as the service's relevance_score.
	score := func(p as2.Passage) float64 {
		if cal != nil {
			return cal.Prob(p.Score)
		}
		return p.Score
	}
	return writeAtomic(r.output, cmd.OutOrStdout(), func(w io.Writer) error {
		if cmp.Or(r.format, "tsv") == string(evaluation.JSON) {
			out := rankedPassages{Question: r.question, Ranking: make([]rankedPassage, len(ps)), Passages: pr.Total, Scored: len(pr.Passages), Truncated: pr.Truncated()}
			if pr.Calibrated {
				out.Probability, out.Answer = &pr.Probability, &pr.Answer
			}
			for k, p := range ps {
				out.Ranking[k] = rankedPassage{Rank: k + 1, Index: p.Index, Score: score(p), Start: p.Start, End: p.End, Text: p.Text}
				if s := p.Sentence; s != nil {
					out.Ranking[k].Sentence = &textSpan{s.Text, s.Start, s.End}
				}
			}
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			return enc.Encode(out)
		}
		answerCol := ""
		if cal != nil {
			answerCol = "answer\t"
		}
		fmt.Fprintf(w, "rank\tscore\t%sstart\tend\tsentence\tpassage\n", answerCol)
		for k, p := range ps {
			fmt.Fprintf(w, "%d\t%.4f\t", k+1, score(p))
			if cal != nil {
				// The calibration judges the best passage only (as the
				// sentences' output, docs/data.md).
				answer := "-"
				if k == 0 {
					answer = map[bool]string{true: "yes", false: "no"}[pr.Answer]
				}
				fmt.Fprintf(w, "%s\t", answer)
			}
			sentence := "-" // a passage-level ranker names no sentence
			if p.Sentence != nil {
				sentence = p.Sentence.Text
			}
			if _, err := fmt.Fprintf(w, "%d\t%d\t%s\t%s\n", p.Start, p.End, tsvField.Replace(sentence), tsvField.Replace(p.Text)); err != nil {
				return err
			}
		}
		return nil
	})
}
