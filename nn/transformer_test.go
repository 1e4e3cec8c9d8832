package nn

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"
)

// Gradient checks of the transformer ops and layers, in the pattern of
// gradcheck_test.go: float64, central differences, random projections.

// The fused multi-head op equals attention computed head by head with the
// generic ops (Attention over column slices, then Concat).
func TestMultiHeadAttentionMatchesHeads(t *testing.T) {
	const tq, tk, d, heads = 5, 7, 12, 3
	rng := NewRNG(3)
	mk := func(r, c int) *Tensor[float64] { x := NewTensor[float64](r, c); Normal(x, 1, rng); return x }
	q, k, v := mk(tq, d), mk(tk, d), mk(tk, d)
	tp := NewTape[float64](nil, 0)
	got := tp.MultiHeadAttention(tp.Const(q), tp.Const(k), tp.Const(v), heads, AttentionMask{})
	var outs []*Var[float64]
	dh := d / heads
	for h := 0; h < heads; h++ {
		sl := func(x *Tensor[float64]) *Var[float64] { return tp.SliceCols(tp.Const(x), h*dh, (h+1)*dh) }
		o, _ := tp.Attention(sl(q), sl(k), sl(v), 0)
		outs = append(outs, o)
	}
	want := tp.Concat(outs...)
	for i := range want.Value.Data {
		if math.Abs(got.Value.Data[i]-want.Value.Data[i]) > 1e-12 {
			t.Fatalf("value %d: %v, want %v", i, got.Value.Data[i], want.Value.Data[i])
		}
	}
}

func TestGELUValues(t *testing.T) {
	tp := NewTape[float32](nil, 0)
	xs := []float32{-6, -3.3, -1, -0.1, 0, 0.5, 1, 2.5, 7}
	x := tp.Const(FromSlice(slices.Clone(xs)))
	exact, approx := tp.GELU(x), tp.GELUTanh(x)
	for i, v := range xs {
		f := float64(v)
		want := f / 2 * (1 + math.Erf(f/math.Sqrt2))
		if d := math.Abs(float64(exact.Value.Data[i]) - want); d > 1e-6 {
			t.Errorf("GELU(%v) = %v, want %v", v, exact.Value.Data[i], want)
		}
		wantT := f / 2 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(f+0.044715*f*f*f)))
		if d := math.Abs(float64(approx.Value.Data[i]) - wantT); d > 1e-6 {
			t.Errorf("GELUTanh(%v) = %v, want %v", v, approx.Value.Data[i], wantT)
		}
	}
}

func TestErf32(t *testing.T) {
	worst := 0.0
	for x := -8.0; x <= 8; x += 1e-3 {
		worst = max(worst, math.Abs(float64(erf32(float32(x)))-math.Erf(float64(float32(x)))))
	}
	if worst > 1e-6 {
		t.Fatalf("erf32 worst absolute error %g", worst)
	}
}

func TestSinusoid(t *testing.T) {
	const n, d = 50, 8
	inter := Sinusoid[float64](n, d, SinusoidInterleaved)
	concat := Sinusoid[float64](n, d, SinusoidConcat)
	for p := 0; p < n; p++ {
		for i := 0; i < d/2; i++ {
			f := math.Pow(10000, -float64(2*i)/d)
			if g, w := inter.At(p, 2*i), math.Sin(float64(p)*f); math.Abs(g-w) > 1e-12 {
				t.Fatalf("interleaved[%d,%d] = %v, want %v", p, 2*i, g, w)
			}
			if g, w := inter.At(p, 2*i+1), math.Cos(float64(p)*f); math.Abs(g-w) > 1e-12 {
				t.Fatalf("interleaved[%d,%d] = %v, want %v", p, 2*i+1, g, w)
			}
			f = math.Pow(10000, -float64(i)/(d/2-1))
			if g, w := concat.At(p, i), math.Sin(float64(p)*f); math.Abs(g-w) > 1e-12 {
				t.Fatalf("concat[%d,%d] = %v, want %v", p, i, g, w)
			}
			if g, w := concat.At(p, d/2+i), math.Cos(float64(p)*f); math.Abs(g-w) > 1e-12 {
				t.Fatalf("concat[%d,%d] = %v, want %v", p, d/2+i, g, w)
			}
		}
	}
	if odd := Sinusoid[float32](3, 5, SinusoidConcat); odd.At(2, 4) != 0 {
		t.Fatalf("odd width: last column %v, want 0", odd.At(2, 4))
	}
}

// packBatch pads sequences (rows of width d) to the longest and packs them
// as one [B·T, d] matrix with their key lengths.
func packBatch(seqs []*Tensor[float32]) (*Tensor[float32], AttentionMask, int) {
	tmax := 0
	for _, s := range seqs {
		tmax = max(tmax, s.Rows())
	}
	d := seqs[0].Cols()
	x := NewTensor[float32](len(seqs)*tmax, d)
	mask := AttentionMask{Batch: len(seqs)}
	for i, s := range seqs {
		copy(x.Data[i*tmax*d:], s.Data)
		mask.KeyLens = append(mask.KeyLens, s.Rows())
	}
	return x, mask, tmax
}

