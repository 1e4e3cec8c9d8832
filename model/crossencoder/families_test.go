package crossencoder

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
)

var updateFamilies = flag.Bool("update-families", false, "rewrite the table of Hugging Face families in docs/training.md")

// familiesTable is the docs' table of what LoadHF reads, from the
// registered families, so that the table and the code cannot disagree.
func familiesTable() string {
	var b strings.Builder
	b.WriteString("| family | model_type | architectures | tokenizer | checkpoints of this shape |\n|---|---|---|---|---|\n")
	for _, f := range encoder.HFFamilies() {
		b.WriteString("| " + f.Name + " | `" + strings.Join(f.ModelTypes, "`, `") + "` | " + strings.Join(f.Architectures, ", ") +
			" | " + f.Tokenizer + " | " + strings.Join(f.Checkpoints, ", ") + " |\n")
	}
	return b.String()
}

// TestFamiliesTable checks docs/training.md's table of Hugging Face
// families against the registry (-update-families rewrites it).
func TestFamiliesTable(t *testing.T) {
	const begin, end = "<!-- hf-families:begin -->\n", "<!-- hf-families:end -->"
	path := filepath.Join("..", "..", "docs", "training.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", path, strings.TrimSpace(begin), end)
	}
	want := familiesTable()
	if got := doc[i+len(begin) : j]; got != want {
		if !*updateFamilies {
			t.Fatalf("%s's table of Hugging Face families differs from the registry; run go test ./model/crossencoder -run TestFamiliesTable -update-families\ngot:\n%s\nwant:\n%s", path, got, want)
		}
		if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range encoder.HFFamilies() {
		if f.Tokenizer == "" || len(f.Checkpoints) == 0 || len(f.Architectures) == 0 || len(f.ModelTypes) == 0 {
			t.Errorf("family %s: the docs' table needs its model types, architectures, tokenizer and checkpoints", f.Name)
		}
	}
}
