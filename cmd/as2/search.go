package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/index"
	"github.com/as2/as2/index/weaviate"
)

func newIndexCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build an answer index that as2 search queries",
	}
	cmd.AddCommand(newIndexBuildCmd())
	return cmd
}

type indexBuild struct {
	spec         retrieverSpec
	model        string // --model: --encoder's name for a model file, as in as2 eval
	answers, out string
	quiet        bool
	vectorFlags  bool
}

func newIndexBuildCmd() *cobra.Command {
	var c indexBuild
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Encode a file of answers once into an index file for as2 search",
		Long: `Encode every answer of --answers with the --encoder and write the index, with
what "as2 search" needs to query it, to --out: how to rebuild the question
encoder (bm25's parameters; the absolute path and SHA-256 of a model file, so
that a changed model is refused) and the answers' texts, in as2's checked,
versioned index format (kind "bundle"), written atomically.

--encoder is what "as2 retrieve eval --retriever" takes: bm25 (an inverted
index, rank's BM25 over as2's tokens), use-lite[:PATH] (USE-Lite sentence
vectors, zero-shot), or a model file that encodes answers for an index:
  - as2 train --arch dual: answer vectors, which go into an --index: flat
    (exact inner product), binary (sign codes, the --rescore nearest
    rescored by their floats) or hnsw (a graph: approximate, for pools where
    exact scans get slow; --m, --ef-construction, and --ef-search, which
    as2 search can change), or weaviate: the vectors go to the Weaviate
    server at --weaviate-url, class --weaviate-class (created with dot
    distance; one that already holds objects is refused unless
    --weaviate-replace), and the file records where they live, so that
    as2 search and as2 serve query that server (scripts/weaviate.sh starts
    a local one);
  - as2 train --arch has (hash mode, the default): HAS's binary answer
    matrices, 1 bit per word-state element (a "matrices" index); a search
    scores every stored answer by the question's attention over its bits,
    without re-encoding it (the HAS paper's stored setting, Table 6).

--answers is read in one of two ways:
  - a ReQA pool (as2 data reqa), recognised by its header line: its answers,
    under their ids;
  - plain text, one answer per line (UTF-8; blank lines are skipped). If the
    first answer line holds a tab, every line must be ID<TAB>TEXT; otherwise
    the answer's id is its line number (1-based) and tabs are part of the
    text. Ids must be unique. A bad line is reported as FILE:LINE.

A progress bar shows on a terminal while answers are encoded (--quiet: none,
and no summary line).`,
		Example: `  as2 index build --encoder bm25 --answers faq.txt --out faq.idx
  as2 data reqa --half test --out reqa-test.jsonl
  as2 index build --encoder use-lite --index hnsw --answers reqa-test.jsonl --out reqa-test-use.idx
  as2 index build --encoder dual.as2 --index binary --answers sentences.tsv --out sentences.idx
  as2 index build --encoder use-lite --index weaviate --weaviate-class ReqaTest --answers reqa-test.jsonl --out reqa-test-wv.idx
  as2 index build --model has.as2 --answers faq.txt --out faq-has.idx`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c.vectorFlags = indexFlagsSet(cmd.Flags())
			return c.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.spec.name, "encoder", "", encoderUsage)
	f.StringVar(&c.model, "model", "", "a model file to encode the answers with: the same as --encoder FILE (as2 eval and as2 rank name theirs --model)")
	f.StringVar(&c.answers, "answers", "", "answers: a ReQA pool (as2 data reqa), or text with one answer per line (ID<TAB>TEXT, or the line number is the id)")
	f.StringVar(&c.out, "out", "", "index file to write (- for standard output)")
	c.spec.addFlags(f)
	f.StringVar(&c.spec.weaviateURL, "weaviate-url", weaviate.DefaultURL, "weaviate index: the server (scripts/weaviate.sh start runs one here)")
	f.StringVar(&c.spec.weaviateClass, "weaviate-class", weaviate.DefaultClass, "weaviate index: the class (collection) that holds the answers")
	f.BoolVar(&c.spec.weaviateReplace, "weaviate-replace", false, "weaviate index: delete the class's objects first if it has any")
	f.IntVar(&c.spec.workers, "workers", runtime.GOMAXPROCS(0), "sentence-encoding goroutines (use-lite), and hnsw insertions at once")
	f.BoolVar(&c.quiet, "quiet", false, "no progress bar and no summary")
	return cmd
}

