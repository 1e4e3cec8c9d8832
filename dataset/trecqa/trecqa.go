package trecqa

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/as2/as2/dataset"
)

// Splits maps each split name Load accepts to where it lives below the
// TrecQA folder of ../shared/data. "dev" and "test" are the clean sets
// (questions with at least one positive and one negative candidate: 65 and
// 68 questions), the ones papers usually report.
var Splits = map[string]string{
	"train":      "castorini-folders/train",
	"train-all":  "mcrisc-jsonl/train-all.jsonl.gz",
	"dev":        "castorini-folders/clean-dev",
	"test":       "castorini-folders/clean-test",
	"clean-dev":  "castorini-folders/clean-dev",
	"clean-test": "castorini-folders/clean-test",
	"raw-dev":    "castorini-folders/raw-dev",
	"raw-test":   "castorini-folders/raw-test",
}

// DefaultSeed is the seed Load shuffles candidates with.
const DefaultSeed = 1

// Options control Load.
type Options struct {
	// KeepStoredOrder keeps the stored, label-sorted candidate order. Only
	// for inspecting the files: any position-based result is then inflated.
	KeepStoredOrder bool
	// Seed for the shuffle; 0 means DefaultSeed.
	Seed uint64
	// NormalizeNumbers replaces every number token by "<num>" (see package doc).
	NormalizeNumbers bool
}

// Load reads a split from path, which is the TrecQA folder (holding
// castorini-folders/ and mcrisc-jsonl/), one castorini folder, or a JSONL
// file. Candidates are shuffled unless opts.KeepStoredOrder.
func Load(path, split string, opts Options) ([]dataset.Question, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("trecqa: %w", err)
	}
	target := path
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "a.toks")); err != nil {
			rel, ok := Splits[split]
			if !ok {
				return nil, fmt.Errorf("trecqa: unknown split %q (want one of %s)", split, strings.Join(SplitNames(), ", "))
			}
			target = filepath.Join(path, rel)
		}
	}
	var qs []dataset.Question
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		qs, err = ReadFolder(target)
		if err != nil {
			return nil, err
		}
	} else if qs, err = dataset.ReadFile(target, dataset.ReadJSONL); err != nil {
		return nil, err
	}
	if opts.NormalizeNumbers {
		for i := range qs {
			qs[i].Text = NormalizeNumbers(qs[i].Text)
			for j := range qs[i].Candidates {
				qs[i].Candidates[j].Text = NormalizeNumbers(qs[i].Candidates[j].Text)
			}
		}
	}
	if !opts.KeepStoredOrder {
		seed := opts.Seed
		if seed == 0 {
			seed = DefaultSeed
		}
		dataset.Shuffle(qs, seed)
	}
	return qs, nil
}

// SplitNames lists the split names in a stable order, for help texts.
func SplitNames() []string {
	return []string{"train", "train-all", "dev", "test", "raw-dev", "raw-test"}
}

// ReadFolder reads one castorini folder: line i of a.toks (question),
// b.toks (candidate), sim.txt (label) and id.txt (question id) describe one
// pair. Candidates of a question are the consecutive lines with the same id
// (boundary.txt and numrels.txt are not used: their line counts do not always
// match the data). Candidates keep the stored order.
func ReadFolder(dir string) ([]dataset.Question, error) {
	names := []string{"a.toks", "b.toks", "sim.txt", "id.txt"}
	cols := make([][]string, len(names))
	for i, n := range names {
		p := filepath.Join(dir, n)
		if err := dataset.ReadLines(p, func(_ int, text string) error {
			cols[i] = append(cols[i], text)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return parseColumns(dir, cols[0], cols[1], cols[2], cols[3])
}

// parseColumns groups the line-aligned columns of a castorini folder into
// questions; dir names the files in errors.
func parseColumns(dir string, as, bs, sims, ids []string) ([]dataset.Question, error) {
	for _, c := range []struct {
		name string
		n    int
	}{{"b.toks", len(bs)}, {"sim.txt", len(sims)}, {"id.txt", len(ids)}} {
		if c.n != len(as) {
			return nil, &dataset.ParseError{File: filepath.Join(dir, c.name), Err: fmt.Errorf("%d lines, but a.toks has %d: the files must be line-aligned", c.n, len(as))}
		}
	}
	var qs []dataset.Question
	seen := map[string]bool{}
	for line := 1; line <= len(as); line++ {
		question, cand, sim, id := as[line-1], bs[line-1], strings.TrimSpace(sims[line-1]), strings.TrimSpace(ids[line-1])
		at := func(file, format string, args ...any) error {
			return dataset.Errorf(filepath.Join(dir, file), line, format, args...)
		}
		if id == "" {
			return nil, at("id.txt", "empty question id")
		}
		var label int
		switch sim {
		case "0":
			label = dataset.Negative
		case "1":
			label = dataset.Positive
		default:
			return nil, at("sim.txt", "label %q is not 0 or 1", sim)
		}
		if len(qs) == 0 || qs[len(qs)-1].ID != id {
			if seen[id] {
				return nil, at("id.txt", "question %s appears again after other questions; its lines must be contiguous", id)
			}
			seen[id] = true
			if strings.TrimSpace(question) == "" {
				return nil, at("a.toks", "empty question")
			}
			qs = append(qs, dataset.Question{ID: id, Text: question})
		} else if qs[len(qs)-1].Text != question {
			return nil, at("a.toks", "question %s changes text within its block", id)
		}
		if strings.TrimSpace(cand) == "" {
			return nil, at("b.toks", "empty candidate")
		}
		q := &qs[len(qs)-1]
		n := len(q.Candidates)
		q.Candidates = append(q.Candidates, dataset.Candidate{ID: strconv.Itoa(n), Text: cand, Position: n, Label: label})
	}
	if len(qs) == 0 {
		return nil, &dataset.ParseError{File: filepath.Join(dir, "a.toks"), Err: errors.New("no questions")}
	}
	return qs, nil
}

// NormalizeNumbers replaces every white-space separated token that contains
// a digit and no letter ("1,000", "3.5", "1990") by "<num>", the convention
// of TRAIN-ALL. Tokens mixing letters and digits ("1990s", "b52") are kept.
func NormalizeNumbers(s string) string {
	f := strings.Fields(s)
	for i, t := range f {
		digit, letter := false, false
		for _, r := range t {
			digit = digit || unicode.IsDigit(r)
			letter = letter || unicode.IsLetter(r)
		}
		if digit && !letter {
			f[i] = "<num>"
		}
	}
	return strings.Join(f, " ")
}
