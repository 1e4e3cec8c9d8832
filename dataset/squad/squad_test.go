package squad

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/internal/shareddata"
)

// The answer "Zürich" sits after a multi-byte character, so character and
// byte offsets differ: the reader must convert them.
const small = `{"version": "1.1", "data": [{"title": "T", "paragraphs": [{
  "context": "Café culture is old. The first one opened in Zürich in 1680. It still exists.",
  "qas": [
    {"id": "a", "question": "Where did the first one open?", "answers": [{"text": "Zürich", "answer_start": 45}, {"text": "in Zürich", "answer_start": 42}]},
    {"id": "b", "question": "Is it still there?", "answers": [{"text": "still exists", "answer_start": 64}]}
  ]}]}]}`

func TestRead(t *testing.T) {
	qs, err := Read(strings.NewReader(small), "small.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || len(qs[0].Candidates) != 3 {
		t.Fatalf("got %+v", qs)
	}
	labels := func(q dataset.Question) (l []int) {
		for _, c := range q.Candidates {
			l = append(l, c.Label)
		}
		return l
	}
	if got := labels(qs[0]); got[0] != 0 || got[1] != 1 || got[2] != 0 {
		t.Errorf("question a labels %v, want [0 1 0]", got)
	}
	if got := labels(qs[1]); got[0] != 0 || got[1] != 0 || got[2] != 1 {
		t.Errorf("question b labels %v, want [0 0 1]", got)
	}
	if qs[0].Candidates[1].Text != "The first one opened in Zürich in 1680." || qs[0].Candidates[2].ID != "p0-2" {
		t.Errorf("candidate %+v", qs[0].Candidates[1])
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not json", "{", "f.json: not SQuAD JSON"},
		{"outside", strings.Replace(small, `"answer_start": 64`, `"answer_start": 640`, 1), `question "b": answer "still exists" at character 640 lies outside`},
		{"empty question", strings.Replace(small, "Is it still there?", " ", 1), `question "b": empty question`},
		{"no questions", `{"data": []}`, "f.json: no questions"},
		{"not squad", `{"question": "q"}`, `f.json: not SQuAD JSON: no "data" array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "f.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReadZipAndTruncation(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.zip")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("s.json")
	w.Write([]byte(small))
	zw.Close()
	f.Close()
	if qs, err := ReadFile(p); err != nil || len(qs) != 2 {
		t.Fatalf("zip: %d questions, %v", len(qs), err)
	}
	raw, _ := os.ReadFile(p)
	cut := filepath.Join(dir, "cut.zip")
	os.WriteFile(cut, raw[:len(raw)/2], 0o644)
	if _, err := ReadFile(cut); err == nil || !strings.Contains(err.Error(), "cut.zip") {
		t.Fatalf("truncated zip: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(small)
	f.Add(`{"data": [{"paragraphs": [{"context": "a. b.", "qas": [{"id": "x", "question": "q", "answers": [{"text": "b", "answer_start": 3}]}]}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		qs, err := Read(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if err := dataset.ValidateAll(qs); err != nil {
			t.Fatalf("reader returned an invalid question: %v", err)
		}
	})
}

// FuzzReadParagraphs: ReadParagraphs, the reader of as2 data reqa, never
// panics, and every answer start it returns lies in its paragraph.
func FuzzReadParagraphs(f *testing.F) {
	f.Add(small)
	f.Add(`{"data": [{"paragraphs": [{"context": "a. b.", "qas": [{"id": "x", "question": "q", "answers": [{"text": "b", "answer_start": 3}]}]}]}]}`)
	f.Add(`{"data": [{"paragraphs": [{"context": "é. b.", "qas": [{"id": "x", "question": "q", "answers": [{"text": "b", "answer_start": 3}]}]}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ReadParagraphs(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, p := range ps {
			for _, q := range p.Questions {
				for _, at := range q.AnswerStarts {
					if at < 0 || at >= len(p.Context) {
						t.Fatalf("question %q: answer start %d outside a paragraph of %d bytes", q.ID, at, len(p.Context))
					}
				}
			}
		}
	})
}

// TestDevV11 reads the official SQuAD v1.1 dev zip: 10,570 questions, each
// with at least one positive sentence (v1.1 has no unanswerable questions).
func TestDevV11(t *testing.T) {
	qs, err := Load(filepath.Join(shareddata.Dir(t), "squad"), "dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 10570 {
		t.Fatalf("%d questions, want 10570", len(qs))
	}
	if n := len(dataset.Filter(qs, dataset.Answered)); n != len(qs) {
		t.Fatalf("%d of %d questions have a positive sentence", n, len(qs))
	}
}

// TestHalves checks the article-disjoint halves of SQuAD v1.1 dev: every
// article in exactly one half, and the halves together the whole dev set.
func TestHalves(t *testing.T) {
	half := halves()
	if len(half) != 48 {
		t.Fatalf("halves.tsv lists %d articles, want SQuAD v1.1 dev's 48", len(half))
	}
	dir := filepath.Join(shareddata.Dir(t), "squad")
	dev, err := Load(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	n := 0
	for _, split := range []string{"train", "test"} {
		qs, err := Load(dir, split)
		if err != nil {
			t.Fatal(err)
		}
		// The checked-in sizes (scripts/squad-halves.py balanced them).
		if want := map[string]int{"train": 5281, "test": 5289}[split]; len(qs) != want {
			t.Errorf("%s: %d questions, want %d", split, len(qs), want)
		}
		for _, q := range qs {
			if other, dup := seen[q.ID]; dup {
				t.Fatalf("question %s in %s and %s", q.ID, other, split)
			}
			seen[q.ID] = split
		}
		n += len(qs)
	}
	if n != len(dev) {
		t.Fatalf("the halves hold %d questions, dev %d", n, len(dev))
	}
	if _, err := Load(dir, "validation"); err == nil {
		t.Fatal("unknown split accepted")
	}
}

// TestLoadFolderForms: a folder may hold the zip of ../shared/data or the
// official plain JSON that `as2 data get squad` downloads (or a gzip of
// it); each is found under its name.
func TestLoadFolderForms(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(small))
	zw.Close()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"dev-v1.1.json", []byte(small)},
		{"dev-v1.1.json.gz", gz.Bytes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tc.name), tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			qs, err := Load(dir, "dev")
			if err != nil || len(qs) != 2 {
				t.Fatalf("%d questions, %v", len(qs), err)
			}
		})
	}
	_, err := Load(t.TempDir(), "dev")
	if err == nil || !strings.Contains(err.Error(), "dev-v1.1.json.zip") {
		t.Fatalf("empty folder: %v, want an error naming dev-v1.1.json.zip", err)
	}
}