// A padded batch gives, at every real position, what each sequence gives
// alone: padded keys get no attention.
func TestEncoderPaddingMatchesSingle(t *testing.T) {
	lens := []int{5, 2, 7, 1, 7}
	for _, cfg := range []EncoderLayerConfig{
		{D: 16, Heads: 4, FFN: 24},
		{D: 16, Heads: 2, FFN: 24, PreNorm: true, Act: ActGELUTanh},
	} {
		t.Run(fmt.Sprintf("prenorm=%v", cfg.PreNorm), func(t *testing.T) {
			ps := NewParams[float32]()
			enc := NewTransformerEncoder(ps, "enc", 2, cfg, NewRNG(1))
			xattn := NewMultiHeadAttention(ps, "cross", 16, 4, NewRNG(2))
			var seqs []*Tensor[float32]
			for i, n := range lens {
				seqs = append(seqs, randTensor(uint64(10+i), n, 16))
			}
			x, mask, tmax := packBatch(seqs)
			tp := NewTape[float32](nil, 0)
			tp.SetTrain(false)
			batch := enc.Forward(tp, tp.Const(x), mask)
			cross := xattn.Cross(tp, batch, batch, mask)
			for i, s := range seqs {
				one := enc.Forward(tp, tp.Const(s), AttentionMask{})
				oneCross := xattn.Cross(tp, one, one, AttentionMask{})
				n := s.Rows()
				assertClose(t, fmt.Sprintf("seq %d", i), batch.Value.Data[i*tmax*16:(i*tmax+n)*16], one.Value.Data)
				assertClose(t, fmt.Sprintf("cross %d", i), cross.Value.Data[i*tmax*16:(i*tmax+n)*16], oneCross.Value.Data)
			}
		})
	}
}

// Inference on an evaluation tape records nothing, and once the arena has
// grown a pass allocates only small bookkeeping (Vars and shapes), not
// tensor data.
func TestEncoderInferenceAllocs(t *testing.T) {
	ps := NewParams[float32]()
	cfg := EncoderLayerConfig{D: 64, Heads: 4, FFN: 128}
	enc := NewTransformerEncoder(ps, "enc", 2, cfg, NewRNG(1))
	x, mask, _ := packBatch([]*Tensor[float32]{randTensor(1, 30, 64), randTensor(2, 20, 64)})
	tp := NewTape[float32](ps.NewGrads(), 0)
	tp.SetTrain(false)
	run := func() {
		tp.Reset()
		enc.Forward(tp, tp.Const(x), mask)
		if len(tp.back) != 0 {
			t.Fatalf("evaluation tape recorded %d closures", len(tp.back))
		}
	}
	run()
	allocs := testing.AllocsPerRun(20, run)
	t.Logf("%.0f allocations per 2-layer forward", allocs)
	if allocs > 150 {
		t.Errorf("%.0f allocations per 2-layer forward, want ≤ 150", allocs)
	}
}

// benchLengths are 100 sequence lengths in [8, 128], seeded.
func benchLengths() []int {
	rng := NewRNG(11)
	lens := make([]int, 100)
	for i := range lens {
		lens[i] = 8 + rng.IntN(121)
	}
	return lens
}

// BenchmarkEncoderLayer runs one 384-d, 12-head layer with FFN 1536
// (MiniLM-L6's shape) over 100 sequences of at most 128 tokens, bucketed by
// length into batches of 16 padded to the bucket's longest: "infer" on an
// evaluation tape, "train" forward and backward.
//
// On the shared 2-core AMD EPYC development machine (noisy: ±30% between
// runs), infer ran at 8.0k–9.5k tokens per CPU-second in pure Go and
// 10.4k–12.0k with -tags openblas; train at 2.8k and 3.7k. Debian's
// PyTorch 1.13 on one thread (nn.TransformerEncoderLayer, same shape,
// lengths and buckets, key-padding mask, inference mode) ran at 8.4k–14.2k.
func BenchmarkEncoderLayer(b *testing.B) {
	ps := NewParams[float32]()
	l := NewTransformerEncoderLayer(ps, "enc", EncoderLayerConfig{D: 384, Heads: 12, FFN: 1536}, NewRNG(1))
	lens := benchLengths()
	sort.Ints(lens)
	tokens := 0
	type bucket struct {
		x    *Tensor[float32]
		mask AttentionMask
	}
	var buckets []bucket
	for lo := 0; lo < len(lens); lo += 16 {
		var seqs []*Tensor[float32]
		for i, n := range lens[lo:min(lo+16, len(lens))] {
			seqs = append(seqs, randTensor(uint64(lo+i), n, 384))
			tokens += n
		}
		x, mask, _ := packBatch(seqs)
		buckets = append(buckets, bucket{x, mask})
	}
	b.Logf("%s, %d tokens", BLASName(), tokens)
	for _, train := range []bool{false, true} {
		name := "infer"
		if train {
			name = "train"
		}
		b.Run(name, func(b *testing.B) {
			grads := ps.NewGrads()
			tp := NewTape(grads, 0)
			tp.SetTrain(train)
			loop(b, tokens, "tokens", func() {
				for _, bk := range buckets {
					tp.Reset()
					x := tp.Const(bk.x)
					if train {
						x = tp.Leaf(bk.x)
					}
					y := l.Forward(tp, x, bk.mask)
					if train {
						tp.BackwardFrom(y, y.Value.Data)
					}
				}
			})
		})
	}
}

func TestExp32(t *testing.T) {
	worst := 0.0
	for x := -87.0; x <= 88; x += 1e-3 {
		want := math.Exp(float64(float32(x)))
		worst = max(worst, math.Abs(float64(exp32(float32(x)))-want)/want)
	}
	if worst > 3e-7 {
		t.Fatalf("exp32 worst relative error %g", worst)
	}
	if got := exp32(-200); got > 1e-37 {
		t.Fatalf("exp32(-200) = %g", got)
	}
}

func BenchmarkGELU(b *testing.B) {
	x := randTensor(1, 1000, 1536)
	tp := NewTape[float32](nil, 0)
	loop(b, x.Len(), "values", func() { tp.Reset(); tp.GELU(tp.Const(x)) })
}