func (c *indexBuild) run(ctx context.Context, stdout, stderr io.Writer) error {
	encoderFlag := "--encoder"
	switch {
	case c.model != "" && c.spec.name != "":
		return fmt.Errorf("--encoder %s and --model %s: give one (--model FILE is --encoder FILE)", c.spec.name, c.model)
	case c.model != "":
		c.spec.name, encoderFlag = c.model, "--model"
	}
	switch {
	case c.spec.name == "":
		return fmt.Errorf("--encoder is required: bm25, use-lite[:PATH] or a model file (or --model FILE)")
	case c.answers == "":
		return fmt.Errorf("--answers is required")
	case c.out == "":
		return fmt.Errorf("--out is required")
	}
	ids, texts, err := readAnswers(c.answers)
	if err != nil {
		return err
	}
	start := time.Now()
	var p *progress
	if !c.quiet {
		p = newProgress(stderr, len(texts), "encoding answers")
	}
	o, err := c.spec.open(encoderFlag, p.step)
	if err != nil {
		return err
	}
	if (o.bm25 != nil || o.mat != nil) && c.vectorFlags {
		return fmt.Errorf("--index, --rescore and the hnsw flags are for sentence vectors, not %s %s (%s)", encoderFlag, c.spec.name, o.desc)
	}
	if c.spec.kind == weaviate.Kind {
		x, err := o.buildWeaviate(ctx, &c.spec, ids, texts, p.done)
		if err != nil {
			return err
		}
		return c.write(stdout, stderr, &index.Bundle{Encoder: o.params, IDs: ids, Texts: texts, Index: x}, o, start)
	}
	x, err := o.newIndex(&c.spec)
	if err != nil {
		return err
	}
	var indexing *progress
	if !c.quiet && x.Kind() == index.HNSWKind {
		indexing = newProgress(stderr, len(texts), "indexing answers")
	}
	encoded := false
	err = o.build(ctx, x, ids, texts, func(n int) {
		if !encoded { // the encoding's bar goes when the graph's starts
			p.done()
			encoded = true
		}
		indexing.step(n)
	})
	if !encoded {
		p.done()
	}
	indexing.done()
	if err != nil {
		return err
	}
	return c.write(stdout, stderr, &index.Bundle{Encoder: o.params, IDs: ids, Texts: texts, Index: x}, o, start)
}

// write writes the bundle to --out and says so.
func (c *indexBuild) write(stdout, stderr io.Writer, b *index.Bundle, o *openedRetriever, start time.Time) error {
	if err := writeAtomic(c.out, stdout, func(w io.Writer) error {
		_, err := b.WriteTo(w)
		return err
	}); err != nil {
		return fmt.Errorf("--out %s: %w", c.out, err)
	}
	if !c.quiet {
		fmt.Fprintf(stderr, "wrote %s: %d answers, %s; %.1fs\n", c.out, b.Index.Len(), o.describe(b.Index), time.Since(start).Seconds())
	}
	return nil
}

// isReQA reports whether data starts with a ReQA pool's header line.
func isReQA(data []byte) bool {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var head struct{ Type, Format string }
	return bytes.HasPrefix(first, []byte("{")) && json.Unmarshal(first, &head) == nil && head.Type == "header" && head.Format == reqa.Format
}

