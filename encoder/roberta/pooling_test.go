package roberta

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
)

// copyCheckpoint copies a tiny checkpoint into a temporary folder and adds
// the given files (relative path to content).
func copyCheckpoint(t *testing.T, name string, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for f, content := range extra {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A sentence-transformers folder pools as its 1_Pooling/config.json and
// modules.json say: here the mean of the states, unit-normalised.
func TestSentenceTransformersPooling(t *testing.T) {
	dir := copyCheckpoint(t, "tiny-xlm-roberta", map[string]string{
		"1_Pooling/config.json": `{"word_embedding_dimension": 32, "pooling_mode_mean_tokens": true}`,
		"modules.json":          `[{"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"}, {"idx": 1, "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}, {"idx": 2, "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]`,
	})
	e, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := e.Model()
	toks := e.Tokenize("Where is the Eiffel Tower?")
	ids, _ := e.Tokenizer().Single(toks.IDs)
	vecs, err := m.Pool([][]int{ids}, nil)
	if err != nil {
		t.Fatal(err)
	}
	states, err := m.States([][]int{ids}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := e.Dim()
	mean := make([]float64, h)
	var norm float64
	for i := 0; i < len(ids); i++ {
		for j, x := range states[0].Row(i) {
			mean[j] += float64(x) / float64(len(ids))
		}
	}
	for _, x := range mean {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for j := range mean {
		if d := math.Abs(float64(vecs[0][j]) - mean[j]/norm); d > 1e-5 {
			t.Fatalf("pooled[%d] = %v, want %v", j, vecs[0][j], mean[j]/norm)
		}
	}
	// Encode returns the token rows only, without <s> and </s>.
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	x := e.Encode(tp, toks)
	if x.Value.Shape[0] != toks.Len() || x.Value.Shape[1] != h {
		t.Fatalf("Encode shape %v for %d tokens", x.Value.Shape, toks.Len())
	}
	if got, want := x.Value.Row(0), states[0].Row(1); math.Abs(float64(got[0]-want[0])) > 1e-6 {
		t.Errorf("Encode's first row %v, the states' row 1 %v", got[0], want[0])
	}

	bad := copyCheckpoint(t, "tiny-xlm-roberta", map[string]string{"1_Pooling/config.json": `{"pooling_mode_weightedmean_tokens": true}`})
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "weighted-mean") {
		t.Errorf("weighted-mean pooling: %v", err)
	}
	noTok := copyCheckpoint(t, "tiny-roberta", nil)
	if err := os.Remove(filepath.Join(noTok, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(noTok); err == nil || !strings.Contains(err.Error(), "no tokenizer.json") {
		t.Errorf("no tokenizer.json: %v", err)
	}
}

// An empty sentence encodes to no rows, and ids outside the vocabulary
// read as the unknown token rather than panicking.
func TestEncodeEdges(t *testing.T) {
	e, err := Load(filepath.Join("testdata", "tiny-roberta"))
	if err != nil {
		t.Fatal(err)
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	if x := e.Encode(tp, e.Tokenize("")); x.Value.Shape[0] != 0 {
		t.Errorf("empty sentence: shape %v", x.Value.Shape)
	}
	seq := e.Pair(e.Tokenize(""), e.Tokenize(""))
	if want := e.Tokenizer().Added(true); seq.Len() != want {
		t.Errorf("empty pair has %d positions, want %d", seq.Len(), want)
	}
	bad := e.Pair(encoder.Tokens{Text: []string{"x"}, IDs: []int{-5}}, encoder.Tokens{Text: []string{"y"}, IDs: []int{1 << 30}})
	x, _ := e.EncodeBatch(tp, []encoder.Sequence{bad})
	if x.Value.Shape[0] != bad.Len() {
		t.Errorf("shape %v for %d positions", x.Value.Shape, bad.Len())
	}
	long := strings.Repeat("Tolstoy wrote War and Peace. ", 40)
	if n := e.Pair(e.Tokenize(long), e.Tokenize(long)).Len(); n != e.MaxLen() {
		t.Errorf("a long pair has %d positions, want MaxLen %d", n, e.MaxLen())
	}
}
