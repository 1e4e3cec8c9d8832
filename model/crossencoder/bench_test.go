package crossencoder

import (
	"testing"

	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/text/wordpiece"
)

// BenchmarkScore6x384 is the speed benchmark of the transformer issue: a
// cross-encoder of MiniLM-L6's shape (6 layers, width 384, 12 heads, FFN
// 1536) with random weights scoring 100 candidates of 128 tokens, the
// shapes scripts/reference/bench-pytorch-crossencoder.py runs on PyTorch. It reports
// pairs/s.
//
//	go test -run '^$' -bench Score6x384 -benchtime 3x ./model/crossencoder/
func BenchmarkScore6x384(b *testing.B) {
	const n = 100
	x, err := New(Recipe(), miniLMEncoder(b), 1)
	if err != nil {
		b.Fatal(err)
	}
	seqs := randomPairs(n, 128, 30522)
	bs := inferBuckets(seqs, x.hyper.BatchTokens)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.infer(nn.NewTape[float32](nil, 0), seqs, bs)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(0, "ns/op")
}

// miniLMEncoder returns a BERT encoder of MiniLM-L6's shape (6 layers,
// width 384, 12 heads, FFN 1536, BERT's vocabulary size) with random
// weights, for the speed benchmarks: their ids are random, so its
// tokenizer needs only the special pieces.
func miniLMEncoder(b *testing.B) *bert.Encoder {
	m, err := bert.New(bert.Config{VocabSize: 30522, HiddenSize: 384, NumHiddenLayers: 6, NumAttentionHeads: 12,
		IntermediateSize: 1536, HiddenAct: nn.ActGELU, MaxPositionEmbeddings: 512, TypeVocabSize: 2}, nn.NewRNG(1))
	if err != nil {
		b.Fatal(err)
	}
	tok, err := wordpiece.New([]string{"[PAD]", "[UNK]", "[CLS]", "[SEP]"}, wordpiece.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	enc, err := bert.NewEncoder(m, tok)
	if err != nil {
		b.Fatal(err)
	}
	return enc
}
