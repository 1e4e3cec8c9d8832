package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
)

type rankCmd struct {
	ranker      rankerFlags
	question    string
	document    string
	input       string
	inputFormat string
	output      string
	top         int
}

func newRankCmd() *cobra.Command {
	r := &rankCmd{}
	cmd := &cobra.Command{
		Use:   "rank",
		Short: "Rank the sentences of a document, or the candidates of JSONL questions",
		Long: `Rank candidate sentences for questions.

With --question and --document, the document (a text file, - for standard input)
is split into sentences, which are ranked for the question and printed as
rank, score and sentence, best first.

With --input, every question of a JSONL file (as2's format: {"id", "question",
"candidates": [{"id", "text"}, ...]}; labels are ignored) is ranked and written
as one JSON line: {"id", "question", "ranking": [{"rank", "index", "id", "score",
"text"}, ...]}.

The default ranker, wo+rr, needs no data or model: it ranks by the number of
words shared with the question, ties broken by the original order.`,
		Example: `  as2 rank --question "when did the berlin wall fall?" --document article.txt --top 3
  as2 rank --input questions.jsonl --ranker bm25 > ranked.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return r.exec(cmd) },
	}
	fs := cmd.Flags()
	r.ranker.register(fs)
	fs.StringVar(&r.question, "question", "", "the question (with --document)")
	fs.StringVar(&r.document, "document", "", "text file whose sentences are ranked (- reads standard input)")
	fs.StringVar(&r.input, "input", "", "JSONL (or TSV, see --input-format) file of questions with candidates")
	fs.StringVar(&r.inputFormat, "input-format", "jsonl", "format of --input: jsonl or tsv")
	fs.StringVar(&r.output, "output", "-", "where to write the rankings (- is standard output); files are written atomically")
	fs.IntVar(&r.top, "top", 0, "keep only the best N candidates per question (0: all)")
	return cmd
}

func (r *rankCmd) exec(cmd *cobra.Command) error {
	if r.top < 0 {
		return fmt.Errorf("--top %d: must be >= 0", r.top)
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
	ranked, err := evaluation.Rank(cmd.Context(), rk, &q, evaluation.ByPosition, 0)
	if err != nil {
		return err
	}
	return writeAtomic(r.output, cmd.OutOrStdout(), func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, "rank\tscore\tsentence")
		for k, s := range r.cut(ranked) {
			fmt.Fprintf(bw, "%d\t%.4f\t%s\n", k+1, s.Score, q.Candidates[s.Index].Text)
		}
		return bw.Flush()
	})
}

type rankedCandidate struct {
	Rank  int     `json:"rank"`
	Index int     `json:"index"`
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	Text  string  `json:"text"`
}

type rankedQuestion struct {
	ID       string            `json:"id"`
	Question string            `json:"question"`
	Ranking  []rankedCandidate `json:"ranking"`
}

func (r *rankCmd) rankFile(cmd *cobra.Command) error {
	var read func(io.Reader, string) ([]dataset.Question, error)
	switch r.inputFormat {
	case "jsonl":
		read = dataset.ReadJSONL
	case "tsv":
		read = dataset.ReadTSV
	default:
		return fmt.Errorf("--input-format %q: want jsonl or tsv", r.inputFormat)
	}
	qs, err := dataset.ReadFile(r.input, read)
	if err != nil {
		return err
	}
	rk, err := r.ranker.build(qs)
	if err != nil {
		return err
	}
	return writeAtomic(r.output, cmd.OutOrStdout(), func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for i := range qs {
			q := &qs[i]
			ranked, err := evaluation.Rank(cmd.Context(), rk, q, evaluation.ByPosition, 0)
			if err != nil {
				return fmt.Errorf("question %q: %w", q.ID, err)
			}
			out := rankedQuestion{ID: q.ID, Question: q.Text}
			for k, s := range r.cut(ranked) {
				c := q.Candidates[s.Index]
				out.Ranking = append(out.Ranking, rankedCandidate{Rank: k + 1, Index: s.Index, ID: c.ID, Score: s.Score, Text: c.Text})
			}
			if err := enc.Encode(out); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

func (r *rankCmd) cut(ranked []rank.Scored) []rank.Scored {
	if r.top > 0 && len(ranked) > r.top {
		return ranked[:r.top]
	}
	return ranked
}
