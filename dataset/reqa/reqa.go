package reqa

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/dataset/squad"
)

// Format and Version name the file format Write writes.
const (
	Format  = "as2-reqa"
	Version = 1
)

// Answer is one sentence of the pool.
type Answer struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	Paragraph int    `json:"paragraph"` // index of its paragraph in the SQuAD file
	Article   string `json:"article"`   // title of its Wikipedia article
}

// Question is a question with the ids of its gold answers.
type Question struct {
	ID   string   `json:"id"` // the SQuAD id (the first, for merged questions)
	Text string   `json:"text"`
	Gold []string `json:"gold"`
}

// Pool is a ReQA benchmark: an open pool of answers and the questions
// asked of it.
type Pool struct {
	Source    string // where it came from, "squad-v1.1-dev"
	Split     string // dev, or a half: train or test
	Answers   []Answer
	Questions []Question
}

// Source is the Source of pools built from SQuAD v1.1 dev.
const Source = "squad-v1.1-dev"

// Build makes the pool of paragraphs ps by the ReQA recipe (see the package
// documentation).
func Build(ps []squad.Paragraph, split string) (*Pool, error) {
	pool := &Pool{Source: Source, Split: split}
	byText := map[string][]string{} // answer text -> ids
	qByText := map[string]int{}     // question text -> index
	for _, p := range ps {
		ids := make([]string, len(p.Sentences)) // sentence -> its answer id
		seen := map[string]string{}
		for k, s := range p.Sentences {
			if id, ok := seen[s.Text]; ok {
				ids[k] = id
				continue
			}
			id := "p" + strconv.Itoa(p.Index) + "-" + strconv.Itoa(k)
			seen[s.Text], ids[k] = id, id
			pool.Answers = append(pool.Answers, Answer{ID: id, Text: s.Text, Paragraph: p.Index, Article: p.Article})
			byText[s.Text] = append(byText[s.Text], id)
		}
		for _, q := range p.Questions {
			if len(q.AnswerStarts) == 0 {
				return nil, fmt.Errorf("reqa: question %q has no reference answer", q.ID)
			}
			i, ok := qByText[q.Text]
			if !ok {
				i = len(pool.Questions)
				qByText[q.Text] = i
				pool.Questions = append(pool.Questions, Question{ID: q.ID, Text: q.Text})
			}
			for _, off := range q.AnswerStarts {
				pool.Questions[i].Gold = appendNew(pool.Questions[i].Gold, ids[sentenceFrom(&p, off)])
			}
		}
	}
	// Every answer with a gold sentence's text is gold (ReQA's
	// response_index).
	texts := make(map[string]string, len(pool.Answers))
	for _, a := range pool.Answers {
		texts[a.ID] = a.Text
	}
	for i := range pool.Questions {
		q := &pool.Questions[i]
		var all []string
		for _, id := range q.Gold {
			for _, same := range byText[texts[id]] {
				all = appendNew(all, same)
			}
		}
		q.Gold = all
	}
	if len(pool.Questions) == 0 {
		return nil, errors.New("reqa: no questions")
	}
	return pool, nil
}

// sentenceFrom is the sentence of p holding byte offset off, or the next
// one when off falls between sentences, or the last.
func sentenceFrom(p *squad.Paragraph, off int) int {
	if k := p.SentenceAt(off); k >= 0 {
		return k
	}
	for k, s := range p.Sentences {
		if s.Start > off {
			return k
		}
	}
	return len(p.Sentences) - 1
}

func appendNew(ids []string, id string) []string {
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	return append(ids, id)
}

// Load builds the pool of split (squad.Splits: dev, train or test; ""
// for dev) from path, a SQuAD file or a folder holding dev-v1.1.json.zip
// ("" for the data folder's squad, catalog.DefaultPath).
func Load(path, split string) (*Pool, error) {
	if path == "" {
		path = catalog.DefaultPath("squad")
	}
	if split == "" {
		split = "dev"
	}
	ps, err := squad.LoadParagraphs(path, split)
	if err != nil {
		return nil, err
	}
	pool, err := Build(ps, split)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pool, nil
}

// IDs and Texts return the answers' ids and texts, in pool order, as an
// index builds from them.
func (p *Pool) IDs() []string {
	out := make([]string, len(p.Answers))
	for i, a := range p.Answers {
		out[i] = a.ID
	}
	return out
}

// Texts: see IDs.
func (p *Pool) Texts() []string {
	out := make([]string, len(p.Answers))
	for i, a := range p.Answers {
		out[i] = a.Text
	}
	return out
}

