package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/as2/as2/kernel"
)

// The float32 call sites of package kernel (LayerNorm, the key-padding
// softmax) agree with the float64 code, which never uses the kernels, at
// widths around the 8- and 16-wide blocks. Run it under each kernel.EnvVar
// value to cover every path:
//
//	for p in generic avx2 avx512; do AS2_KERNEL=$p go test -run Float32Kernels ./nn/; done
func TestFloat32KernelsMatchFloat64(t *testing.T) {
	t.Logf("kernels: %s", kernel.Describe())
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 5, 15, 16, 17, 33, 128, 384} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			const m = 3
			x64, g64, b64 := make([]float64, m*n), make([]float64, n), make([]float64, n)
			for _, s := range [][]float64{x64, g64, b64} {
				for i := range s {
					s[i] = rng.NormFloat64()*2 + 0.5
				}
			}
			x32, g32, b32 := to32(x64), to32(g64), to32(b64)

			tp64, tp32 := NewTape[float64](nil, 0), NewTape[float32](nil, 0)
			ln64 := tp64.LayerNorm(tp64.Const(FromSlice(x64, m, n)), tp64.Const(FromSlice(g64, n)), tp64.Const(FromSlice(b64, n)), 1e-5)
			ln32 := tp32.LayerNorm(tp32.Const(FromSlice(x32, m, n)), tp32.Const(FromSlice(g32, n)), tp32.Const(FromSlice(b32, n)), 1e-5)
			near(t, "LayerNorm", ln32.Value.Data, ln64.Value.Data, 2e-5)

			lens := []int{n, (n + 1) / 2, 0}
			sm64 := tp64.SoftmaxKeyPadding(tp64.Const(FromSlice(x64, m, n)), lens)
			sm32 := tp32.SoftmaxKeyPadding(tp32.Const(FromSlice(x32, m, n)), lens)
			near(t, "SoftmaxKeyPadding", sm32.Value.Data, sm64.Value.Data, 2e-6)
		})
	}
}

func to32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

func near(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	for i, v := range got {
		if d := math.Abs(float64(v) - want[i]); d > tol*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("%s [%d] = %v, want %v", what, i, v, want[i])
		}
	}
}

// A Linear with int8 weights gives the float layer's outputs within the
// quantisation error on an inference tape, and the float outputs exactly
// where gradients are needed; ForwardReLU is exactly ReLU of Forward on
// both; shapes that do not fit are refused.
func TestLinearInt8(t *testing.T) {
	rng := NewRNG(3)
	ps := NewParams[float32]()
	l := NewLinear(ps, "l", 70, 45, true, rng)
	Normal(l.B.Value, 1, rng)
	x := randTensor(4, 9, 70)

	tp := NewTape[float32](nil, 0)
	want := l.Forward(tp, tp.Const(x)).Value.Data
	if err := l.QuantizeInt8(); err != nil {
		t.Fatal(err)
	}
	got := l.Forward(tp, tp.Const(x)).Value.Data
	var scale float64 // the outputs' typical size
	for _, v := range want {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	var worst float64
	for i := range want {
		worst = math.Max(worst, math.Abs(float64(got[i]-want[i])))
	}
	// Weights and activations each rounded to 1/254 of their range: a
	// few per cent of the output range at most; zero would mean the int8
	// path did not run.
	if worst > 0.03*scale || worst == 0 {
		t.Fatalf("int8 Linear: worst error %g against outputs up to %g", worst, scale)
	}

	tr := NewTape(ps.NewGrads(), 0)
	tr.SetTrain(true)
	y := l.Forward(tr, tr.Const(x)).Value.Data
	for i := range want {
		if y[i] != want[i] {
			t.Fatalf("training tape: output %d = %v, want the float %v", i, y[i], want[i])
		}
	}
	for _, c := range []struct {
		name  string
		tp    *Tape[float32]
		plain []float32
	}{{"int8", tp, got}, {"training", tr, y}} {
		r := l.ForwardReLU(c.tp, c.tp.Const(x)).Value.Data
		var neg int
		for i, v := range c.plain {
			if v < 0 {
				neg++
				v = 0
			}
			if r[i] != v {
				t.Fatalf("%s: ForwardReLU output %d = %v, want max(0, %v)", c.name, i, r[i], c.plain[i])
			}
		}
		if neg == 0 {
			t.Fatalf("%s: no negative output to clip", c.name)
		}
	}

	wrong, err := kernel.QuantizeInt8Matrix(make([]float32, 70*44), 44, 70)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetInt8(wrong); err == nil {
		t.Error("SetInt8 of a 44-output matrix on a 70×45 layer: no error")
	}
	l64 := NewLinear(NewParams[float64](), "l", 3, 2, false, rng)
	if err := l64.QuantizeInt8(); err == nil {
		t.Error("QuantizeInt8 of a float64 layer: no error")
	}
}

// BenchmarkEncoderLayerInt8 runs a MiniLM-shaped encoder layer (width 384,
// 12 heads, FFN 1536) on a batch of 4 sequences of 128 tokens, as
// crossencoder's inference batches, with float and with int8 weights
// back to back, on the kernel path in force:
//
//	go test -run '^$' -bench EncoderLayerInt8 -count 4 ./nn/
func BenchmarkEncoderLayerInt8(b *testing.B) {
	ps := NewParams[float32]()
	l := NewTransformerEncoderLayer(ps, "enc", EncoderLayerConfig{D: 384, Heads: 12, FFN: 1536}, NewRNG(1))
	var seqs []*Tensor[float32]
	for i := range 4 {
		seqs = append(seqs, randTensor(uint64(i), 128, 384))
	}
	x, mask, _ := packBatch(seqs)
	b.Logf("kernels: %s", kernel.Describe())
	for _, int8 := range []bool{false, true} {
		name := "float"
		if int8 {
			name = "int8"
			if err := QuantizeInt8Linears(l.Linears()...); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			tp := NewTape[float32](nil, 0)
			loop(b, 4*128, "tokens", func() {
				tp.Reset()
				l.Forward(tp, tp.Const(x), mask)
			})
		})
	}
}

// An encoder layer with int8 linear maps stays close to the float layer:
// its outputs (LayerNorm'd, so of unit scale) move by a few hundredths.
func TestEncoderLayerInt8Close(t *testing.T) {
	ps := NewParams[float32]()
	l := NewTransformerEncoderLayer(ps, "enc", EncoderLayerConfig{D: 64, Heads: 4, FFN: 256}, NewRNG(5))
	x, mask, _ := packBatch([]*Tensor[float32]{randTensor(1, 30, 64), randTensor(2, 17, 64)})
	tp := NewTape[float32](nil, 0)
	want := append([]float32(nil), l.Forward(tp, tp.Const(x), mask).Value.Data...)
	if err := QuantizeInt8Linears(l.Linears()...); err != nil {
		t.Fatal(err)
	}
	got := l.Forward(tp, tp.Const(x), mask).Value.Data
	var worst, mean float64
	for i := range want {
		d := math.Abs(float64(got[i] - want[i]))
		worst = math.Max(worst, d)
		mean += d / float64(len(want))
	}
	t.Logf("int8 vs float: mean |Δ| %.4f, worst %.4f", mean, worst)
	if mean > 0.02 || worst > 0.2 || worst == 0 {
		t.Fatalf("int8 vs float: mean |Δ| %.4f, worst %.4f", mean, worst)
	}
}
