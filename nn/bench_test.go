package nn

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/as2/as2/kernel"
)

// cpuTime is the CPU time used by this process (all threads). The machine
// may be shared, so benchmarks also report CPU time per op: wall time under
// contention says little, CPU time says what the code costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs body under b.Loop and reports cpu-ns/op (and, with items > 0,
// items/cpu-s: throughput per fully used core).
func loop(b *testing.B, items int, unit string, body func()) {
	var start time.Duration
	first := true
	for b.Loop() {
		if first {
			start, first = cpuTime(), false
		}
		body()
	}
	cpu := cpuTime() - start
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if items > 0 {
		b.ReportMetric(float64(items*b.N)/b.Elapsed().Seconds(), unit+"/s")
		b.ReportMetric(float64(items*b.N)/cpu.Seconds(), unit+"/cpu-s")
	}
}

func TestMain(m *testing.M) {
	EnsureBLASEnv() // with -tags openblas: re-exec with OPENBLAS_CORETYPE set
	os.Exit(m.Run())
}

// TestBLASName checks that the backend is named as the build and the CPU
// select it.
func TestBLASName(t *testing.T) {
	name := BLASName()
	if !regexp.MustCompile(`^(pure Go, (AVX-512 kernels|AVX2/FMA kernels|gonum)|openblas \S+)$`).MatchString(name) {
		t.Fatalf("BLASName() = %q", name)
	}
	if strings.HasPrefix(name, "pure Go") {
		if want := kernel.HasAVX2FMA && !kernel.HasAVX512; want != strings.Contains(name, "AVX2") {
			t.Fatalf("BLASName() = %q, but AVX2/FMA kernels: %v", name, want)
		}
		if kernel.HasAVX512 != strings.Contains(name, "AVX-512") {
			t.Fatalf("BLASName() = %q, but AVX-512 kernels: %v", name, kernel.HasAVX512)
		}
	}
}

func randSeq32(steps, d int, seed uint64) *Tensor[float32] {
	x := NewTensor[float32](steps, d)
	Normal(x, 1, NewRNG(seed))
	return x
}

// One sentence's convolution at the sizes of a CNN sentence encoder: 25 tokens of 104 features,
// kernel 5, 300 filters, max pool, ReLU, then backward. With "maxpool" the
// weight gradient uses the sparse path; "dense" (no pool) the full GEMMs.
func BenchmarkConv1dForwardBackward(b *testing.B) {
	for _, mode := range []string{"maxpool", "dense"} {
		b.Run(mode, func(b *testing.B) {
			ps := NewParams[float32]()
			conv := NewConv1D(ps, "conv", 104, 300, 5, NewRNG(1))
			tp := NewTape(ps.NewGrads(), 0)
			x := randSeq32(25, 104, 2)
			loop(b, 0, "", func() {
				tp.Reset()
				y := conv.Forward(tp, tp.Const(x))
				if mode == "maxpool" {
					y = tp.MaxPool(y)
				}
				y = tp.ReLU(y)
				tp.Backward(tp.Sum(y))
			})
		})
	}
}

// A bidirectional tanh RNN over 10 pair vectors of 600, hidden 300 per
// direction, forward and backward.
func BenchmarkBiRNN(b *testing.B) {
	ps := NewParams[float32]()
	rnn := NewBiRNN(ps, "birnn", 600, 300, NewRNG(1))
	tp := NewTape(ps.NewGrads(), 0)
	x := randSeq32(10, 600, 2)
	loop(b, 0, "", func() {
		tp.Reset()
		tp.Backward(tp.Sum(rnn.Forward(tp, tp.Const(x))))
	})
}

