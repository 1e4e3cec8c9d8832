package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The JSONL format: one question per line,
//
//	{"id": "q1", "question": "who wrote hamlet?",
//	 "candidates": [{"id": "s0", "text": "Hamlet is a tragedy ...", "label": 0},
//	                {"text": "It was written by William Shakespeare.", "label": 1},
//	                "A candidate may also be a bare string (unlabelled)."]}
//
// Candidates are listed in their original order (document order or retrieval
// rank); Position is their index in the list. "id" is optional on both levels
// (questions default to their line number, candidates to their index);
// "label" is optional (0/1 or false/true; absent means unlabelled); "sentence"
// is accepted for "text", so the TrecQA JSONL of mcrisc/lexdecomp reads as is.
// Unknown fields are ignored.
type jsonQuestion struct {
	ID         *string         `json:"id,omitempty"`
	Question   string          `json:"question"`
	Candidates []jsonCandidate `json:"candidates"`
}

type jsonCandidate struct {
	ID       *string         `json:"id,omitempty"`
	Text     string          `json:"text"`
	Sentence string          `json:"sentence,omitempty"`
	Label    json.RawMessage `json:"label,omitempty"`
}

func (c *jsonCandidate) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &c.Text)
	}
	type plain jsonCandidate
	return json.Unmarshal(b, (*plain)(c))
}

func parseLabel(raw json.RawMessage) (int, error) {
	switch s := string(bytes.TrimSpace(raw)); s {
	case "", "null":
		return Unlabeled, nil
	case "0", "false":
		return Negative, nil
	case "1", "true":
		return Positive, nil
	default:
		return 0, fmt.Errorf("label %s is not 0 or 1", s)
	}
}

// ReadOptions control the JSONL and TSV readers.
type ReadOptions struct {
	// Empty says what to do with empty or white-space candidates ("":
	// EmptyKeep).
	Empty EmptyPolicy
	// Counts, if not nil, accumulates what Empty met, for a warning.
	Counts *EmptyCounts
}

// ReadJSONL reads questions in as2's JSONL format from r, keeping empty
// candidates (EmptyKeep); name is used in error messages ("name:line: ...").
func ReadJSONL(r io.Reader, name string) ([]Question, error) {
	return ReadOptions{}.JSONL(r, name)
}

// ReadTSV reads the TSV variant (see ReadOptions.TSV), keeping empty
// candidates (EmptyKeep).
func ReadTSV(r io.Reader, name string) ([]Question, error) {
	return ReadOptions{}.TSV(r, name)
}

// JSONL reads questions in as2's JSONL format from r, applying o; name is
// used in error messages ("name:line: ...").
func (o ReadOptions) JSONL(r io.Reader, name string) ([]Question, error) {
	var qs []Question
	err := ScanLines(r, name, func(line int, text string) error {
		if strings.TrimSpace(text) == "" {
			return nil
		}
		var jq jsonQuestion
		dec := json.NewDecoder(strings.NewReader(text))
		if err := dec.Decode(&jq); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return fmt.Errorf("field %q: %s is not a %s", te.Field, te.Value, te.Type)
			}
			return fmt.Errorf("malformed JSON: %w", err)
		}
		if dec.More() {
			return errors.New("more than one JSON value on the line")
		}
		q := Question{ID: strconv.Itoa(line), Text: jq.Question}
		if jq.ID != nil {
			q.ID = *jq.ID
		}
		for i, jc := range jq.Candidates {
			c := Candidate{ID: strconv.Itoa(i), Text: jc.Text, Position: i}
			if c.Text == "" {
				c.Text = jc.Sentence
			}
			if jc.ID != nil {
				c.ID = *jc.ID
			}
			l, err := parseLabel(jc.Label)
			if err != nil {
				return fmt.Errorf("candidate %d: %w", i, err)
			}
			c.Label = l
			q.Candidates = append(q.Candidates, c)
		}
		if err := q.Validate(); err != nil {
			return err
		}
		keep, err := ApplyEmpty(&q, o.Empty, o.Counts)
		if err != nil || !keep {
			return err
		}
		qs = append(qs, q)
		return nil
	})
	return qs, err
}

// WriteJSONL writes questions in as2's JSONL format, one per line.
func WriteJSONL(w io.Writer, qs []Question) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, q := range qs {
		jq := jsonQuestion{ID: &q.ID, Question: q.Text}
		for _, c := range q.Candidates {
			jc := jsonCandidate{ID: &c.ID, Text: c.Text}
			if c.Label != Unlabeled {
				jc.Label = json.RawMessage(strconv.Itoa(c.Label))
			}
			jq.Candidates = append(jq.Candidates, jc)
		}
		if err := enc.Encode(jq); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// TSV reads the TSV variant, applying o: one candidate per line,
//
//	qid<TAB>question<TAB>candidate[<TAB>label]
//
// with an optional header line starting with "qid<TAB>". A question's rows
// need not be contiguous; candidates keep file order. Fields are split on
// tabs only (no quoting), so text may contain quotes.
func (o ReadOptions) TSV(r io.Reader, name string) ([]Question, error) {
	var qs []Question
	index := map[string]int{}
	err := ScanLines(r, name, func(line int, text string) error {
		if strings.TrimSpace(text) == "" || (line == 1 && strings.HasPrefix(text, "qid\t")) {
			return nil
		}
		f := strings.Split(text, "\t")
		if len(f) != 3 && len(f) != 4 {
			return fmt.Errorf("%d tab-separated fields, want 3 or 4 (qid, question, candidate[, label])", len(f))
		}
		if f[0] == "" {
			return errors.New("empty qid")
		}
		if strings.TrimSpace(f[1]) == "" {
			return errors.New("empty question")
		}
		label := Unlabeled
		if len(f) == 4 {
			var err error
			if label, err = parseLabel(json.RawMessage(f[3])); err != nil || label == Unlabeled {
				return fmt.Errorf("label %q is not 0 or 1", f[3])
			}
		}
		i, ok := index[f[0]]
		if !ok {
			i = len(qs)
			index[f[0]] = i
			qs = append(qs, Question{ID: f[0], Text: f[1]})
		} else if qs[i].Text != f[1] {
			return fmt.Errorf("qid %q has two different question texts", f[0])
		}
		n := len(qs[i].Candidates)
		if o.Empty == EmptyError && strings.TrimSpace(f[2]) == "" {
			return fmt.Errorf("question %q: candidate %d: empty text", f[0], n)
		}
		qs[i].Candidates = append(qs[i].Candidates, Candidate{ID: strconv.Itoa(n), Text: f[2], Position: n, Label: label})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range qs {
		if err := qs[i].Validate(); err != nil {
			return nil, &ParseError{File: name, Err: err}
		}
	}
	if qs, err = ApplyEmptyAll(qs, o.Empty, o.Counts); err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	return qs, nil
}
