package modernbert

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
)

// Fine-tuning's gradients through the whole model, a padded batch of two
// pairs with local and global layers, against central differences. The
// model is float32, so the step and tolerance are float32's; nn's float64
// checks cover each op exactly (nn/rotary_test.go).
func TestGradients(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		params []string
	}{
		{"tiny-modernbert", []string{"embeddings.tok_embeddings.weight", "embeddings.norm.weight", "layers.0.attn.Wqkv.weight",
			"layers.1.attn.Wqkv.weight", "layers.2.attn.Wo.weight", "layers.1.mlp.Wi.weight", "layers.2.mlp.Wo.weight", "layers.2.attn_norm.weight", "final_norm.weight"}},
		{"tiny-modernbert-mean", []string{"layers.1.attn.Wqkv.bias", "layers.0.mlp.Wi.bias", "layers.1.mlp_norm.bias", "final_norm.bias"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			e, err := Load(filepath.Join("testdata", tc.dir))
			if err != nil {
				t.Fatal(err)
			}
			seqs := []encoder.Sequence{
				e.Pair(e.Tokenize("Who wrote War and Peace?"), e.Tokenize("Leo Tolstoy wrote it.")),
				e.Pair(e.Tokenize("Where?"), e.Tokenize("Paris.")),
			}
			rng := nn.NewRNG(3)
			var r []float32
			loss := func(grads *nn.Grads[float32]) float64 {
				tp := nn.NewTape[float32](grads, 0)
				x, T := e.EncodeBatch(tp, seqs)
				if r == nil {
					h := e.Dim()
					r = make([]float32, len(x.Value.Data))
					for b, s := range seqs {
						for i := b * T * h; i < (b*T+s.Len())*h; i++ {
							r[i] = float32(rng.NormFloat64()) // padding rows weigh 0
						}
					}
				}
				var l float64
				for i, v := range x.Value.Data {
					l += float64(r[i]) * float64(v)
				}
				if grads != nil {
					tp.BackwardFrom(x, r)
				}
				return l
			}
			ps := e.Params()
			grads := ps.NewGrads()
			loss(grads)
			const eps = 1e-2
			for _, name := range tc.params {
				p := ps.Get(name)
				if p == nil {
					t.Fatalf("no parameter %q", name)
				}
				g := grads.Of(p).Data
				// The element of largest gradient and a few others.
				idx := []int{0, len(g) / 3, len(g) - 1}
				big := 0
				for i, v := range g {
					if math.Abs(float64(v)) > math.Abs(float64(g[big])) {
						big = i
					}
				}
				if g[big] == 0 {
					t.Errorf("%s: no gradient", name)
					continue
				}
				for _, i := range append(idx, big) {
					old := p.Value.Data[i]
					p.Value.Data[i] = old + eps
					up := loss(nil)
					p.Value.Data[i] = old - eps
					down := loss(nil)
					p.Value.Data[i] = old
					num := (up - down) / (2 * eps)
					if d := math.Abs(num - float64(g[i])); d > 5e-3+5e-2*math.Abs(num) {
						t.Errorf("%s[%d]: gradient %v, finite difference %v", name, i, g[i], num)
					}
				}
			}
		})
	}
}
