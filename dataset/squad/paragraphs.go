package squad

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/text"
)

// Paragraph is one SQuAD paragraph split into sentences, with its
// questions and where their answers start: what answer retrieval (ReQA)
// needs, where Read's SQuAD-sent needs labelled candidates.
type Paragraph struct {
	// Index counts paragraphs over the whole file, from 0: the p in the
	// candidate ids "p<Index>-<k>" that Read gives.
	Index   int
	Article string // the Wikipedia article's title
	Context string
	// Sentences are text.SplitSentences(Context), the splitter Read uses.
	Sentences []text.Sentence
	Questions []ParagraphQuestion
}

// ParagraphQuestion is a question of a paragraph.
type ParagraphQuestion struct {
	ID, Text string
	// AnswerStarts are the byte offsets in Context where the reference
	// answers start (SQuAD's answer_start counts characters), one per
	// reference answer, repeats included.
	AnswerStarts []int
}

// SentenceAt returns the index of the sentence of p that contains byte
// offset off, or -1 when off falls in the white space between sentences.
func (p *Paragraph) SentenceAt(off int) int {
	for k, s := range p.Sentences {
		if s.Start <= off && off < s.End {
			return k
		}
	}
	return -1
}

// ReadParagraphs parses SQuAD JSON from r into its paragraphs, in file
// order; name is used in errors. It checks what Read checks.
func ReadParagraphs(r io.Reader, name string) ([]Paragraph, error) {
	f, err := decode(r, name)
	if err != nil {
		return nil, err
	}
	var out []Paragraph
	nq := 0
	for _, art := range f.Data {
		for _, p := range art.Paragraphs {
			para := len(out)
			if !utf8.ValidString(p.Context) {
				return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("paragraph %d of %q: invalid UTF-8", para, art.Title)}
			}
			sents := text.SplitSentences(p.Context)
			byteAt := runeOffsets(p.Context)
			pp := Paragraph{Index: para, Article: art.Title, Context: p.Context, Sentences: sents}
			for _, qa := range p.QAs {
				if strings.TrimSpace(qa.Question) == "" {
					return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("question %q: empty question", qa.ID)}
				}
				if len(sents) == 0 {
					return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("question %q: empty paragraph", qa.ID)}
				}
				q := ParagraphQuestion{ID: qa.ID, Text: qa.Question}
				for _, a := range qa.Answers {
					n := utf8.RuneCountInString(a.Text)
					if a.Start < 0 || a.Start+n >= len(byteAt) || n == 0 {
						return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("question %q: answer %q at character %d lies outside its paragraph", qa.ID, a.Text, a.Start)}
					}
					q.AnswerStarts = append(q.AnswerStarts, byteAt[a.Start])
				}
				pp.Questions = append(pp.Questions, q)
				nq++
			}
			out = append(out, pp)
		}
	}
	if nq == 0 {
		return nil, &dataset.ParseError{File: name, Err: errors.New("no questions")}
	}
	return out, nil
}

// LoadParagraphs is Load for paragraphs: from a SQuAD file (split
// ignored), or from a folder holding dev-v1.1.json.zip, the paragraphs of
// split (see Splits: dev, or one of its article-disjoint halves). Paragraph
// indices count over the whole file whatever the split, so a paragraph has
// the same index in a half as in dev.
func LoadParagraphs(path, split string) ([]Paragraph, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return readFileWith(path, ReadParagraphs)
	}
	if !slices.Contains(Splits, split) {
		return nil, fmt.Errorf("squad: unknown split %q (want dev, the official v1.1 dev set, or its article-disjoint halves train and test)", split)
	}
	file := filepath.Join(path, "dev-v1.1.json.zip")
	ps, err := readFileWith(file, ReadParagraphs)
	if err != nil {
		return nil, err
	}
	if split == "dev" {
		return ps, nil
	}
	half := halves()
	var out []Paragraph
	for _, p := range ps {
		h, ok := half[p.Article]
		if !ok {
			return nil, fmt.Errorf("squad: %s: article %q is in neither half: the halves are defined for SQuAD v1.1 dev", file, p.Article)
		}
		if h == split {
			out = append(out, p)
		}
	}
	return out, nil
}
