package nn

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestAdamQuadratic(t *testing.T) {
	for _, decoupled := range []bool{false, true} {
		ps := NewParams[float64]()
		x := ps.New("x", 3)
		copy(x.Value.Data, []float64{5, -3, 1})
		target := []float64{1, 2, -1}
		opt := NewAdam(ps)
		if decoupled {
			opt = NewAdamW(ps, 1e-4)
		}
		g := ps.NewGrads()
		for step := 0; step < 2000; step++ {
			g.Zero()
			for i, v := range x.Value.Data { // ∇ ½‖x−target‖²
				g.Of(x).Data[i] = v - target[i]
			}
			opt.Step(g, 0.05)
		}
		for i, v := range x.Value.Data {
			if math.Abs(v-target[i]) > 1e-2 {
				t.Errorf("decoupled=%v: x[%d] = %g, want %g", decoupled, i, v, target[i])
			}
		}
	}
}

// Adam's first step moves every parameter by lr·sign(g) (bias correction).
func TestAdamFirstStep(t *testing.T) {
	ps := NewParams[float32]()
	p := ps.New("p", 2)
	g := ps.NewGrads()
	copy(g.Of(p).Data, []float32{0.003, -40})
	NewAdam(ps).Step(g, 0.1)
	if d := math.Abs(float64(p.Value.Data[0]) + 0.1); d > 1e-5 {
		t.Errorf("p[0] = %g, want -0.1", p.Value.Data[0])
	}
	if d := math.Abs(float64(p.Value.Data[1]) - 0.1); d > 1e-5 {
		t.Errorf("p[1] = %g, want 0.1", p.Value.Data[1])
	}
}

// A 2-4-1 tanh network learns XOR with Adam, BCE and data-parallel workers.
func TestXOR(t *testing.T) {
	rng := NewRNG(5)
	ps := NewParams[float32]()
	l1 := NewLinear(ps, "l1", 2, 8, true, rng)
	l2 := NewLinear(ps, "l2", 8, 1, true, rng)
	xs := [][]float32{{0, 0}, {0, 1}, {1, 0}, {1, 1}}
	ys := []float32{0, 1, 1, 0}
	workers := NewWorkers(ps, 2, 1)
	opt := NewAdam(ps)
	sched := NewSlantedTriangular(0.05, 400)
	forward := func(tp *Tape[float32], i int) *Var[float32] {
		return l2.Forward(tp, tp.Tanh(l1.Forward(tp, tp.Const(FromSlice(xs[i])))))
	}
	var loss float64
	for step := 0; step < 400; step++ {
		var g *Grads[float32]
		loss, g = workers.Run(len(xs), func(tp *Tape[float32], i int) float64 {
			l := tp.BCEWithLogits(forward(tp, i), ys[i:i+1])
			tp.Backward(l)
			return l.Scalar()
		})
		if err := g.CheckFinite(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		g.ClipNorm(5)
		opt.Step(g, sched.At(step))
	}
	if loss/4 > 0.05 {
		t.Fatalf("XOR mean loss %g after training", loss/4)
	}
	tp := NewTape[float32](nil, 0)
	tp.SetTrain(false)
	for i := range xs {
		if p := sigmoid(forward(tp, i).Value.Data[0]); (p > 0.5) != (ys[i] == 1) {
			t.Errorf("XOR%v = %g", xs[i], p)
		}
	}
}

func TestSlantedTriangular(t *testing.T) {
	s := NewSlantedTriangular(0.01, 1000) // cut = 100
	for _, c := range []struct {
		step int
		want float64
	}{
		{0, 0.01 / 32},
		{50, 0.01 * (1 + 0.5*31) / 32},
		{100, 0.01},
		{550, 0.01 * (1 + 0.5*31) / 32}, // halfway down: p = 1 − 450/900
		{1000, 0.01 / 32},
	} {
		if got := s.At(c.step); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("At(%d) = %g, want %g", c.step, got, c.want)
		}
	}
}

func TestClipNormAndParallelSum(t *testing.T) {
	ps := NewParams[float64]()
	a, b := ps.New("a", 2), ps.New("b", 1)
	g := ps.NewGrads()
	copy(g.Of(a).Data, []float64{3, 0})
	g.Of(b).Data[0] = 4
	if n := g.ClipNorm(1); n != 5 {
		t.Fatalf("norm %g, want 5", n)
	}
	if n := g.Norm(); math.Abs(n-1) > 1e-12 {
		t.Fatalf("clipped norm %g", n)
	}
	h := ps.NewGrads()
	h.Add(g)
	h.Add(g)
	if h.Of(b).Data[0] != 1.6 {
		t.Fatalf("Add: %v", h.Of(b).Data)
	}
}

// Data-parallel gradients equal the serial ones, for any worker count.
func TestWorkersMatchSerial(t *testing.T) {
	rng := NewRNG(9)
	ps := NewParams[float64]()
	m := newConvNet(ps, 4, 6, 3, rng)
	type item struct {
		q    *Tensor[float64]
		cs   []*Tensor[float64]
		gold []float64
	}
	var items []item
	for i := 0; i < 5; i++ {
		it := item{q: randomSeq(rng, 2+i, 4), gold: []float64{1, 0, float64(i % 2)}}
		for j := 0; j < 3; j++ {
			it.cs = append(it.cs, randomSeq(rng, 1+j+i, 4))
		}
		items = append(items, it)
	}
	fn := func(tp *Tape[float64], i int) float64 {
		var cs []*Var[float64]
		for _, c := range items[i].cs {
			cs = append(cs, tp.Const(c))
		}
		l := tp.KLDiv(m.scores(tp, tp.Const(items[i].q), cs), items[i].gold)
		tp.Backward(l)
		return l.Scalar()
	}
	l1, g1 := NewWorkers(ps, 1, 0).Run(len(items), fn)
	l3, g3 := NewWorkers(ps, 3, 0).Run(len(items), fn)
	if math.Abs(l1-l3) > 1e-12 {
		t.Fatalf("loss %g vs %g", l1, l3)
	}
	for _, p := range ps.All() {
		for i, v := range g1.Of(p).Data {
			if math.Abs(v-g3.Of(p).Data[i]) > 1e-12 {
				t.Fatalf("%s[%d]: %g vs %g", p.Name, i, v, g3.Of(p).Data[i])
			}
		}
	}
}

