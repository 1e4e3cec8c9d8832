package dataset

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadJSONL checks that no input panics the reader and that whatever it
// accepts survives a write/read round trip.
func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"id": "q1", "question": "who?", "candidates": [{"text": "a", "label": 1}, "b"]}`)
	f.Add(`{"question": "x", "candidates": [{"sentence": "s", "label": false}]}`)
	f.Add(`{"question": "x", "candidates": [{"text": "s", "label": 1.5}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := ReadJSONL(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, qs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSONL(&buf, "round-trip")
		if err != nil {
			t.Fatalf("re-reading what was written: %v", err)
		}
		if !reflect.DeepEqual(back, qs) {
			t.Fatalf("round trip changed the data:\n%+v\n%+v", qs, back)
		}
	})
}

// FuzzReadTSV checks that no input panics the TSV reader and that every
// question it returns is valid.
func FuzzReadTSV(f *testing.F) {
	f.Add("qid\tquestion\tcandidate\tlabel\nq1\twho?\ta\t1\n")
	f.Add("q1\twho?\ta\nq1\twho?\tb\n")
	f.Add("q1\twho?\ta\t2\n")
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := ReadTSV(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if err := ValidateAll(qs); err != nil {
			t.Fatalf("reader returned an invalid question: %v", err)
		}
	})
}
