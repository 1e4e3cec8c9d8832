package squad

import (
	"archive/zip"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	arts, err := ReadArticles(r, name)
	if err != nil {
		return nil, err
	}
	var qs []dataset.Question
	for _, a := range arts {
		qs = append(qs, a.Questions...)
	}
	return qs, nil
}

// Article is one Wikipedia article's SQuAD-sent questions.
type Article struct {
	Title     string
	Questions []dataset.Question
}

// ReadArticles is Read with the questions grouped by article, in file
// order.
func ReadArticles(r io.Reader, name string) ([]Article, error) {
	f, err := decode(r, name)
	if err != nil {
		return nil, err
	}
	var arts []Article
	para, n := 0, 0
	for _, art := range f.Data {
		var qs []dataset.Question
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
		arts = append(arts, Article{Title: art.Title, Questions: qs})
		n += len(qs)
	}
	if n == 0 {
		return nil, &dataset.ParseError{File: name, Err: errors.New("no questions")}
	}
	return arts, nil
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
	arts, err := readArticlesFile(path)
	if err != nil {
		return nil, err
	}
	var qs []dataset.Question
	for _, a := range arts {
		qs = append(qs, a.Questions...)
	}
	return qs, nil
}

func readArticlesFile(path string) ([]Article, error) {
	return readFileWith(path, ReadArticles)
}

// readFileWith opens path, the official zip (its first .json member) or
// JSON, plain or gzip-compressed, and parses it with read.
func readFileWith[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	if strings.EqualFold(filepath.Ext(path), ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return zero, &dataset.ParseError{File: path, Err: fmt.Errorf("reading zip: %w", err)}
		}
		defer zr.Close()
		for _, m := range zr.File {
			if strings.HasSuffix(m.Name, ".json") {
				rc, err := m.Open()
				if err != nil {
					return zero, &dataset.ParseError{File: path, Err: fmt.Errorf("member %s: %w", m.Name, err)}
				}
				defer rc.Close()
				return read(rc, path+"#"+m.Name)
			}
		}
		return zero, &dataset.ParseError{File: path, Err: errors.New("zip holds no .json member")}
	}
	return dataset.ReadFile(path, read)
}

// Splits are the SQuAD-sent splits: dev, the whole official v1.1 dev set
// (the only SQuAD file available offline), and its two article-disjoint
// halves, train and test (halves.tsv), so that a model can train on SQuAD
// articles and be tested on others.
var Splits = []string{"dev", "train", "test"}

//go:embed halves.tsv
var halvesTSV string

// halves maps each article of SQuAD v1.1 dev to its half, "train" or
// "test", as the checked-in halves.tsv says (made by
// scripts/squad-halves.py).
func halves() map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(halvesTSV, "\n") {
		f := strings.Split(line, "\t")
		if len(f) >= 2 && !strings.HasPrefix(line, "#") {
			out[f[0]] = f[1]
		}
	}
	return out
}

// DevFiles are the names Load looks for in a folder, first found wins: the
// zip of ../shared/data, and the official plain JSON that `as2 data get
// squad` downloads (or a gzip of it).
var DevFiles = []string{"dev-v1.1.json.zip", "dev-v1.1.json", "dev-v1.1.json.gz"}

// Load reads SQuAD-sent from path: a SQuAD file (all its questions, split
// ignored), or a folder holding SQuAD v1.1 dev (see DevFiles), whose split
// (see Splits) it returns.
func Load(path, split string) ([]dataset.Question, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return ReadFile(path)
	}
	if !slices.Contains(Splits, split) {
		return nil, fmt.Errorf("squad: unknown split %q (want dev, the official v1.1 dev set, or its article-disjoint halves train and test)", split)
	}
	file := filepath.Join(path, DevFiles[0])
	for _, name := range DevFiles {
		if p := filepath.Join(path, name); fileExists(p) {
			file = p
			break
		}
	}
	arts, err := readArticlesFile(file)
	if err != nil {
		return nil, err
	}
	half := halves()
	var qs []dataset.Question
	for _, a := range arts {
		h, ok := half[a.Title]
		if !ok && split != "dev" {
			return nil, fmt.Errorf("squad: %s: article %q is in neither half: the halves are defined for SQuAD v1.1 dev", file, a.Title)
		}
		if split == "dev" || h == split {
			qs = append(qs, a.Questions...)
		}
	}
	return qs, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// decode reads SQuAD JSON from r (name for errors): a file with a "data"
// array, or a ParseError.
func decode(r io.Reader, name string) (file, error) {
	var f file
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("file is truncated: %w", err)
		}
		return f, &dataset.ParseError{File: name, Err: fmt.Errorf("not SQuAD JSON: %w", err)}
	}
	if f.Data == nil {
		return f, &dataset.ParseError{File: name, Err: errors.New(`not SQuAD JSON: no "data" array`)}
	}
	return f, nil
}
