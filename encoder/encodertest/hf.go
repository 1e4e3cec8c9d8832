package encodertest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/nn"
)

// HFTol is how far a Hugging Face family's states and logits may be from
// its PyTorch reference's: float32 sums in another order.
const HFTol = 1e-4

// HFText is one text of a reference's expected.json and its token ids.
type HFText struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

// HFPair is one pair of a reference's expected.json: its ids, token types
// (when the reference writes them), the first and last real positions'
// states and the classification head's logits.
type HFPair struct {
	A           string    `json:"a"`
	B           string    `json:"b"`
	IDs         []int     `json:"ids"`
	Types       []int     `json:"types"`
	Logits      []float64 `json:"logits"`
	StatesFirst []float64 `json:"states_first"`
	StatesLast  []float64 `json:"states_last"`
}

// HFFixture is one tiny checkpoint's expected values.
type HFFixture struct {
	Texts []HFText `json:"texts"`
	Pairs []HFPair `json:"pairs"`
}

// ReadHFExpected reads the expected.json of scripts/reference/*.py: a map
// from checkpoint folder to its fixture, at the top level or under
// "models".
func ReadHFExpected(t testing.TB, path string) map[string]HFFixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wrapped struct {
		Models map[string]HFFixture `json:"models"`
	}
	if err := json.Unmarshal(data, &wrapped); err == nil && wrapped.Models != nil {
		return wrapped.Models
	}
	var m map[string]HFFixture
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// Near fails t unless got has want's length and every value within HFTol.
func Near[F float32 | float64](t testing.TB, what string, got []F, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= HFTol) {
			t.Fatalf("%s[%d] = %v, want %v (diff %.2g > %g)", what, i, got[i], want[i], d, HFTol)
		}
	}
}

// HFHead is a classification head's formula as the family's public
// modeling code has it, written down by the family's test rather than
// read from the loaded head, so that a head built with the wrong
// activation or pooling fails: classifier(norm(act(dense(pooled)))).
type HFHead struct {
	// Act is the dense layer's activation (bert.HeadTanh, HeadReLU,
	// HeadGELU or HeadGELUTanh).
	Act string
	// Norm says a LayerNorm follows the activation (ModernBERT's).
	Norm bool
	// Mean pools the mean of the real rows, not the first row.
	Mean bool
}

// Logits applies hd's weights by the formula f, in float64.
func (f HFHead) Logits(t testing.TB, hd *bert.Head, rows [][]float32) []float64 {
	t.Helper()
	h := len(rows[0])
	pooled := make([]float64, h)
	for _, r := range rows[:1] {
		for i, v := range r {
			pooled[i] = float64(v)
		}
	}
	if f.Mean {
		clear(pooled)
		for _, r := range rows {
			for i, v := range r {
				pooled[i] += float64(v) / float64(len(rows))
			}
		}
	}
	dense := make([]float64, h)
	for o := range dense {
		s := 0.0
		if hd.PoolerB != nil {
			s = float64(hd.PoolerB.Data[o])
		}
		for i := 0; i < h; i++ {
			s += pooled[i] * float64(hd.PoolerW.Data[i*h+o])
		}
		switch f.Act {
		case bert.HeadTanh:
			s = math.Tanh(s)
		case bert.HeadReLU:
			s = math.Max(s, 0)
		case bert.HeadGELU:
			s = 0.5 * s * (1 + math.Erf(s/math.Sqrt2))
		case bert.HeadGELUTanh:
			s = 0.5 * s * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(s+0.044715*s*s*s)))
		default:
			t.Fatalf("head activation %q", f.Act)
		}
		dense[o] = s
	}
	if f.Norm {
		if hd.NormW == nil {
			t.Fatal("the head has no LayerNorm")
		}
		var mu, va float64
		for _, v := range dense {
			mu += v / float64(h)
		}
		for _, v := range dense {
			va += (v - mu) * (v - mu) / float64(h)
		}
		for o, v := range dense {
			dense[o] = (v - mu) / math.Sqrt(va+hd.NormEps) * float64(hd.NormW.Data[o])
			if hd.NormB != nil {
				dense[o] += float64(hd.NormB.Data[o])
			}
		}
	}
	n := hd.ClassifierB.Len()
	out := make([]float64, n)
	for o := range out {
		s := float64(hd.ClassifierB.Data[o])
		for i := 0; i < h; i++ {
			s += dense[i] * float64(hd.ClassifierW.Data[i*n+o])
		}
		out[o] = s
	}
	return out
}

// HFCase is one tiny checkpoint of a family's conformance test.
type HFCase struct {
	Enc     encoder.PairEncoder
	Fixture HFFixture
	// Head is the loaded classification head and Formula its family's.
	Head    *bert.Head
	Formula HFHead
	// Types says the pairs have token types, equal to the fixture's
	// where it has them; without, a pair's types must be nil.
	Types bool
}

