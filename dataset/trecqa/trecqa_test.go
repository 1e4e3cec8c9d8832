package trecqa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/internal/shareddata"
)

func writeFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func folder(a, b, sim, id string) map[string]string {
	return map[string]string{"a.toks": a, "b.toks": b, "sim.txt": sim, "id.txt": id}
}

func TestReadFolder(t *testing.T) {
	dir := writeFolder(t, folder("who ?\nwho ?\nwhere ?\n", "yes .\nno .\nhere .\n", "1\n0\n1\n", "1.1\n1.1\n2.4\n"))
	qs, err := ReadFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].ID != "1.1" || len(qs[0].Candidates) != 2 || qs[0].Candidates[1].Label != dataset.Negative || qs[1].Candidates[0].Text != "here ." {
		t.Fatalf("got %+v", qs)
	}
}

func TestReadFolderErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"misaligned", folder("q\nq\n", "a\n", "1\n0\n", "1\n1\n"), "b.toks: 1 lines, but a.toks has 2"},
		{"label", folder("q\n", "a\n", "yes\n", "1\n"), `sim.txt:1: label "yes" is not 0 or 1`},
		{"empty id", folder("q\n", "a\n", "1\n", "\n"), "id.txt:1: empty question id"},
		{"empty question", folder(" \n", "a\n", "1\n", "1\n"), "a.toks:1: empty question"},
		{"empty candidate", folder("q\nq\n", "a\n\n", "1\n0\n", "1\n1\n"), "b.toks:2: empty candidate"},
		{"question changes", folder("q\nr\n", "a\nb\n", "1\n0\n", "1\n1\n"), "a.toks:2: question 1 changes text"},
		{"not contiguous", folder("q\nr\nq\n", "a\nb\nc\n", "1\n0\n1\n", "1\n2\n1\n"), "id.txt:3: question 1 appears again"},
		{"missing file", map[string]string{"a.toks": "q\n"}, "b.toks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFolder(writeFolder(t, tc.files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestNormalizeNumbers(t *testing.T) {
	got := NormalizeNumbers("in 1990 , 3.5 % of 1,000 b52 1990s <num>")
	if want := "in <num> , <num> % of <num> b52 1990s <num>"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestRealSplits checks counts against ../shared/data/trecqa/PROVENANCE.md and
// that the default shuffle breaks the positives-first order.
func TestRealSplits(t *testing.T) {
	dir := filepath.Join(shareddata.Dir(t), "trecqa")
	for _, tc := range []struct {
		split                 string
		questions, pairs, pos int
	}{
		{"train", 93, 4718, 348},
		{"dev", 65, 1117, 205},
		{"test", 68, 1442, 248},
		{"raw-test", 95, 1517, 284},
		{"train-all", 1229, 53417, 6410},
	} {
		qs, err := Load(dir, tc.split, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pairs, pos, firstIsPositive := 0, 0, 0
		for _, q := range qs {
			pairs += len(q.Candidates)
			pos += q.Positives()
			if q.Candidates[0].Label == dataset.Positive {
				firstIsPositive++
			}
		}
		if len(qs) != tc.questions || pairs != tc.pairs || pos != tc.pos {
			t.Errorf("%s: %d questions, %d pairs, %d positives; want %+v", tc.split, len(qs), pairs, pos, tc)
		}
		if firstIsPositive == len(qs) {
			t.Errorf("%s: every question's first candidate is positive after the shuffle", tc.split)
		}
		stored, err := Load(dir, tc.split, Options{KeepStoredOrder: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range stored {
			if q.Positives() > 0 && q.Candidates[0].Label != dataset.Positive {
				t.Errorf("%s: stored order of %s does not start with a positive: the data changed?", tc.split, q.ID)
				break
			}
		}
	}
}

// FuzzParseColumns feeds the folder parser four arbitrary files' lines.
func FuzzParseColumns(f *testing.F) {
	f.Add("who ?\nwho ?", "yes .\nno .", "1\n0", "1.1\n1.1")
	f.Add("q\nr", "a\nb", "1\n0", "1\n1")
	f.Add("q", "a", "2", "")
	f.Fuzz(func(t *testing.T, a, b, sim, id string) {
		lines := func(s string) []string { return strings.Split(s, "\n") }
		qs, err := parseColumns("fuzz", lines(a), lines(b), lines(sim), lines(id))
		if err != nil {
			return
		}
		if err := dataset.ValidateAll(qs); err != nil {
			t.Fatalf("parser returned an invalid question: %v", err)
		}
	})
}
