package dataset

import (
	"fmt"
	"strings"
)

// EmptyPolicy says what a reader does with a candidate whose text is empty
// or white space only. Real benchmarks converted to JSONL have such
// candidates (a sentence lost in conversion); refusing the whole file at the
// first one helps no one, and silently dropping them would shift positions.
type EmptyPolicy string

const (
	// EmptyKeep (the default; "" means it too) keeps an empty candidate in
	// its place as a never-relevant one: a Positive label becomes Negative,
	// and evaluation.Rank ranks it below every non-empty candidate without
	// asking the ranker, which has nothing to score.
	EmptyKeep EmptyPolicy = "keep"
	// EmptySkip drops empty candidates; the others keep their positions
	// (gaps are left where the dropped ones were). A question left with no
	// candidate is dropped.
	EmptySkip EmptyPolicy = "skip"
	// EmptyError refuses the input at the first empty candidate.
	EmptyError EmptyPolicy = "error"
)

// EmptyPolicies lists the policies, for help texts.
var EmptyPolicies = []EmptyPolicy{EmptySkip, EmptyKeep, EmptyError}

// ParseEmptyPolicy turns a flag value into an EmptyPolicy.
func ParseEmptyPolicy(s string) (EmptyPolicy, error) {
	for _, p := range EmptyPolicies {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown policy %q for empty candidates (want skip, keep or error)", s)
}

// EmptyCounts counts what a policy met, for a warning.
type EmptyCounts struct {
	Candidates int // empty candidates kept or skipped
	Relevant   int // of which labelled Positive (kept: now Negative)
	Questions  int // questions dropped by EmptySkip: every candidate was empty
}

// Add adds o to c.
func (c *EmptyCounts) Add(o EmptyCounts) {
	c.Candidates += o.Candidates
	c.Relevant += o.Relevant
	c.Questions += o.Questions
}

// Warning describes the counts in a sentence, or returns "" when there is
// nothing to say.
func (c EmptyCounts) Warning(p EmptyPolicy) string {
	if c.Candidates == 0 {
		return ""
	}
	var b strings.Builder
	if p == EmptySkip {
		fmt.Fprintf(&b, "skipped %d empty or white-space candidates", c.Candidates)
		if c.Relevant > 0 {
			fmt.Fprintf(&b, " (%d of them labelled relevant)", c.Relevant)
		}
		if c.Questions > 0 {
			fmt.Fprintf(&b, " and %d questions left without candidates", c.Questions)
		}
		b.WriteString("; the others keep their positions")
		return b.String()
	}
	fmt.Fprintf(&b, "kept %d empty or white-space candidates as never relevant, ranked below every other", c.Candidates)
	if c.Relevant > 0 {
		fmt.Fprintf(&b, " (%d of them were labelled relevant)", c.Relevant)
	}
	return b.String()
}

// IsEmpty reports whether the candidate's text is empty or white space.
func (c *Candidate) IsEmpty() bool { return strings.TrimSpace(c.Text) == "" }

// HasEmpty reports whether any candidate of q is empty.
func (q *Question) HasEmpty() bool {
	for i := range q.Candidates {
		if q.Candidates[i].IsEmpty() {
			return true
		}
	}
	return false
}

// ApplyEmpty applies policy p to q's empty candidates, adding what it met
// to counts (if not nil). It returns false when q is left without a
// candidate (EmptySkip) and should be dropped, and an error naming the
// candidate under EmptyError.
func ApplyEmpty(q *Question, p EmptyPolicy, counts *EmptyCounts) (bool, error) {
	if !q.HasEmpty() {
		return true, nil
	}
	var c EmptyCounts
	defer func() {
		if counts != nil {
			counts.Add(c)
		}
	}()
	switch p {
	case EmptyError:
		for i := range q.Candidates {
			if q.Candidates[i].IsEmpty() {
				return false, fmt.Errorf("question %q: candidate %d (id %q): empty text", q.ID, i, q.Candidates[i].ID)
			}
		}
	case EmptySkip:
		kept := make([]Candidate, 0, len(q.Candidates))
		for _, cd := range q.Candidates {
			if !cd.IsEmpty() {
				kept = append(kept, cd)
				continue
			}
			c.Candidates++
			if cd.Label == Positive {
				c.Relevant++
			}
		}
		q.Candidates = kept
		if len(kept) == 0 {
			c.Questions++
			return false, nil
		}
	case EmptyKeep, "":
		cs := make([]Candidate, len(q.Candidates)) // never write through to a caller's slice
		copy(cs, q.Candidates)
		for i := range cs {
			if !cs[i].IsEmpty() {
				continue
			}
			c.Candidates++
			if cs[i].Label == Positive {
				c.Relevant++
				cs[i].Label = Negative
			}
		}
		q.Candidates = cs
	default:
		return false, fmt.Errorf("unknown policy %q for empty candidates", p)
	}
	return true, nil
}

// ApplyEmptyAll applies p to every question of qs and returns those kept.
func ApplyEmptyAll(qs []Question, p EmptyPolicy, counts *EmptyCounts) ([]Question, error) {
	out := qs[:0:0]
	for i := range qs {
		q := qs[i]
		keep, err := ApplyEmpty(&q, p, counts)
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, q)
		}
	}
	return out, nil
}

// WithoutEmpty returns qs with their empty candidates left out (positions
// unchanged) and questions left without a candidate dropped: what training
// learns from, since an empty candidate has nothing to learn.
func WithoutEmpty(qs []Question) []Question {
	out, _ := ApplyEmptyAll(qs, EmptySkip, nil)
	return out
}
