package wikiqa

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/as2/as2/dataset"
)

var header = []string{"QuestionID", "Question", "DocumentID", "DocumentTitle", "SentenceID", "Sentence", "Label"}

// Splits are the official splits.
var Splits = []string{"train", "dev", "test"}

// Read reads one official WikiQA TSV file from r; name is used in errors.
// Rows of a question must be contiguous and in document order, as in the
// official files.
func Read(r io.Reader, name string) ([]dataset.Question, error) {
	var qs []dataset.Question
	seen := map[string]bool{}
	err := dataset.ScanLines(r, name, func(line int, text string) error {
		f := strings.Split(text, "\t")
		if line == 1 {
			if strings.Join(f, "\t") != strings.Join(header, "\t") {
				return fmt.Errorf("header is %q, want the official %q", text, strings.Join(header, "\t"))
			}
			return nil
		}
		if len(f) != len(header) {
			return fmt.Errorf("%d tab-separated fields, want %d", len(f), len(header))
		}
		qid, question, docID, sentID, sentence := f[0], f[1], f[2], f[4], f[5]
		if qid == "" {
			return errors.New("empty QuestionID")
		}
		if strings.TrimSpace(question) == "" {
			return fmt.Errorf("question %s: empty question", qid)
		}
		var label int
		switch f[6] {
		case "0":
			label = dataset.Negative
		case "1":
			label = dataset.Positive
		default:
			return fmt.Errorf("label %q is not 0 or 1", f[6])
		}
		if len(qs) == 0 || qs[len(qs)-1].ID != qid {
			if seen[qid] {
				return fmt.Errorf("question %s appears again after other questions; rows of a question must be contiguous", qid)
			}
			seen[qid] = true
			qs = append(qs, dataset.Question{ID: qid, Text: question})
		}
		q := &qs[len(qs)-1]
		pos := len(q.Candidates)
		if want := docID + "-" + strconv.Itoa(pos); sentID != want {
			return fmt.Errorf("SentenceID %q, want %q: sentences of a question must be in document order", sentID, want)
		}
		if strings.TrimSpace(sentence) == "" {
			return fmt.Errorf("%s: empty sentence", sentID)
		}
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: sentID, Text: sentence, Position: pos, Label: label})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, &dataset.ParseError{File: name, Err: errors.New("no questions")}
	}
	return qs, nil
}

// ReadFile reads a WikiQA TSV file, gzip-compressed or not.
func ReadFile(path string) ([]dataset.Question, error) {
	return dataset.ReadFile(path, Read)
}

// Load reads split ("train", "dev" or "test") from dir, which holds
// WikiQA-<split>.tsv or WikiQA-<split>.tsv.gz. If dir is a file, it is read
// as is and split is ignored.
func Load(dir, split string) ([]dataset.Question, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return ReadFile(dir)
	}
	if !validSplit(split) {
		return nil, fmt.Errorf("wikiqa: unknown split %q (want train, dev or test)", split)
	}
	base := filepath.Join(dir, "WikiQA-"+split+".tsv")
	for _, p := range []string{base + ".gz", base} {
		if _, err := os.Stat(p); err == nil {
			return ReadFile(p)
		}
	}
	return nil, fmt.Errorf("wikiqa: neither %s.gz nor %s found", base, base)
}

func validSplit(s string) bool {
	for _, v := range Splits {
		if v == s {
			return true
		}
	}
	return false
}