// CheckHF checks that c's encoder tokenizes, encodes and classifies as the
// PyTorch reference does: the texts' ids, the pairs' ids and token types,
// and, in one padded batch (padding must not change the real rows), the
// first and last states and the logits, to HFTol.
func CheckHF(t *testing.T, c HFCase) {
	t.Helper()
	e, fx := c.Enc, c.Fixture
	if c.Head == nil || c.Head.ClassifierW == nil {
		t.Fatal("no classification head")
	}
	// The scorer applies the loaded head (model/crossencoder), so it must
	// be the family's formula, not only hold the right weights.
	act := c.Head.Act
	if act == "" {
		act = bert.HeadTanh
	}
	if act != c.Formula.Act || c.Head.Mean != c.Formula.Mean || (c.Head.NormW != nil) != c.Formula.Norm {
		t.Fatalf("head activation %q, mean %v, norm %v; the family's is %q, %v, %v",
			act, c.Head.Mean, c.Head.NormW != nil, c.Formula.Act, c.Formula.Mean, c.Formula.Norm)
	}
	if len(fx.Pairs) == 0 {
		t.Fatal("no fixtures")
	}
	for _, x := range fx.Texts {
		if got := e.Tokenize(x.Text).IDs; !slices.Equal(got, x.IDs) && len(got)+len(x.IDs) > 0 {
			t.Errorf("Tokenize(%q) = %v, want %v", x.Text, got, x.IDs)
		}
	}
	var seqs []encoder.Sequence
	for _, p := range fx.Pairs {
		seq := e.Pair(e.Tokenize(p.A), e.Tokenize(p.B))
		if !slices.Equal(seq.IDs, p.IDs) {
			t.Fatalf("Pair(%q, %q) ids %v, want %v", p.A, p.B, seq.IDs, p.IDs)
		}
		switch {
		case !c.Types && seq.Types != nil:
			t.Errorf("token types %v for a model without them", seq.Types)
		case c.Types && seq.Types == nil:
			t.Errorf("Pair(%q, %q): no token types", p.A, p.B)
		case c.Types && p.Types != nil && !slices.Equal(seq.Types, p.Types):
			t.Fatalf("Pair(%q, %q) token types %v, want %v", p.A, p.B, seq.Types, p.Types)
		}
		seqs = append(seqs, seq)
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	x, T := e.EncodeBatch(tp, seqs)
	h := e.Dim()
	for b, p := range fx.Pairs {
		data := x.Value.Data[b*T*h : (b*T+len(p.IDs))*h]
		rows := make([][]float32, len(p.IDs))
		for i := range rows {
			rows[i] = data[i*h : (i+1)*h]
		}
		Near(t, p.A+": states[0]", rows[0], p.StatesFirst)
		Near(t, p.A+": states[-1]", rows[len(rows)-1], p.StatesLast)
		Near(t, p.A+": logits", c.Formula.Logits(t, c.Head, rows), p.Logits)
	}
}

// SpecEdit is a change to a model file (its spec, or the tensor at the
// returned index dropped; -1 for none) that decoding must refuse with an
// error containing Want.
type SpecEdit struct {
	Name string
	Edit func(*encoder.Spec) int
	Want string
}

// CheckModelFile checks that e survives its spec and tensors, as a model
// file keeps them: the same kind, tokens, states and identity after
// encoder.Decode; and that a file that does not match is an error: a
// missing tensor (missingWant), a tokenizer of another identity
// (badTokenizer, a well-formed identity of e's tokenizer's kind), JSON
// that does not parse, and the family's own edits.
func CheckModelFile(t *testing.T, e encoder.Encoder[float32], kind, badTokenizer, missingWant string, edits ...SpecEdit) {
	t.Helper()
	if e.Spec().Kind != kind {
		t.Fatalf("kind %q, want %q", e.Spec().Kind, kind)
	}
	d, err := encoder.Decode(e.Spec(), e.Tensors())
	if err != nil {
		t.Fatal(err)
	}
	s := "Who wrote War and Peace?"
	if !slices.Equal(d.Tokenize(s).IDs, e.Tokenize(s).IDs) {
		t.Fatal("tokens differ after decoding")
	}
	// A fresh tape each: the kernels' rounding may depend on where the
	// arena places a buffer.
	encode := func(x encoder.Encoder[float32]) []float32 {
		tp := nn.NewTape[float32](nil, 0)
		tp.SetTrain(false)
		return x.Encode(tp, x.Tokenize(s)).Value.Data
	}
	a, b := encode(e), encode(d)
	if len(a) != e.Tokenize(s).Len()*e.Dim() || !slices.Equal(a, b) {
		t.Fatalf("states differ after decoding: %d and %d values for %d tokens", len(a), len(b), e.Tokenize(s).Len())
	}
	if d.Spec().Identity != e.Spec().Identity {
		t.Errorf("identity %s after decoding, was %s", d.Spec().Identity, e.Spec().Identity)
	}
	edits = append([]SpecEdit{
		{"missing tensor", func(*encoder.Spec) int { return 1 }, missingWant},
		{"tokenizer", func(s *encoder.Spec) int { s.Tokenizer = badTokenizer; return -1 }, "corrupt"},
		{"bad json", func(s *encoder.Spec) int { s.Config = []byte(`{`); return -1 }, "configuration"},
	}, edits...)
	for _, tc := range edits {
		t.Run(tc.Name, func(t *testing.T) {
			spec, ts := e.Spec(), e.Tensors()
			if i := tc.Edit(&spec); i >= 0 {
				ts = append(ts[:i:i], ts[i+1:]...)
			}
			if _, err := encoder.Decode(spec, ts); err == nil || !strings.Contains(err.Error(), tc.Want) {
				t.Errorf("error %v, want one containing %q", err, tc.Want)
			}
		})
	}
}

// CopyCheckpoint copies the files of the checkpoint folder src into a
// temporary folder, config.json through edit (nil: as it is), and
// returns the folder: a checkpoint a test breaks on purpose.
func CopyCheckpoint(t testing.TB, src string, files []string, edit func(cfg string) string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "config.json" && edit != nil {
			data = []byte(edit(string(data)))
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Replace is a CopyCheckpoint edit that replaces old with new once,
// failing t when config.json has no old (the edit would test nothing).
func Replace(t testing.TB, old, new string) func(string) string {
	return func(cfg string) string {
		t.Helper()
		if !strings.Contains(cfg, old) {
			t.Fatalf("config.json has no %s", old)
		}
		return strings.Replace(cfg, old, new, 1)
	}
}