// readAnswers reads --answers: a ReQA pool, or plain text (see index
// build --help for the rule).
func readAnswers(path string) (ids, texts []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, notFound("--answers", path, err)
	}
	if isReQA(data) {
		pool, err := reqa.Read(bytes.NewReader(data), path)
		if err != nil {
			return nil, nil, fmt.Errorf("--answers: %w", err)
		}
		return pool.IDs(), pool.Texts(), nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	seen := map[string]int{}
	tabbed := -1 // unknown until the first answer line
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !utf8.ValidString(line) {
			return nil, nil, fmt.Errorf("--answers %s:%d: not valid UTF-8", path, n)
		}
		if tabbed < 0 {
			tabbed = 0
			if strings.Contains(line, "\t") {
				tabbed = 1
			}
		}
		id, text := strconv.Itoa(n), line
		if tabbed == 1 {
			var ok bool
			id, text, ok = strings.Cut(line, "\t")
			switch {
			case !ok:
				return nil, nil, fmt.Errorf("--answers %s:%d: no tab: the first answer line has ID<TAB>TEXT, so every line must", path, n)
			case strings.TrimSpace(id) == "":
				return nil, nil, fmt.Errorf("--answers %s:%d: an empty id", path, n)
			case strings.TrimSpace(text) == "":
				return nil, nil, fmt.Errorf("--answers %s:%d: answer %q has no text", path, n, id)
			case len(id) > 1<<16:
				return nil, nil, fmt.Errorf("--answers %s:%d: an id of %d bytes (at most 65536)", path, n, len(id))
			}
		}
		if prev, dup := seen[id]; dup {
			return nil, nil, fmt.Errorf("--answers %s:%d: id %q already on line %d", path, n, id, prev)
		}
		seen[id] = n
		ids, texts = append(ids, id), append(texts, text)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = errors.New("a line longer than 1 MiB")
		}
		return nil, nil, fmt.Errorf("--answers %s: %w", path, err)
	}
	if len(ids) == 0 {
		return nil, nil, fmt.Errorf("--answers %s: no answers", path)
	}
	return ids, texts, nil
}

// searchIndex is an index file (as2 index build) opened for searching:
// the retriever over it, with the question encoder rebuilt from what the
// file records, and its answers.
type searchIndex struct {
	bundle    *index.Bundle
	retriever index.Retriever
	desc      string // the encoder and the index, for people
}

// searchOptions change how an index file is searched; zero values keep
// what the file records.
type searchOptions struct {
	encoderPath       string // the model file, moved (its digest must match)
	efSearch, rescore int    // hnsw and binary indexes only
	workers           int    // use-lite's sentence-encoding goroutines
}

// openIndexFile loads the index file at path for searching, the one
// loader of "as2 search --index" and "as2 serve --index": errors name
// --index and the file.
func openIndexFile(path string, so searchOptions) (*searchIndex, error) {
	b, err := readIndexFile("--index", path, index.ReadBundle)
	if err != nil {
		return nil, err
	}
	switch x := b.Index.(type) {
	case *index.HNSW:
		if so.efSearch != 0 {
			if err := x.SetEfSearch(so.efSearch); err != nil {
				return nil, fmt.Errorf("--ef-search: %w", err)
			}
		}
	case *index.Binary:
		if so.rescore != 0 {
			x.Rescore = so.rescore
		}
	}
	if so.efSearch != 0 && b.Index.Kind() != index.HNSWKind || so.rescore != 0 && b.Index.Kind() != index.BinaryKind {
		return nil, fmt.Errorf("--ef-search is for hnsw indexes and --rescore for binary ones; %s holds a %s index", path, b.Index.Kind())
	}
	o, err := openFromParams(b.Encoder, so.encoderPath, so.workers)
	if err != nil {
		return nil, fmt.Errorf("--index %s: %w", path, err)
	}
	r, err := o.retriever(b.Index)
	if err != nil {
		return nil, fmt.Errorf("--index %s: %w", path, err)
	}
	return &searchIndex{bundle: b, retriever: r, desc: o.describe(b.Index)}, nil
}

// texts maps the answers' ids to their texts (hits carry ids only).
func (x *searchIndex) texts() map[string]string {
	texts := make(map[string]string, len(x.bundle.IDs))
	for i, id := range x.bundle.IDs {
		texts[id] = x.bundle.Texts[i]
	}
	return texts
}

type search struct {
	index, question, questions, format, encoderPath string
	top, efSearch, rescore, workers                 int
}

