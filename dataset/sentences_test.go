package dataset

import (
	"bytes"
	"slices"
	"testing"
)

func TestCandidateSentences(t *testing.T) {
	q := func(texts ...string) Question {
		var q Question
		for _, s := range texts {
			q.Candidates = append(q.Candidates, Candidate{Text: s})
		}
		return q
	}
	for _, tc := range []struct {
		name   string
		splits [][]Question
		want   []string
	}{
		{"none", nil, nil},
		{"trimmed and empty skipped", [][]Question{{q(" a ", "", "  ", "b")}}, []string{"a", "b"}},
		{"first met across splits", [][]Question{{q("b", "a")}, {q("a", "c"), q("b")}}, []string{"b", "a", "c"}},
	} {
		if got := CandidateSentences(tc.splits...); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestWriteSentences(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSentences(&b, []string{"one", "two\twords\nand a break"}); err != nil {
		t.Fatal(err)
	}
	if want := "s1\tone\ns2\ttwo words and a break\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}
