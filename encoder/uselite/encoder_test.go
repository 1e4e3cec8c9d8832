package uselite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text/sentencepiece"
)

// tinyTokenizer is a USE-Lite-style vocabulary of a few pieces.
func tinyTokenizer(t testing.TB) *sentencepiece.Tokenizer {
	t.Helper()
	var pieces []sentencepiece.Piece
	for i, p := range []string{"\ufffd", "<s>", "</s>", "x1", "x2", "x3", "▁the", "▁cat", "▁sat", "▁on", "▁mat", "▁", "a", "b", "c", "s"} {
		pieces = append(pieces, sentencepiece.Piece{Text: p, Score: -float64(i)})
	}
	tok, err := sentencepiece.New(pieces, sentencepiece.Options{Algorithm: sentencepiece.USELiteJS})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func tinyEncoder(t testing.TB, cfg Config) *Encoder {
	t.Helper()
	m, err := New(cfg, nn.NewRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoder(m, tinyTokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// A padded batch gives each sequence the states it has alone, also when
// q_scale is not depth^-½ (the rescaled path).
func TestStatesBatch(t *testing.T) {
	for name, scale := range map[string][2]float64{"standard": {0.5, 0.5}, "rescaled": {0.5, 0.3}} {
		t.Run(name, func(t *testing.T) {
			cfg := tinyConfig()
			cfg.QScale = scale
			enc := tinyEncoder(t, cfg)
			seqs := [][]int{{6, 7, 8}, {9}, {6, 7, 8, 9, 10, 12, 13, 14}, {}}
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			x, tl := enc.m.StatesBatch(tp, seqs)
			for b, s := range seqs {
				one := nn.NewTape[float32](nil, 0)
				one.SetTrain(false)
				ids := s
				if len(ids) == 0 {
					ids = []int{0}
				}
				want := enc.m.TokenStates(one, ids)
				n := want.Value.Shape[0]
				h := enc.Dim()
				nntest.Close(t, "sequence", x.Value.Data[b*tl*h:(b*tl+n)*h], want.Value.Data, 1e-5)
			}
		})
	}
}

// Inference runs the layers on a scratch tape (layersInfer): its states
// are exactly those of the recording pass a tape with gradients takes,
// and EncodeTokensBatch's are StatesBatch's of the sentences' ids, with a
// scratch tape reused from batch to batch.
func TestStatesBatchInference(t *testing.T) {
	enc := tinyEncoder(t, tinyConfig())
	for _, c := range []struct {
		name  string
		sents []string
	}{
		{"one", []string{"a b c"}},
		{"mixed lengths", []string{"a", "a b c d e f g h", "", "b c"}},
		{"again, smaller", []string{"c", "d e"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			toks := make([]encoder.Tokens, len(c.sents))
			ids := make([][]int, len(c.sents))
			for i, s := range c.sents {
				toks[i] = enc.Tokenize(s)
				ids[i] = toks[i].IDs
			}
			infer := nn.NewTape[float32](nil, 0)
			infer.SetTrain(false)
			got, tl := enc.EncodeTokensBatch(infer, toks)
			rec := nn.NewTape(enc.m.ps.NewGrads(), 0)
			rec.SetTrain(false)
			want, wl := enc.m.StatesBatch(rec, ids)
			if tl != wl || !slices.Equal(got.Value.Shape, want.Value.Shape) {
				t.Fatalf("states %v of %d positions, want %v of %d", got.Value.Shape, tl, want.Value.Shape, wl)
			}
			if !slices.Equal(got.Value.Data, want.Value.Data) {
				t.Errorf("inference states differ from the recording pass's:\n%v\n%v", got.Value.Data, want.Value.Data)
			}
		})
	}
}

// The spec and tensors rebuild an encoder that tokenises and encodes the
// same, and the vocabulary travels in the spec.
func TestEncoderRoundTrip(t *testing.T) {
	enc := tinyEncoder(t, tinyConfig())
	spec := enc.Spec()
	if spec.Kind != Kind || spec.Dim != 12 || len(spec.Vocabulary) != 16 || !strings.HasPrefix(spec.Identity, "sha256:") {
		t.Fatalf("spec %+v", spec)
	}
	back, err := encoder.Decode(spec, enc.Tensors())
	if err != nil {
		t.Fatal(err)
	}
	s := "the cat sat on the mat"
	a, b := enc.Tokenize(s), back.Tokenize(s)
	if strings.Join(a.Text, " ") != strings.Join(b.Text, " ") || a.Len() != 6 {
		t.Fatalf("tokens %v, decoded %v", a.Text, b.Text)
	}
	tp := nn.NewTape[float32](nil, 0)
	nntest.Close(t, "states", back.Encode(tp, b).Value.Data, enc.Encode(tp, a).Value.Data, 0)
	if back.Spec().Identity != spec.Identity || back.Spec().Tokenizer != spec.Tokenizer {
		t.Error("the decoded encoder has another identity")
	}
	pair := enc.Pair(a, enc.Tokenize("a cat"))
	if pair.Len() > enc.MaxLen() || pair.IDs[len(pair.IDs)-3] != SepID && !containsSep(pair.IDs) {
		t.Errorf("pair %v", pair.IDs)
	}
	// The types mark the second sentence's positions, after the separator.
	want := make([]int, pair.Len())
	for i := slices.Index(pair.IDs, SepID) + 1; i < len(want); i++ {
		want[i] = 1
	}
	if !slices.Equal(pair.Types, want) {
		t.Errorf("pair %v: types %v, want %v", pair.IDs, pair.Types, want)
	}
}

func containsSep(ids []int) bool {
	for _, id := range ids {
		if id == SepID {
			return true
		}
	}
	return false
}

// Adopted weights leave the encoder's Tensors; the model's parameters
// carry them under the same names.
func TestEncoderAdopt(t *testing.T) {
	enc := tinyEncoder(t, tinyConfig())
	names := map[string]bool{}
	for _, tn := range enc.Tensors() {
		names[tn.Name] = true
	}
	ps := nn.NewParams[float32]()
	if err := ps.Adopt(encoder.TensorPrefix, enc.Params()); err != nil {
		t.Fatal(err)
	}
	if len(enc.Tensors()) != 0 {
		t.Error("adopted weights are still the encoder's tensors")
	}
	var tensors []safetensors.Tensor
	for _, p := range ps.All() {
		if !names[p.Name] {
			t.Errorf("adopted parameter %s is not a tensor name of the frozen encoder", p.Name)
		}
		tensors = append(tensors, safetensors.Tensor{Name: p.Name, Shape: p.Shape(), Data: p.Value.Data})
	}
	if _, err := encoder.Decode(enc.Spec(), tensors); err != nil {
		t.Fatal(err)
	}
}

// Corrupt files give errors, never panics.
func TestEncoderDecodeErrors(t *testing.T) {
	enc := tinyEncoder(t, tinyConfig())
	good := enc.Tensors()
	for _, c := range []struct {
		name string
		edit func(*encoder.Spec, []safetensors.Tensor) []safetensors.Tensor
		want string
	}{
		{"missing tensor", func(_ *encoder.Spec, ts []safetensors.Tensor) []safetensors.Tensor { return ts[1:] }, "missing"},
		{"shape", func(_ *encoder.Spec, ts []safetensors.Tensor) []safetensors.Tensor {
			ts[2].Shape = []int{1, 2}
			return ts
		}, "shape"},
		{"vocabulary", func(s *encoder.Spec, ts []safetensors.Tensor) []safetensors.Tensor {
			s.Vocabulary = append([]string(nil), s.Vocabulary...)
			s.Vocabulary[7] = "▁dog"
			return ts
		}, "corrupt"},
		{"config", func(s *encoder.Spec, ts []safetensors.Tensor) []safetensors.Tensor {
			s.Config = []byte(`{"model":{"Vocab":-1}`)
			return ts
		}, "configuration"},
		{"huge config", func(s *encoder.Spec, ts []safetensors.Tensor) []safetensors.Tensor {
			s.Config = []byte(strings.Replace(string(s.Config), `"Vocab":20`, `"Vocab":2000000000`, 1))
			return ts
		}, "shape"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := enc.Spec()
			ts := append([]safetensors.Tensor(nil), good...)
			for i := range ts {
				ts[i].Shape = append([]int(nil), ts[i].Shape...)
			}
			ts = c.edit(&spec, ts)
			_, err := encoder.Decode(spec, ts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

// The real package's encoder tokenises like the runtime's tokenizer and
// embeds like Model.Embed.
func TestRealEncoder(t *testing.T) {
	dir := useLiteDir(t)
	enc, err := LoadEncoder(filepath.Join(dir, modelTgz))
	if err != nil {
		t.Fatal(err)
	}
	s := "how are glacier caves formed?"
	toks := enc.Tokenize(s)
	if fmt.Sprint(toks.IDs) != fmt.Sprint(enc.Tokenizer().Encode(s)) || toks.Len() == 0 {
		t.Errorf("ids %v", toks.IDs)
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	nntest.Close(t, "embedding", enc.Embed([]string{s})[0], enc.Model().Embed(tp, toks.IDs).Value.Data, 0)
	if spec := enc.Spec(); spec.Dim != 512 || len(spec.Vocabulary) != 8000 {
		t.Errorf("spec dim %d, %d pieces", spec.Dim, len(spec.Vocabulary))
	}
}
