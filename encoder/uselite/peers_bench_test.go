package uselite

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/as2/as2/kernel"
	"github.com/as2/as2/nn"
)

// BenchmarkPeersEmbed is as2's side of the sentence-encoder row of the peer
// comparison (scripts/peers/run.sh, which times the same shape on ONNX
// Runtime and PyTorch): USE-Lite's full shape with random weights embeds
// 100 sentences of 32 tokens (about a WikiQA candidate) to unit vectors,
// on GOMAXPROCS goroutines, with float32 weights and then int8 ones
// (nn.QuantizeInt8Linears on Linears, what model/quant runs as int8).
// "single" embeds one sentence per pass, as the dual encoder does;
// "batch" runs padded batches of 16 (512 positions) through StatesBatch,
// as the peers run one batch. It reports sentences/s.
//
//	go test -run '^$' -bench PeersEmbed -benchtime 3x ./encoder/uselite/
func BenchmarkPeersEmbed(b *testing.B) {
	const n, length, batch = 100, 32, 16
	m, err := New(DefaultConfig(), nn.NewRNG(1))
	if err != nil {
		b.Fatal(err)
	}
	rng := nn.NewRNG(2)
	ids := make([][]int, n)
	for i := range ids {
		ids[i] = make([]int, length)
		for j := range ids[i] {
			ids[i][j] = rng.IntN(m.cfg.Vocab)
		}
	}
	// Work items: one sentence each, or one batch each.
	single := make([][][]int, n)
	for i := range ids {
		single[i] = ids[i : i+1]
	}
	var batches [][][]int
	for lo := 0; lo < n; lo += batch {
		batches = append(batches, ids[lo:min(lo+batch, n)])
	}
	b.Logf("kernels: %s", kernel.Describe())
	for _, int8 := range []bool{false, true} {
		prec := "float"
		if int8 {
			prec = "int8"
			if err := nn.QuantizeInt8Linears(m.Linears()...); err != nil {
				b.Fatal(err)
			}
		}
		for _, mode := range []struct {
			name  string
			items [][][]int
		}{{"single", single}, {"batch", batches}} {
			b.Run(prec+"/"+mode.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					embedParallel(m, mode.items)
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "sentences/s")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// embedParallel embeds each item (a group of sentences) on GOMAXPROCS
// workers, each with its own inference tape: one sentence through Embed,
// several through StatesBatch and the sentence head row by row. The
// vectors are dropped: the tape reuses their memory.
func embedParallel(m *Model, items [][][]int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tp := nn.NewTape[float32](nil, 0)
			tp.SetTrain(false)
			for {
				k := int(next.Add(1)) - 1
				if k >= len(items) {
					return
				}
				tp.Reset()
				group := items[k]
				if len(group) == 1 {
					m.Embed(tp, group[0])
					continue
				}
				x, t := m.StatesBatch(tp, group)
				for j, s := range group {
					m.poolAndProject(tp, tp.Rows(x, j*t, j*t+len(s)))
				}
			}
		}()
	}
	wg.Wait()
}
