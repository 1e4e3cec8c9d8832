package catalog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/as2/as2/dataset"
)

func TestSourceLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.jsonl")
	lines := `{"id": "a", "question": "who wrote hamlet?", "candidates": [{"text": "Shakespeare wrote it.", "label": 1}, {"text": " ", "label": 0}, {"text": "It is long.", "label": 0}]}
{"id": "b", "question": "where is elsinore?", "candidates": [{"text": "No idea.", "label": 0}]}
{"id": "c", "question": "what is it?", "candidates": [{"text": "A play.", "label": 1}]}
`
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		src          Source
		sub          dataset.Subset
		all, kept    int
		candidates   int // of the first question
		emptyCounted int
		field        string // a *FieldError's Field
		missing      bool   // errors.Is(err, fs.ErrNotExist)
	}{
		{"all, empty kept", Source{Name: "jsonl", Path: file, Subset: "all"}, "", 3, 3, 3, 1, "", false},
		{"answered", Source{Name: "jsonl", Path: file, Subset: "answered", Empty: "keep"}, "", 3, 2, 3, 1, "", false},
		{"filtered, by argument", Source{Name: "jsonl", Path: file, Subset: "all"}, dataset.Filtered, 3, 1, 3, 1, "", false},
		{"empty skipped", Source{Name: "jsonl", Path: file, Subset: "all", Empty: "skip"}, "", 3, 3, 2, 1, "", false},
		{"no dataset", Source{Path: file, Subset: "all"}, "", 0, 0, 0, 0, "dataset", false},
		{"bad subset", Source{Name: "jsonl", Path: file, Subset: "most"}, "", 0, 0, 0, 0, "subset", false},
		{"bad policy", Source{Name: "jsonl", Path: file, Subset: "all", Empty: "drop"}, "", 0, 0, 0, 0, "empty", false},
		{"missing file", Source{Name: "jsonl", Path: file + ".none", Subset: "all"}, "", 0, 0, 0, 0, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := tc.src.Load("", tc.sub)
			var fe *FieldError
			switch {
			case tc.field != "":
				if !errors.As(err, &fe) || fe.Field != tc.field {
					t.Fatalf("Load = %v, want a FieldError for %s", err, tc.field)
				}
				return
			case tc.missing:
				if !errors.Is(err, fs.ErrNotExist) || errors.As(err, &fe) {
					t.Fatalf("Load = %v, want a missing file", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if len(l.All) != tc.all || len(l.Kept) != tc.kept || len(l.All[0].Candidates) != tc.candidates || l.Counts.Candidates != tc.emptyCounted {
				t.Errorf("all %d, kept %d, first has %d candidates, %d empty; want %d, %d, %d, %d",
					len(l.All), len(l.Kept), len(l.All[0].Candidates), l.Counts.Candidates, tc.all, tc.kept, tc.candidates, tc.emptyCounted)
			}
		})
	}
}

func TestSourceNames(t *testing.T) {
	for _, tc := range []struct {
		src             Source
		split           string
		wantSplit, desc string
	}{
		{Source{Name: "wikiqa"}, "", "test", "wikiqa test"},
		{Source{Name: "squad"}, "", "dev", "squad dev"},
		{Source{Name: "trecqa", Split: "dev"}, "", "dev", "trecqa dev"},
		{Source{Name: "trecqa", Split: "dev"}, "train", "train", "trecqa train"},
		{Source{Name: "jsonl", Path: "q.jsonl"}, "", "test", "q.jsonl"},
	} {
		if got := tc.src.SplitName(tc.split); got != tc.wantSplit {
			t.Errorf("%+v.SplitName(%q) = %q, want %q", tc.src, tc.split, got, tc.wantSplit)
		}
		if got := tc.src.Describe(tc.split); got != tc.desc {
			t.Errorf("%+v.Describe(%q) = %q, want %q", tc.src, tc.split, got, tc.desc)
		}
	}
	fe := &FieldError{"dataset", ErrMissing}
	if fe.Error() != "dataset is required" || (&FieldError{"subset", errors.New("x")}).Error() != "subset: x" {
		t.Errorf("FieldError messages: %q", fe.Error())
	}
}