// The GEMM shapes that dominate a CNN sentence encoder, float32.
func BenchmarkGemm(b *testing.B) {
	for _, s := range []struct {
		name    string
		tA, tB  bool
		m, n, k int
	}{
		{"conv_fwd_25x300x520_NT", false, true, 25, 300, 520},
		{"conv_q_fwd_7x300x520_NT", false, true, 7, 300, 520},
		{"conv_dW_dense_300x520x25_TN", true, false, 300, 520, 25},
		{"rnn_proj_10x300x600_NN", false, false, 10, 300, 600},
		{"rnn_step_1x300x300_NN", false, false, 1, 300, 300},
		{"rnn_dWh_300x300x1_TN", true, false, 300, 300, 1},
	} {
		b.Run(s.name, func(b *testing.B) {
			a := make([]float32, s.m*s.k)
			w := make([]float32, s.k*s.n)
			c := make([]float32, s.m*s.n)
			for i := range a {
				a[i] = float32(i%7) - 3
			}
			for i := range w {
				w[i] = float32(i%5) - 2
			}
			lda, ldb := s.k, s.n
			if s.tA {
				lda = s.m
			}
			if s.tB {
				ldb = s.k
			}
			start := cpuTime()
			loop(b, 0, "", func() {
				gemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, w, ldb, 0, c, s.n)
			})
			cpu := cpuTime() - start
			b.ReportMetric(float64(2*s.m*s.n*s.k)*float64(b.N)/cpu.Seconds()/1e9, "GFLOP/cpu-s")
		})
	}
}

// questionBatch builds one WikiQA-sized question: 7 question tokens, 10
// candidates of 25 tokens, 104 features (100-d GloVe + 4 relatedness).
func questionBatch() (*Tensor[float32], []*Tensor[float32], []float32) {
	q := randSeq32(7, 104, 1)
	var cs []*Tensor[float32]
	for i := 0; i < 10; i++ {
		cs = append(cs, randSeq32(25, 104, uint64(10+i)))
	}
	gold := make([]float32, 10)
	gold[3] = 1
	return q, cs, gold
}

// Training the test network at the sizes of a CNN answer ranker (300 filters of width
// 5, BiRNN of 300 per direction, listwise KL loss): 8 questions of 10 pairs
// per optimiser step, spread over Workers. Reports training pairs/s.
func BenchmarkConvNetTrain(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ps := NewParams[float32]()
			m := newConvNet(ps, 104, 300, 300, NewRNG(1))
			q, cs, gold := questionBatch()
			w := NewWorkers(ps, workers, 0)
			opt := NewAdam(ps)
			const questions = 8
			loop(b, questions*len(cs), "pairs", func() {
				_, g := w.Run(questions, func(tp *Tape[float32], i int) float64 {
					cv := make([]*Var[float32], len(cs))
					for j, c := range cs {
						cv[j] = tp.Const(c)
					}
					l := tp.KLDiv(m.scores(tp, tp.Const(q), cv), gold)
					tp.Backward(l)
					return l.Scalar()
				})
				opt.Step(g, 1e-4)
			})
		})
	}
}

// Inference throughput of the same model (evaluation mode: no backward
// closures are recorded), 2 workers.
func BenchmarkConvNetInfer(b *testing.B) {
	ps := NewParams[float32]()
	m := newConvNet(ps, 104, 300, 300, NewRNG(1))
	q, cs, _ := questionBatch()
	w := NewWorkers(ps, 2, 0)
	w.SetTrain(false)
	const questions = 16
	loop(b, questions*len(cs), "pairs", func() {
		w.Run(questions, func(tp *Tape[float32], i int) float64 {
			cv := make([]*Var[float32], len(cs))
			for j, c := range cs {
				cv[j] = tp.Const(c)
			}
			return float64(m.scores(tp, tp.Const(q), cv).Value.Data[0])
		})
	})
}

// Adam over the test network's parameters (~0.73M).
func BenchmarkAdamStep(b *testing.B) {
	ps := NewParams[float32]()
	newConvNet(ps, 104, 300, 300, NewRNG(1))
	g := ps.NewGrads()
	opt := NewAdam(ps)
	loop(b, 0, "", func() { opt.Step(g, 1e-3) })
	b.ReportMetric(float64(ps.Count()), "params")
}
