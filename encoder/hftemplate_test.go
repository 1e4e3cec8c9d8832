package encoder_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/text/hftokenizer"
)

func tinyTokenizer(t *testing.T) *hftokenizer.Tokenizer {
	t.Helper()
	tok, err := hftokenizer.Load(filepath.Join("roberta", "testdata", "tiny-roberta", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The templates cut to the model's positions longest-first, read ids
// outside the vocabulary as the unknown token, and give token types only
// to a model that embeds more than one.
func TestHFTemplate(t *testing.T) {
	tok := tinyTokenizer(t)
	if _, err := encoder.NewHFTemplate("fam", tok, tok.VocabSize()-1, 0, 16); err == nil || !strings.Contains(err.Error(), "fam: tokenizer.json has") {
		t.Errorf("a vocabulary larger than the model's: %v", err)
	}
	v := tok.VocabSize()
	a, b := encoder.Tokens{IDs: []int{5, 6, 7, 8, 9, 10}}, encoder.Tokens{IDs: []int{11, -1, v}}
	for _, tc := range []struct {
		name       string
		typeVocab  int
		maxLen     int
		wantA      int // how many of a's ids the pair keeps
		wantB      int
		wantTypes  bool
		wantSingle int // the rows Single gives a
	}{
		{"room for all", 0, 64, 6, 3, false, 6},
		{"a cut first", 0, tok.Added(true) + 6, 3, 3, false, 6},
		{"both cut", 0, tok.Added(true) + 3, 2, 1, false, 6},
		{"no room", 0, 0, 0, 0, false, 0},
		{"one type", 1, 64, 6, 3, false, 6},
		{"two types", 2, 64, 6, 3, true, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := encoder.NewHFTemplate("fam", tok, v, tc.typeVocab, tc.maxLen)
			if err != nil {
				t.Fatal(err)
			}
			seq := tpl.Pair(a, b)
			want, wantTypes := tok.Pair(a.IDs[:tc.wantA], tpl.Clip(b.IDs[:tc.wantB]))
			if !slices.Equal(seq.IDs, want) {
				t.Errorf("Pair ids %v, want %v", seq.IDs, want)
			}
			if tc.wantTypes && !slices.Equal(seq.Types, wantTypes) || !tc.wantTypes && seq.Types != nil {
				t.Errorf("Pair types %v (want types: %v)", seq.Types, tc.wantTypes)
			}
			if len(seq.IDs) > max(tc.maxLen, tok.Added(true)) {
				t.Errorf("%d ids for %d positions", len(seq.IDs), tc.maxLen)
			}
			ids, lo, hi := tpl.Single(a.IDs)
			if hi-lo != min(tc.wantSingle, max(tc.maxLen-tok.Added(false), 0)) || (hi > lo && !slices.Equal(ids[lo:hi], a.IDs[:hi-lo])) {
				t.Errorf("Single rows [%d, %d) of %v", lo, hi, ids)
			}
		})
	}
	tpl, err := encoder.NewHFTemplate("fam", tok, v, 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	unk := max(tok.UnknownID(), 0)
	if got := tpl.Clip([]int{-1, 3, v, v - 1}); !slices.Equal(got, []int{unk, 3, unk, v - 1}) {
		t.Errorf("Clip = %v", got)
	}
}

// QKV, Linear and Norm lay PyTorch's tensors out as nn's, and name a
// missing or misshapen tensor.
func TestHFTensorsLayers(t *testing.T) {
	w := func(name string, shape ...int) safetensors.Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(len(name)*100 + i)
		}
		return safetensors.Tensor{Name: name, Shape: shape, Data: data}
	}
	list := []safetensors.Tensor{w("q.weight", 2, 2), w("q.bias", 2), w("k.weight", 2, 2), w("k.bias", 2),
		w("vv.weight", 2, 2), w("vv.bias", 2), w("lin.weight", 3, 2), w("lin.bias", 3), w("ln.weight", 2), w("ln.bias", 2)}
	src := encoder.NewHFTensors("fam", list)
	nt := map[string][]float32{}
	src.QKV(nt, "", [3]string{"q", "k", "vv"}, "qkv", 2)
	src.Linear(nt, "lin", "out", 3, 2, true)
	src.Norm(nt, "ln", "norm", 2)
	if len(src.Errs) > 0 {
		t.Fatal(src.Errs[0])
	}
	// nn's [in, out]: row i holds input i's weight to every output, the
	// queries' outputs first.
	q, k, vv := list[0].Data, list[2].Data, list[4].Data
	wantQKV := []float32{q[0], q[2], k[0], k[2], vv[0], vv[2], q[1], q[3], k[1], k[3], vv[1], vv[3]}
	if !slices.Equal(nt["qkv.weight"], wantQKV) {
		t.Errorf("qkv.weight %v, want %v", nt["qkv.weight"], wantQKV)
	}
	if got := nt["qkv.bias"]; !slices.Equal(got, slices.Concat(list[1].Data, list[3].Data, list[5].Data)) {
		t.Errorf("qkv.bias %v", got)
	}
	l := list[6].Data
	if got, want := nt["out.weight"], []float32{l[0], l[2], l[4], l[1], l[3], l[5]}; !slices.Equal(got, want) {
		t.Errorf("out.weight %v, want %v", got, want)
	}
	if !slices.Equal(nt["norm.gain"], list[8].Data) || !slices.Equal(nt["norm.bias"], list[9].Data) {
		t.Errorf("norm %v %v", nt["norm.gain"], nt["norm.bias"])
	}
	src.Linear(nt, "lin", "out", 2, 2, false)
	src.Norm(nt, "none", "norm", 2)
	if len(src.Errs) != 3 || !strings.Contains(src.Errs[0].Error(), `"lin.weight" has shape [3 2]`) || !strings.Contains(src.Errs[1].Error(), `missing tensor "none.weight"`) {
		t.Errorf("errors %v", src.Errs)
	}
}

// ParseHFSpec reads any bytes without panicking, and what it accepts
// names a tokenizer of the spec's identity.
func FuzzParseHFSpec(f *testing.F) {
	tok, err := hftokenizer.Load(filepath.Join("roberta", "testdata", "tiny-roberta", "tokenizer.json"))
	if err != nil {
		f.Fatal(err)
	}
	good := encoder.HFSpec("fam", []byte(`{"a":1}`), tok, "id", 8)
	f.Add([]byte(good.Config), good.Tokenizer)
	f.Add([]byte(`{`), "")
	f.Add([]byte(`{"config":{},"tokenizer":"e30="}`), "x")
	f.Fuzz(func(t *testing.T, config []byte, identity string) {
		cfg, tk, err := encoder.ParseHFSpec(encoder.Spec{Config: config, Tokenizer: identity})
		if err != nil {
			return
		}
		if tk.Identity() != identity || cfg == nil {
			t.Errorf("accepted tokenizer %s for identity %s, config %q", tk.Identity(), identity, cfg)
		}
	})
}