func newSearchCmd() *cobra.Command {
	var c search
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Find the best answers for questions in an index built by as2 index build",
		Long: `Load an index file (as2 index build), rebuild its question encoder from what
the file records, and print the --top answers for each question: rank, score
(BM25, the inner product of the vectors, or HAS's cosine after attention
over the answer's stored bits), the answer's id and its text.

Questions come from --question, or from --questions FILE (- for standard
input), one per line (blank lines skipped); with --questions, tsv output
starts each row with the question's line number. A model file the index
records must still have the digest it had at build time; --encoder-path
points at a moved copy. --ef-search (hnsw) and --rescore (binary) change the
search's trade of speed for recall. An index built with --index weaviate is
searched in the Weaviate server and class it records (a server that cannot
be reached is an error that names it).`,
		Example: `  as2 search --index faq.idx --question "How do I reset my password?"
  as2 search --index reqa-test-use.idx --questions questions.txt --top 5 --format json
  echo "Who founded the university?" | as2 search --index reqa-test.idx --questions -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("ef-search") {
				c.efSearch = 0
			}
			if !cmd.Flags().Changed("rescore") {
				c.rescore = 0
			}
			return c.run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.index, "index", "", "index file (as2 index build)")
	f.StringVar(&c.question, "question", "", "the question")
	f.StringVar(&c.questions, "questions", "", "file of questions, one per line (- for standard input)")
	f.IntVar(&c.top, "top", 10, "answers per question")
	f.StringVar(&c.format, "format", "tsv", "output: tsv or json (one object per question)")
	f.IntVar(&c.efSearch, "ef-search", index.DefaultEfSearch, "hnsw index: candidates a search keeps (default: the index's)")
	f.IntVar(&c.rescore, "rescore", index.DefaultRescore, "binary index: nearest codes rescored (default: the index's)")
	f.StringVar(&c.encoderPath, "encoder-path", "", "the model file, if no longer where the index records it (its SHA-256 must match)")
	f.IntVar(&c.workers, "workers", runtime.GOMAXPROCS(0), "sentence-encoding goroutines (use-lite)")
	return cmd
}

func (c *search) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case c.index == "":
		return fmt.Errorf("--index is required (build one with as2 index build)")
	case (c.question == "") == (c.questions == ""):
		return fmt.Errorf("give --question or --questions, one of them")
	case c.top < 1:
		return fmt.Errorf("--top %d: want at least 1", c.top)
	case c.format != "tsv" && c.format != "json":
		return fmt.Errorf("--format %q: want tsv or json", c.format)
	}
	x, err := openIndexFile(c.index, searchOptions{encoderPath: c.encoderPath, efSearch: c.efSearch, rescore: c.rescore, workers: c.workers})
	if err != nil {
		return err
	}
	r, texts := x.retriever, x.texts()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	many := c.questions != ""
	if c.format == "tsv" {
		if many {
			fmt.Fprint(out, "question\t")
		}
		fmt.Fprintln(out, "rank\tscore\tid\tanswer")
	}
	ask := func(n int, q string) error {
		hits, err := r.Retrieve(ctx, q, c.top)
		if err != nil {
			return err
		}
		if c.format == "json" {
			type hit struct {
				Rank   int     `json:"rank"`
				Score  float64 `json:"score"`
				ID     string  `json:"id"`
				Answer string  `json:"answer"`
			}
			hs := make([]hit, len(hits))
			for i, h := range hits {
				hs[i] = hit{i + 1, h.Score, h.ID, texts[h.ID]}
			}
			row := map[string]any{"question": q, "hits": hs}
			if many {
				row["line"] = n
			}
			return json.NewEncoder(out).Encode(row)
		}
		for i, h := range hits {
			if many {
				fmt.Fprintf(out, "%d\t", n)
			}
			// Tabs and line breaks of a text would break the row.
			fmt.Fprintf(out, "%d\t%.4f\t%s\t%s\n", i+1, h.Score, h.ID, strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(texts[h.ID]))
		}
		if len(hits) == 0 {
			fmt.Fprintf(stderr, "as2: no answer found for %q\n", q)
		}
		return nil
	}
	if !many {
		return ask(1, c.question)
	}
	in := stdin
	name := "standard input"
	if c.questions != "-" {
		f, err := os.Open(c.questions)
		if err != nil {
			return notFound("--questions", c.questions, err)
		}
		defer f.Close()
		in, name = f, c.questions
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		q := strings.TrimSpace(sc.Text())
		if q == "" {
			continue
		}
		if err := ask(n, q); err != nil {
			return fmt.Errorf("--questions %s:%d: %w", name, n, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("--questions %s: %w", name, err)
	}
	return nil
}
