package dataset

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Labels of a candidate. Unlabeled marks user data that carries no judgement;
// such candidates can be ranked but not evaluated.
const (
	Unlabeled = -1
	Negative  = 0
	Positive  = 1
)

// Candidate is one answer sentence candidate of a question.
type Candidate struct {
	ID       string // unique within its question, e.g. WikiQA's SentenceID "D1-0"
	Text     string
	Position int // 0-based place in the original document or retrieval rank
	Label    int // Positive, Negative or Unlabeled
}

// Question is a question and its candidates in their original order.
type Question struct {
	ID         string
	Text       string
	Candidates []Candidate
}

// Positives returns the number of candidates labelled Positive.
func (q *Question) Positives() int {
	n := 0
	for _, c := range q.Candidates {
		if c.Label == Positive {
			n++
		}
	}
	return n
}

// Labelled reports whether every candidate carries a label.
func (q *Question) Labelled() bool {
	for _, c := range q.Candidates {
		if c.Label == Unlabeled {
			return false
		}
	}
	return true
}

// Validate checks what every reader guarantees: a non-empty question, at
// least one candidate, labels in {-1, 0, 1}, and unique candidate ids. A
// candidate's text may be empty: readers apply an EmptyPolicy to those.
func (q *Question) Validate() error {
	if strings.TrimSpace(q.Text) == "" {
		return fmt.Errorf("question %q: empty question text", q.ID)
	}
	if len(q.Candidates) == 0 {
		return fmt.Errorf("question %q: no candidates", q.ID)
	}
	seen := make(map[string]bool, len(q.Candidates))
	for i, c := range q.Candidates {
		if c.Label < Unlabeled || c.Label > Positive {
			return fmt.Errorf("question %q: candidate %d: label %d is not 0 or 1", q.ID, i, c.Label)
		}
		if seen[c.ID] {
			return fmt.Errorf("question %q: candidate id %q appears twice", q.ID, c.ID)
		}
		seen[c.ID] = true
	}
	return nil
}

// ValidateAll checks every question (see Question.Validate).
func ValidateAll(qs []Question) error {
	for i := range qs {
		if err := qs[i].Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Subset names a set of questions to evaluate on. The papers disagree, so
// as2 makes the choice explicit and prints it with every result.
type Subset string

const (
	// All keeps every question.
	All Subset = "all"
	// Answered keeps questions with at least one positive candidate: the
	// Cosinet paper's convention (WikiQA test: 243 questions).
	Answered Subset = "answered"
	// Filtered keeps questions with at least one positive and one negative
	// candidate: the WikiQA paper's "-filtered.ref" convention (WikiQA test:
	// 237 questions) and TrecQA's "clean" sets.
	Filtered Subset = "filtered"
)

// Subsets lists the valid subsets, for help texts.
var Subsets = []Subset{All, Answered, Filtered}

// ParseSubset turns a flag value into a Subset.
func ParseSubset(s string) (Subset, error) {
	for _, v := range Subsets {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown subset %q (want all, answered or filtered)", s)
}

// Keep reports whether q belongs to the subset.
func (s Subset) Keep(q *Question) bool {
	switch s {
	case Answered:
		return q.Positives() > 0
	case Filtered:
		p := q.Positives()
		return p > 0 && p < len(q.Candidates)
	default:
		return true
	}
}

// Filter returns the questions that belong to subset s (sharing storage with qs).
func Filter(qs []Question, s Subset) []Question {
	var out []Question
	for i := range qs {
		if s.Keep(&qs[i]) {
			out = append(out, qs[i])
		}
	}
	return out
}

// Shuffle permutes each question's candidates with a generator seeded by
// seed and renumbers their positions 0..n-1 in the new order. Used where the
// stored order is not a real order (TrecQA stores positives first), so that
// no position-based ranker or tie-break can read the labels off the order.
// Each question gets its own stream derived from seed and its index, so the
// result does not depend on how questions are later split or filtered.
func Shuffle(qs []Question, seed uint64) {
	for i := range qs {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		cs := make([]Candidate, len(qs[i].Candidates))
		copy(cs, qs[i].Candidates)
		r.Shuffle(len(cs), func(a, b int) { cs[a], cs[b] = cs[b], cs[a] })
		for p := range cs {
			cs[p].Position = p
		}
		qs[i].Candidates = cs
	}
}
