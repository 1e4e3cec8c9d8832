package squad

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/text"
)

type file struct {
	Version string `json:"version"`
	Data    []struct {
		Title      string `json:"title"`
		Paragraphs []struct {
			Context string `json:"context"`
			QAs     []struct {
				ID       string `json:"id"`
				Question string `json:"question"`
				Answers  []struct {
					Text  string `json:"text"`
					Start int    `json:"answer_start"`
				} `json:"answers"`
			} `json:"qas"`
		} `json:"paragraphs"`
	} `json:"data"`
}

// Read parses SQuAD JSON from r into SQuAD-sent questions; name is used in
// errors.
func Read(r io.Reader, name string) ([]dataset.Question, error) {
	var f file
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("file is truncated: %w", err)
		}
		return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("not SQuAD JSON: %w", err)}
	}
	if f.Data == nil {
		return nil, &dataset.ParseError{File: name, Err: errors.New(`not SQuAD JSON: no "data" array`)}
	}
	var qs []dataset.Question
	para := 0
	for _, art := range f.Data {
		for _, p := range art.Paragraphs {
			if !utf8.ValidString(p.Context) {
				return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("paragraph %d of %q: invalid UTF-8", para, art.Title)}
			}
			sents := text.SplitSentences(p.Context)
			// SQuAD offsets count characters (Python code points); the
			// splitter's offsets count bytes.
			byteAt := runeOffsets(p.Context)
			for _, qa := range p.QAs {
				if strings.TrimSpace(qa.Question) == "" {
					return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("question %q: empty question", qa.ID)}
				}
				if len(sents) == 0 {
					return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("question %q: empty paragraph", qa.ID)}
				}
				q := dataset.Question{ID: qa.ID, Text: qa.Question}
				for k, s := range sents {
					q.Candidates = append(q.Candidates, dataset.Candidate{
						ID:       "p" + strconv.Itoa(para) + "-" + strconv.Itoa(k),
						Text:     s.Text,
						Position: k,
						Label:    dataset.Negative,
					})
				}
				for _, a := range qa.Answers {
					n := utf8.RuneCountInString(a.Text)
					if a.Start < 0 || a.Start+n >= len(byteAt) || n == 0 {
						return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("question %q: answer %q at character %d lies outside its paragraph", qa.ID, a.Text, a.Start)}
					}
					start, end := byteAt[a.Start], byteAt[a.Start+n]
					for k, s := range sents {
						if s.Start < end && start < s.End {
							q.Candidates[k].Label = dataset.Positive
						}
					}
				}
				qs = append(qs, q)
			}
			para++
		}
	}
	if len(qs) == 0 {
		return nil, &dataset.ParseError{File: name, Err: errors.New("no questions")}
	}
	return qs, nil
}

// runeOffsets maps each character index of s (and len) to its byte offset.
func runeOffsets(s string) []int {
	off := make([]int, 0, len(s)+1)
	for i := range s {
		off = append(off, i)
	}
	return append(off, len(s))
}

// ReadFile reads a SQuAD file: the official zip (its first .json member),
// or JSON, plain or gzip-compressed.
func ReadFile(path string) ([]dataset.Question, error) {
	if strings.EqualFold(filepath.Ext(path), ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, &dataset.ParseError{File: path, Err: fmt.Errorf("reading zip: %w", err)}
		}
		defer zr.Close()
		for _, m := range zr.File {
			if strings.HasSuffix(m.Name, ".json") {
				rc, err := m.Open()
				if err != nil {
					return nil, &dataset.ParseError{File: path, Err: fmt.Errorf("member %s: %w", m.Name, err)}
				}
				defer rc.Close()
				return Read(rc, path+"#"+m.Name)
			}
		}
		return nil, &dataset.ParseError{File: path, Err: errors.New("zip holds no .json member")}
	}
	return dataset.ReadFile(path, Read)
}

// Load reads SQuAD-sent from path: a SQuAD file, or a folder holding
// dev-v1.1.json.zip (the only split available offline: split must be "dev").
func Load(path, split string) ([]dataset.Question, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return ReadFile(path)
	}
	if split != "dev" {
		return nil, fmt.Errorf("squad: unknown split %q (only dev, the official v1.1 dev set, is available)", split)
	}
	return ReadFile(filepath.Join(path, "dev-v1.1.json.zip"))
}
