package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/as2/as2/dataset"
)

// Source is a dataset as a command line or a configuration names it: a
// benchmark's split, or a jsonl or tsv file, with the questions to keep.
// One Source can load several splits (Load's split argument).
type Source struct {
	Name   string // a benchmark or jsonl or tsv (Names)
	Path   string // the folder ("": DefaultPath), or the jsonl or tsv file
	Split  string // "": DefaultSplit
	Subset string // questions to keep (dataset.ParseSubset)
	Empty  string // empty candidates (dataset.ParseEmptyPolicy; "": keep)
	// Options holds TrecQA's settings; Load sets its Empty and Counts.
	Options Options
}

// FieldError is a Source field that is missing or has a bad value. Field
// is the field's name as the command line spells it: "dataset" (Name),
// "subset" or "empty".
type FieldError struct {
	Field string
	Err   error
}

// ErrMissing is the Err of a FieldError for a field that must be given.
var ErrMissing = errors.New("is required")

func (e *FieldError) Error() string {
	if errors.Is(e.Err, ErrMissing) {
		return e.Field + " " + e.Err.Error() // "dataset is required (...)"
	}
	return e.Field + ": " + e.Err.Error()
}
func (e *FieldError) Unwrap() error { return e.Err }

// Loaded is what Source.Load read.
type Loaded struct {
	All    []dataset.Question // every question of the split
	Kept   []dataset.Question // those of Subset
	Subset dataset.Subset
	// Policy is the empty-candidate policy applied, and Counts what it met
	// (Counts.Warning says it for a user).
	Policy dataset.EmptyPolicy
	Counts dataset.EmptyCounts
}

// SplitName is split, else s.Split, else the dataset's default split.
func (s Source) SplitName(split string) string {
	return cmp.Or(split, s.Split, DefaultSplit(s.Name))
}

// Describe names the data split holds, for reports and warnings:
// "wikiqa test", or the file of a jsonl or tsv dataset, which has no
// splits.
func (s Source) Describe(split string) string {
	if IsFile(s.Name) {
		return s.Path
	}
	return s.Name + " " + s.SplitName(split)
}

// Load reads split ("": SplitName) and keeps the questions of sub ("":
// s.Subset). Errors about s's fields are *FieldError; a missing file is
// an error for which errors.Is(err, fs.ErrNotExist) holds.
func (s Source) Load(split string, sub dataset.Subset) (Loaded, error) {
	if s.Name == "" {
		return Loaded{}, &FieldError{"dataset", fmt.Errorf("%w (one of %s)", ErrMissing, strings.Join(Names, ", "))}
	}
	var l Loaded
	var err error
	if sub == "" {
		if sub, err = dataset.ParseSubset(s.Subset); err != nil {
			return l, &FieldError{"subset", err}
		}
	}
	if s.Empty != "" {
		if l.Policy, err = dataset.ParseEmptyPolicy(s.Empty); err != nil {
			return l, &FieldError{"empty", err}
		}
	}
	opts := s.Options
	opts.Empty, opts.Counts = l.Policy, &l.Counts
	if l.All, err = Load(s.Name, s.Path, s.SplitName(split), opts); err != nil {
		return Loaded{}, err
	}
	l.Kept, l.Subset = dataset.Filter(l.All, sub), sub
	return l, nil
}
