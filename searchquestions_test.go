package as2_test

import (
	"context"
	"strings"
	"testing"

	"github.com/as2/as2"
)

func TestSearchSettingsCheck(t *testing.T) {
	for _, tc := range []struct {
		s    as2.SearchSettings
		want string // "" for none
	}{
		{as2.SearchSettings{Top: 10, Format: "tsv"}, ""},
		{as2.SearchSettings{Top: 1, Format: "json", EfSearch: 5, Rescore: 40}, ""},
		{as2.SearchSettings{Top: 0, Format: "tsv"}, "top 0: want at least 1"},
		{as2.SearchSettings{Top: 3, Format: "xml"}, `format "xml": want tsv or json`},
		{as2.SearchSettings{Top: 3, Format: "tsv", EfSearch: -1}, "ef-search -1: want 0 (the index's own) or more"},
		{as2.SearchSettings{Top: 3, Format: "tsv", Rescore: -2}, "rescore -2: want 0 (the index's own) or more"},
	} {
		err := tc.s.Check()
		if got := fmtErr(err); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSearchQuestions: one question, or a file's lines with their line
// numbers, in tsv or json; a question without a hit is told to noHits
// in tsv only.
func TestSearchQuestions(t *testing.T) {
	ctx := context.Background()
	x, err := as2.BuildIndex(ctx, capitalIDs, capitalTexts, as2.WithRetriever("bm25"))
	if err != nil {
		t.Fatal(err)
	}
	file := "capital of France\n\nzzz\ncapital of Italy\n"
	for _, tc := range []struct {
		name, format, question, file string
		want                         []string // lines of the output, in order
		missed                       []string
	}{
		{"one tsv", "tsv", "capital of France", "", []string{"rank\tscore\tid\tanswer", "1\t", "\tfr\tParis is the capital of France."}, nil},
		{"file tsv", "tsv", "", file, []string{"question\trank\tscore\tid\tanswer", "1\t1\t", "\tfr\t", "4\t1\t", "\tit\t"}, []string{"zzz"}},
		{"file json", "json", "", file, []string{`"hits":[{"rank":1,`, `"id":"fr"`, `"line":1`, `"hits":[]`, `"line":3`, `"id":"it"`, `"line":4`}, nil},
	} {
		var out strings.Builder
		var missed []string
		var r *strings.Reader
		if tc.file != "" {
			r = strings.NewReader(tc.file)
		}
		s := as2.SearchSettings{Top: 1, Format: tc.format}
		if r != nil {
			err = x.SearchQuestions(ctx, &out, s, tc.question, r, "q.txt", func(q string) { missed = append(missed, q) })
		} else {
			err = x.SearchQuestions(ctx, &out, s, tc.question, nil, "", func(q string) { missed = append(missed, q) })
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		rest := out.String()
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: %q not found in order in\n%s", tc.name, w, out.String())
				break
			}
			rest = rest[i+len(w):]
		}
		if strings.Join(missed, ",") != strings.Join(tc.missed, ",") {
			t.Errorf("%s: noHits heard %q, want %q", tc.name, missed, tc.missed)
		}
	}
}
