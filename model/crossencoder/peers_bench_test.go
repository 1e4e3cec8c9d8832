package crossencoder

import (
	"testing"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/kernel"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/text/sentencepiece"
)

// The benchmarks of this file are as2's side of the peer comparison run by
// scripts/peers/run.sh, which times the same shapes on ONNX Runtime and
// PyTorch (fp32 and int8 dynamic quantisation): each scores its pairs
// with float32 weights, then with int8 ones (nn.QuantizeInt8Linears, the
// layers model/quant runs as int8), on the kernel path in force. Weights
// are random: speed does not depend on them.
//
//	go test -run '^$' -bench 'Peers' -benchtime 3x ./model/crossencoder/

// BenchmarkPeersScore6x384 is BenchmarkScore6x384 (MiniLM-L6's shape, 100
// pairs of 128 tokens) with a float and an int8 sub-benchmark.
func BenchmarkPeersScore6x384(b *testing.B) {
	benchPeers(b, miniLMEncoder(b), randomPairs(100, 128, 30522))
}

// BenchmarkPeersScoreUSELite is the built-in model's cross-encoder shape:
// USE-Lite (embeddings 8002×256, a layer of width 256 projected to 512 and
// a layer of width 512, 4 heads, FFN 1536) under the cross-encoder's mean
// pooling and score, scoring 100 pairs of 40 tokens, about a WikiQA
// question and candidate with the separator.
func BenchmarkPeersScoreUSELite(b *testing.B) {
	cfg := uselite.DefaultConfig()
	m, err := uselite.New(cfg, nn.NewRNG(1))
	if err != nil {
		b.Fatal(err)
	}
	pieces := make([]sentencepiece.Piece, cfg.Vocab)
	for i := range pieces {
		pieces[i] = sentencepiece.Piece{Text: "p" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)), Score: -float64(i)}
	}
	tok, err := sentencepiece.New(pieces, sentencepiece.Options{Algorithm: sentencepiece.USELiteJS})
	if err != nil {
		b.Fatal(err)
	}
	enc, err := uselite.NewEncoder(m, tok)
	if err != nil {
		b.Fatal(err)
	}
	benchPeers(b, enc, randomPairs(100, 40, cfg.Vocab))
}

// randomPairs returns n sequences of length random ids below vocab, the
// last three quarters typed as the candidate.
func randomPairs(n, length, vocab int) []encoder.Sequence {
	rng := nn.NewRNG(2)
	seqs := make([]encoder.Sequence, n)
	for i := range seqs {
		s := encoder.Sequence{IDs: make([]int, length), Types: make([]int, length)}
		for j := range s.IDs {
			s.IDs[j] = rng.IntN(vocab)
			if j >= length/4 {
				s.Types[j] = 1
			}
		}
		seqs[i] = s
	}
	return seqs
}

// benchPeers builds a cross-encoder over enc and times its inference over
// seqs, float then int8, reporting pairs/s.
func benchPeers(b *testing.B, enc encoder.Encoder[float32], seqs []encoder.Sequence) {
	x, err := New(Recipe(), enc, 1)
	if err != nil {
		b.Fatal(err)
	}
	bs := inferBuckets(seqs, x.hyper.BatchTokens)
	b.Logf("kernels: %s", kernel.Describe())
	for _, int8 := range []bool{false, true} {
		name := "float"
		if int8 {
			name = "int8"
			if err := nn.QuantizeInt8Linears(x.Linears()...); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				x.infer(nn.NewTape[float32](nil, 0), seqs, bs)
			}
			b.ReportMetric(float64(len(seqs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