func TestParamsSerialisationHooks(t *testing.T) {
	rng := NewRNG(1)
	ps := NewParams[float32]()
	newConvNet(ps, 4, 3, 2, rng)
	var names []string
	for _, p := range ps.All() {
		names = append(names, p.Name)
	}
	want := "conv_q.weight conv_q.bias conv_c.weight conv_c.bias birnn.fwd.wx birnn.fwd.wh birnn.fwd.bias birnn.bwd.wx birnn.bwd.wh birnn.bwd.bias out.weight out.bias"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("order:\n got %s\nwant %s", got, want)
	}
	w := ps.Get("conv_q.weight")
	data := w.Float32s()
	data[0] = 42
	if err := w.SetFloat32s(data); err != nil || w.Value.Data[0] != 42 {
		t.Fatalf("SetFloat32s: %v, %v", err, w.Value.Data[0])
	}
	if err := w.SetFloat32s(data[1:]); err == nil {
		t.Fatal("SetFloat32s accepted a wrong size")
	}
}

func TestCheckFinite(t *testing.T) {
	ps := NewParams[float32]()
	p := ps.New("conv_q.weight", 3)
	g := ps.NewGrads()
	if err := g.CheckFinite(); err != nil {
		t.Fatal(err)
	}
	g.Of(p).Data[2] = float32(math.NaN())
	err := g.CheckFinite()
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.Index != 2 || !strings.Contains(err.Error(), "gradient of conv_q.weight") {
		t.Fatalf("got %v", err)
	}
	p.Value.Data[0] = float32(math.Inf(-1))
	if err := ps.CheckFinite(); err == nil || !strings.Contains(err.Error(), "-Inf") {
		t.Fatalf("got %v", err)
	}
}

func TestOrthogonalInit(t *testing.T) {
	for _, sh := range [][2]int{{5, 5}, {3, 6}, {6, 3}} {
		w := NewTensor[float64](sh[0], sh[1])
		Orthogonal(w, 1, NewRNG(2))
		r, c := sh[0], sh[1]
		// The smaller side's Gram matrix is the identity.
		for i := 0; i < min(r, c); i++ {
			for j := 0; j < min(r, c); j++ {
				s := 0.0
				if r >= c {
					for k := 0; k < r; k++ {
						s += w.At(k, i) * w.At(k, j)
					}
				} else {
					for k := 0; k < c; k++ {
						s += w.At(i, k) * w.At(j, k)
					}
				}
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(s-want) > 1e-9 {
					t.Fatalf("%v: gram[%d,%d] = %g", sh, i, j, s)
				}
			}
		}
	}
}

func TestCoreTypeFromCPUInfo(t *testing.T) {
	for flags, want := range map[string]string{
		"fpu sse avx avx2 fma avx512f avx512bw avx512vl": "SkylakeX",
		"fpu sse avx avx2 fma":                           "Haswell",
		"fpu sse avx":                                    "SandyBridge",
		"fpu sse":                                        "",
	} {
		info := "processor\t: 0\nflags\t\t: " + flags + "\nbugs\t\t: x\n"
		if got := coreTypeFromCPUInfo(info); got != want {
			t.Errorf("%q → %q, want %q", flags, got, want)
		}
	}
}

// TestAdamLRScale checks that LRScale multiplies one parameter's rate:
// each parameter moves as it would under plain Adam at its scaled rate.
func TestAdamLRScale(t *testing.T) {
	for _, decoupled := range []bool{false, true} {
		setup := func() (*Params[float64], *Adam[float64], *Grads[float64]) {
			ps := NewParams[float64]()
			a, b := ps.New("a", 3), ps.New("b", 2)
			copy(a.Value.Data, []float64{1, -2, 3})
			copy(b.Value.Data, []float64{0.5, -0.5})
			g := ps.NewGrads()
			copy(g.Of(a).Data, []float64{0.3, -1, 2})
			copy(g.Of(b).Data, []float64{-0.7, 0.1})
			opt := NewAdam(ps)
			if decoupled {
				opt = NewAdamW(ps, 0.1)
			}
			return ps, opt, g
		}
		ps, opt, g := setup()
		opt.LRScale = func(p *Param[float64]) float64 {
			if p.Name == "a" {
				return 3
			}
			return 1
		}
		plain, plainOpt, pg := setup()
		faster, fasterOpt, fg := setup()
		for range 3 {
			opt.Step(g, 0.01)
			plainOpt.Step(pg, 0.01)
			fasterOpt.Step(fg, 0.03)
		}
		for _, c := range []struct {
			name string
			want *Params[float64]
		}{{"a", faster}, {"b", plain}} {
			got, want := ps.Get(c.name).Value.Data, c.want.Get(c.name).Value.Data
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("decoupled %v: %s[%d] = %v, want %v", decoupled, c.name, i, got[i], want[i])
				}
			}
		}
	}
}