type header struct {
	Type      string `json:"type"`
	Format    string `json:"format"`
	Version   int    `json:"version"`
	Source    string `json:"source"`
	Split     string `json:"split"`
	Answers   int    `json:"answers"`
	Questions int    `json:"questions"`
}

type answerLine struct {
	Type string `json:"type"`
	Answer
}

type questionLine struct {
	Type string `json:"type"`
	Question
}

// Write writes p as JSONL (see the package documentation).
func (p *Pool) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(header{"header", Format, Version, p.Source, p.Split, len(p.Answers), len(p.Questions)}); err != nil {
		return err
	}
	for _, a := range p.Answers {
		if err := enc.Encode(answerLine{"answer", a}); err != nil {
			return err
		}
	}
	for _, q := range p.Questions {
		if err := enc.Encode(questionLine{"question", q}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// maxCount bounds the header's counts, so that a corrupt header cannot ask
// for a huge allocation.
const maxCount = 1 << 28

// Read parses a pool written by Write; name is used in errors, which are
// *dataset.ParseError naming the line.
func Read(r io.Reader, name string) (*Pool, error) {
	var (
		p       *Pool
		h       header
		answers = map[string]bool{}
		qids    = map[string]bool{}
	)
	err := dataset.ScanLines(r, name, func(_ int, s string) error {
		if p == nil {
			if err := strict(s, &h); err != nil {
				return fmt.Errorf("not an %s header: %w", Format, err)
			}
			if h.Type != "header" || h.Format != Format {
				return fmt.Errorf("not an %s file: the first line must be its header", Format)
			}
			if h.Version != Version {
				return fmt.Errorf("%s version %d: this build reads version %d", Format, h.Version, Version)
			}
			if h.Answers < 0 || h.Questions < 0 || h.Answers > maxCount || h.Questions > maxCount {
				return fmt.Errorf("header: impossible counts %d answers, %d questions", h.Answers, h.Questions)
			}
			p = &Pool{Source: h.Source, Split: h.Split}
			return nil
		}
		var t struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(s), &t); err != nil {
			return fmt.Errorf("not JSON: %w", err)
		}
		switch t.Type {
		case "answer":
			if len(p.Questions) > 0 {
				return errors.New("an answer after the questions")
			}
			var a answerLine
			if err := strict(s, &a); err != nil {
				return err
			}
			switch {
			case a.ID == "":
				return errors.New("answer without an id")
			case answers[a.ID]:
				return fmt.Errorf("answer %q: repeated id", a.ID)
			case a.Text == "":
				return fmt.Errorf("answer %q: empty text", a.ID)
			case a.Paragraph < 0:
				return fmt.Errorf("answer %q: negative paragraph %d", a.ID, a.Paragraph)
			case len(p.Answers) >= h.Answers:
				return fmt.Errorf("more answers than the header's %d", h.Answers)
			}
			answers[a.ID] = true
			p.Answers = append(p.Answers, a.Answer)
		case "question":
			var q questionLine
			if err := strict(s, &q); err != nil {
				return err
			}
			switch {
			case q.ID == "":
				return errors.New("question without an id")
			case qids[q.ID]:
				return fmt.Errorf("question %q: repeated id", q.ID)
			case q.Text == "":
				return fmt.Errorf("question %q: empty text", q.ID)
			case len(q.Gold) == 0:
				return fmt.Errorf("question %q: no gold answer", q.ID)
			case len(p.Questions) >= h.Questions:
				return fmt.Errorf("more questions than the header's %d", h.Questions)
			}
			for _, g := range q.Gold {
				if !answers[g] {
					return fmt.Errorf("question %q: gold answer %q is not in the pool", q.ID, g)
				}
			}
			qids[q.ID] = true
			p.Questions = append(p.Questions, q.Question)
		default:
			return fmt.Errorf("unknown line type %q (want answer or question)", t.Type)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("empty file: not an %s file", Format)}
	}
	if len(p.Answers) != h.Answers || len(p.Questions) != h.Questions {
		return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("file is truncated: %d answers and %d questions where the header says %d and %d",
			len(p.Answers), len(p.Questions), h.Answers, h.Questions)}
	}
	return p, nil
}

// strict decodes one JSON object from s into v, refusing unknown fields
// and trailing data.
func strict(s string, v any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad JSON: %w", err)
	}
	if dec.More() {
		return errors.New("bad JSON: data after the object")
	}
	return nil
}

// ReadFile reads a pool file (plain or gzip-compressed).
func ReadFile(path string) (*Pool, error) {
	return dataset.ReadFile(path, Read)
}
