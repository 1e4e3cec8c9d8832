package trec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/as2/as2/dataset"
)

// Qrels maps a query id to the relevance of each judged docno.
type Qrels map[string]map[string]int

// Result is one line of a run file.
type Result struct {
	QueryID string
	DocID   string
	Rank    int     // the rank column; trec_eval ignores it
	Score   float64 // higher ranks first
	Tag     string  // run tag
}

// Run holds a run's results grouped by query: Queries lists the query ids in
// order of first appearance and Results[qid] holds that query's results in
// file order.
type Run struct {
	Queries []string
	Results map[string][]Result
}

// Add appends res to the results of its query.
func (r *Run) Add(res Result) {
	if r.Results == nil {
		r.Results = make(map[string][]Result)
	}
	if _, ok := r.Results[res.QueryID]; !ok {
		r.Queries = append(r.Queries, res.QueryID)
	}
	r.Results[res.QueryID] = append(r.Results[res.QueryID], res)
}

// isSpace is C's isspace in the "C" locale, which trec_eval uses to split
// fields (get_qrels.c, get_trec_results.c).
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// readLines calls fn with the fields of each line of r that is neither
// blank nor a comment, wrapping its error with the file name and line.
func readLines(r io.Reader, name string, fn func(fields []string) error) error {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		text, err := br.ReadString('\n')
		if text != "" {
			var perr error
			switch fields := strings.FieldsFunc(text, isSpace); {
			case !utf8.ValidString(text):
				perr = errors.New("invalid UTF-8")
			case strings.IndexByte(text, 0) >= 0:
				perr = errors.New("NUL byte") // trec_eval: "File may contain no NULL characters"
			case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
				// blank line or comment, skipped as by trec_eval
			default:
				perr = fn(fields)
			}
			if perr != nil {
				return &dataset.ParseError{File: name, Line: line, Err: perr}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
}

// ReadQrels reads "qid iter docno rel" lines; name is used in errors.
// A docno judged twice for a query is an error.
func ReadQrels(r io.Reader, name string) (Qrels, error) {
	q := make(Qrels)
	err := readLines(r, name, func(f []string) error {
		if len(f) != 4 {
			return fmt.Errorf("want 4 columns (qid iter docno rel), got %d", len(f))
		}
		rel, err := strconv.Atoi(f[3])
		if err != nil {
			return fmt.Errorf("relevance %q is not an integer", f[3])
		}
		docs := q[f[0]]
		if docs == nil {
			docs = make(map[string]int)
			q[f[0]] = docs
		}
		if _, dup := docs[f[2]]; dup { // form_res_rels.c rejects it too
			return fmt.Errorf("query %q judges docno %q twice", f[0], f[2])
		}
		docs[f[2]] = rel
		return nil
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// WriteQrels writes q as "qid 0 docno rel" lines sorted by qid, then docno.
func WriteQrels(w io.Writer, q Qrels) error {
	bw := bufio.NewWriter(w)
	for _, qid := range sortedKeys(q) {
		if err := checkID("query id", qid, true); err != nil {
			return err
		}
		docs := q[qid]
		for _, doc := range sortedKeys(docs) {
			if err := checkID("docno", doc, false); err != nil {
				return err
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", qid, doc, docs[doc])
		}
	}
	return bw.Flush()
}

// ReadRun reads "qid Q0 docno rank score tag" lines; name is used in
// errors. A docno appearing twice for a query is an error.
func ReadRun(r io.Reader, name string) (Run, error) {
	var run Run
	seen := make(map[[2]string]bool)
	err := readLines(r, name, func(f []string) error {
		if len(f) != 6 {
			return fmt.Errorf("want 6 columns (qid Q0 docno rank score tag), got %d", len(f))
		}
		rank, err := strconv.Atoi(f[3])
		if err != nil {
			return fmt.Errorf("rank %q is not an integer", f[3])
		}
		score, err := strconv.ParseFloat(f[4], 64)
		if err != nil || math.IsNaN(score) {
			return fmt.Errorf("score %q is not a number", f[4])
		}
		key := [2]string{f[0], f[2]}
		if seen[key] { // form_res_rels.c: "duplicate docs"
			return fmt.Errorf("query %q retrieves docno %q twice", f[0], f[2])
		}
		seen[key] = true
		run.Add(Result{QueryID: f[0], DocID: f[2], Rank: rank, Score: score, Tag: f[5]})
		return nil
	})
	if err != nil {
		return Run{}, err
	}
	return run, nil
}

// WriteRun writes run as "qid Q0 docno rank score tag" lines, queries in
// run.Queries order and results in slice order. Scores are written with the
// fewest digits that read back as the same float64 (strconv 'g', -1), so a
// written run ranks exactly as the original.
func WriteRun(w io.Writer, run Run) error {
	if len(run.Queries) != len(run.Results) {
		return fmt.Errorf("trec: run lists %d queries but has results for %d", len(run.Queries), len(run.Results))
	}
	bw := bufio.NewWriter(w)
	listed := make(map[string]bool, len(run.Queries))
	for _, qid := range run.Queries {
		rs, ok := run.Results[qid]
		if !ok || listed[qid] {
			return fmt.Errorf("trec: query %q listed twice or without results", qid)
		}
		listed[qid] = true
		docs := make(map[string]bool, len(rs))
		for _, r := range rs {
			switch {
			case r.QueryID != qid:
				return fmt.Errorf("trec: result for query %q filed under query %q", r.QueryID, qid)
			case math.IsNaN(r.Score):
				return fmt.Errorf("trec: query %q docno %q: score is NaN", qid, r.DocID)
			case docs[r.DocID]:
				return fmt.Errorf("trec: query %q retrieves docno %q twice", qid, r.DocID)
			}
			docs[r.DocID] = true
			for _, c := range []struct {
				what, s string
				first   bool
			}{{"query id", r.QueryID, true}, {"docno", r.DocID, false}, {"tag", r.Tag, false}} {
				if err := checkID(c.what, c.s, c.first); err != nil {
					return err
				}
			}
			fmt.Fprintf(bw, "%s Q0 %s %d %s %s\n", r.QueryID, r.DocID, r.Rank,
				strconv.FormatFloat(r.Score, 'g', -1, 64), r.Tag)
		}
	}
	return bw.Flush()
}

// checkID reports whether s can be written as a field and read back.
func checkID(what, s string, first bool) error {
	switch {
	case s == "":
		return fmt.Errorf("trec: empty %s", what)
	case !utf8.ValidString(s):
		return fmt.Errorf("trec: %s %q is not valid UTF-8", what, s)
	case strings.IndexFunc(s, isSpace) >= 0 || strings.IndexByte(s, 0) >= 0:
		return fmt.Errorf("trec: %s %q contains white space or NUL", what, s)
	case first && s[0] == '#':
		return fmt.Errorf("trec: %s %q would start a comment line", what, s)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Tag makes a run tag, which may hold no white space, from a ranker's
// label: a model file's base name, or a name or spec with its spaces
// turned to underscores.
func Tag(label string) string {
	return strings.Join(strings.Fields(filepath.Base(label)), "_")
}
