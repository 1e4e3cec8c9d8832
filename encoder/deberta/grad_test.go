package deberta

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/as2/as2/nn"
)

// TestGradients checks fine-tuning's gradients through the whole model
// (embeddings, relative embeddings and their norm, the shared query/key
// projection of the positions, separate position projections) against
// central differences of a fixed projection of the states, in float32 at
// a few entries of each parameter.
func TestGradients(t *testing.T) {
	for _, dir := range fixtures {
		t.Run(dir, func(t *testing.T) {
			e, err := Load(filepath.Join("testdata", dir))
			if err != nil {
				t.Fatal(err)
			}
			m := e.Model()
			m.Config.HiddenDropout = 0 // deterministic in training mode
			ids := [][]int{{1, 20, 31, 42, 53, 2, 64, 75, 2}, {1, 9, 2}}
			types := [][]int{{0, 0, 0, 0, 0, 0, 1, 1, 1}, nil}
			if m.types == nil {
				types = nil
			}
			rng := nn.NewRNG(3)
			var proj []float64
			loss := func(tp *nn.Tape[float32]) (*nn.Var[float32], float64) {
				x, _ := m.ForwardBatch(tp, ids, types)
				if proj == nil {
					proj = make([]float64, x.Value.Len())
					for i := range proj {
						proj[i] = rng.NormFloat64()
					}
				}
				r := nn.NewTensor[float32](x.Value.Shape...)
				s := 0.0
				for i, v := range x.Value.Data {
					r.Data[i] = float32(proj[i])
					s += proj[i] * float64(v)
				}
				return tp.Sum(tp.Mul(x, tp.Const(r))), s
			}
			grads := m.Params().NewGrads()
			tp := nn.NewTape[float32](grads, 0)
			tp.SetTrain(true)
			l, _ := loss(tp)
			tp.Backward(l)
			names := []string{"embeddings.word_embeddings.weight", "encoder.rel_embeddings.weight", "encoder.layer.0.attn.qkv.weight", "encoder.layer.1.attn.qkv.bias", "encoder.layer.1.ffn.out.weight"}
			if m.relNorm != nil {
				names = append(names, "encoder.rel_norm.gain")
			}
			if m.layers[0].posKey != nil {
				names = append(names, "encoder.layer.0.attn.pos_key.weight", "encoder.layer.1.attn.pos_query.bias")
			}
			if m.embedProj != nil {
				names = append(names, "embeddings.embed_proj.weight", "embeddings.position_embeddings.weight", "embeddings.token_type_embeddings.weight")
			}
			eval := nn.NewTape[float32](nil, 0)
			eval.SetTrain(false)
			for _, name := range names {
				p := m.Params().Get(name)
				if p == nil {
					t.Fatalf("no parameter %s", name)
				}
				g := grads.Of(p).Data
				top := 0.0
				for _, v := range g {
					top = max(top, math.Abs(float64(v)))
				}
				if top == 0 {
					t.Errorf("%s: no gradient", name)
					continue
				}
				// A dozen entries spread over the tensor, checked to 2% of
				// its largest gradient (float32's central differences are
				// not finer).
				for k := 0; k < 12; k++ {
					i := (k*len(g))/12 + k%3
					const h = 1e-2
					old := p.Value.Data[i]
					p.Value.Data[i] = old + h
					eval.Reset()
					_, up := loss(eval)
					p.Value.Data[i] = old - h
					eval.Reset()
					_, down := loss(eval)
					p.Value.Data[i] = old
					num := (up - down) / (2 * h)
					if d := math.Abs(num - float64(g[i])); d > 0.02*top {
						t.Errorf("%s[%d]: gradient %v, central difference %v (largest gradient %v)", name, i, g[i], num, top)
					}
				}
			}
		})
	}
}
