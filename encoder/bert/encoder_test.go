package bert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

// TinyVocab is a 100-token WordPiece vocabulary for the tiny checkpoints
// (vocab_size 100).
func tinyVocab() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	for _, w := range strings.Fields("the a of and to in is was who what when where how why which glacier cave caves formed ice melt water berlin wall built hamlet wrote shakespeare tragedy play year city river mountain . , ? ! ' s") {
		v = append(v, w)
	}
	for _, p := range strings.Fields("##s ##ed ##ing ##er ##ly ##est ##a ##e ##i ##o ##u ##n ##t ##r ##l") {
		v = append(v, p)
	}
	for _, c := range "abcdefghijklmnopqrstuvwxyz" {
		v = append(v, string(c))
	}
	for len(v) < 100 {
		v = append(v, "[unused"+string(rune('a'+len(v)%26))+string(rune('a'+len(v)/26))+"]")
	}
	return v
}

// tinyDir copies a tiny checkpoint into a temporary folder with a
// vocab.txt.
func tinyDir(t testing.TB, name string) string {
	t.Helper()
	dir := copyDir(t, name)
	if err := os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte(strings.Join(tinyVocab(), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The encoder tokenises with the checkpoint's vocabulary, encodes like
// Forward, batches pairs like single sequences, keeps the classifier head
// aside, and survives a model file's spec and tensors.
func TestEncoder(t *testing.T) {
	dir := tinyDir(t, "tiny-bert-cls")
	enc, err := LoadEncoder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if enc.Head() == nil || enc.Head().ClassifierW == nil || enc.Head().PoolerW == nil {
		t.Fatal("the classifier checkpoint's head is missing")
	}
	for _, p := range enc.Params().All() {
		if strings.HasPrefix(p.Name, "pooler") || strings.HasPrefix(p.Name, "classifier") {
			t.Errorf("head parameter %s among the encoder's", p.Name)
		}
	}
	q, a := enc.Tokenize("How were glacier caves formed?"), enc.Tokenize("Water melts the ice.")
	if strings.Join(q.Text, " ") != "how were glacier caves formed ?" && !strings.Contains(strings.Join(q.Text, " "), "glacier caves formed ?") {
		t.Errorf("tokens %q", q.Text)
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	full := enc.Model().Forward(tp, append(append([]int{enc.Tokenizer().CLSID()}, q.IDs...), enc.Tokenizer().SEPID()), nil)
	h := enc.Dim()
	nntest.Close(t, "Encode", enc.Encode(tp, q).Value.Data, full.Value.Data[h:(q.Len()+1)*h], 1e-5)

	seqs := []encoder.Sequence{enc.Pair(q, a), enc.Pair(a, q), enc.Pair(q, encoder.Tokens{})}
	x, tl := enc.EncodeBatch(tp, seqs)
	for b, s := range seqs {
		one := enc.Model().Forward(tp, s.IDs, s.Types)
		nntest.Close(t, "EncodeBatch", x.Value.Data[b*tl*h:(b*tl+s.Len())*h], one.Value.Data, 1e-5)
	}
	if s := seqs[0]; s.Types[0] != 0 || s.Types[s.Len()-1] != 1 || s.IDs[0] != enc.Tokenizer().CLSID() {
		t.Errorf("pair %v types %v", s.IDs, s.Types)
	}

	back, err := encoder.Decode(enc.Spec(), enc.Tensors())
	if err != nil {
		t.Fatal(err)
	}
	nntest.Close(t, "decoded", back.Encode(tp, back.Tokenize("Water melts the ice.")).Value.Data, enc.Encode(tp, a).Value.Data, 1e-6)
	if back.Spec().Identity != enc.Spec().Identity {
		t.Error("identity changed")
	}
}

// Corrupt model files give errors, never panics.
func TestEncoderDecodeErrors(t *testing.T) {
	enc, err := LoadEncoder(tinyDir(t, "tiny-bert"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(*encoder.Spec) int // returns the tensor index to drop, or -1
		want string
	}{
		{"missing", func(*encoder.Spec) int { return 3 }, "encoder values"},
		{"vocabulary", func(s *encoder.Spec) int { s.Vocabulary = append(s.Vocabulary[:6:6], s.Vocabulary[7:]...); return -1 }, "corrupt"},
		{"config", func(s *encoder.Spec) int {
			s.Config = []byte(strings.Replace(string(s.Config), `"hidden_size":32`, `"hidden_size":32000`, 1))
			return -1
		}, "encoder values"},
		{"bad json", func(s *encoder.Spec) int { s.Config = []byte(`{`); return -1 }, "configuration"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := enc.Spec()
			ts := enc.Tensors()
			if i := c.edit(&spec); i >= 0 {
				ts = append(ts[:i:i], ts[i+1:]...)
			}
			if _, err := encoder.Decode(spec, ts); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

// New builds a random headless encoder of the requested sizes, with or
// without token types (DistilBERT's none) and with an embedding projection
// (ELECTRA's narrower embeddings); bad sizes are errors.
func TestNew(t *testing.T) {
	base := Config{VocabSize: 50, HiddenSize: 16, NumHiddenLayers: 2, NumAttentionHeads: 4, IntermediateSize: 32, MaxPositionEmbeddings: 40, TypeVocabSize: 2, HiddenAct: nn.ActGELU}
	for _, tc := range []struct {
		name       string
		edit       func(*Config)
		types      bool
		projection bool
	}{
		{"bert", func(*Config) {}, true, false},
		{"no token types", func(c *Config) { c.TypeVocabSize = 0 }, false, false},
		{"embedding projection", func(c *Config) { c.EmbeddingSize = 8 }, true, true},
		{"embedding size equal to hidden size", func(c *Config) { c.EmbeddingSize = 16 }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			m, err := New(c, nn.NewRNG(1))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := m.Params().Count(), ParamCount(m.Config); got != want {
				t.Errorf("%d parameters, ParamCount says %d", got, want)
			}
			if got := m.Params().Get("embeddings.token_type_embeddings.weight") != nil; got != tc.types {
				t.Errorf("token type embeddings: %v, want %v", got, tc.types)
			}
			if got := m.Params().Get("embeddings.project.weight") != nil; got != tc.projection {
				t.Errorf("embedding projection: %v, want %v", got, tc.projection)
			}
			if got := len(m.Linears()); got != 4*c.NumHiddenLayers+btoi(tc.projection) {
				t.Errorf("%d linear layers for int8", got)
			}
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			if x := m.Forward(tp, []int{2, 7, 9, 3}, nil); x.Value.Shape[0] != 4 || x.Value.Shape[1] != c.HiddenSize {
				t.Errorf("states of shape %v, want [4 %d]", x.Value.Shape, c.HiddenSize)
			}
			if err := m.Check([]int{2, 3}, []int{0, 1}); (err == nil) != tc.types {
				t.Errorf("Check of token types 0, 1: %v", err)
			}
		})
	}
	if _, err := New(Config{VocabSize: 50, HiddenSize: 15, NumHiddenLayers: 1, NumAttentionHeads: 4, IntermediateSize: 8, MaxPositionEmbeddings: 8}, nn.NewRNG(1)); err == nil {
		t.Error("15 wide with 4 heads accepted")
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
