package sentencepiece

import "testing"

func benchTexts(b *testing.B) []string {
	var fx struct{ Cases []idCase }
	readJSON(b, "testdata/use-lite-ids.json", &fx)
	var out []string
	for _, c := range fx.Cases {
		out = append(out, c.Text)
	}
	return out
}

func benchTokenize(b *testing.B, tok *Tokenizer) {
	sents := benchTexts(b)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		n += len(tok.Encode(sents[i%len(sents)]))
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkTokenize encodes the USE-Lite fixture's sentences (WikiQA,
// SQuAD, hard cases) with the USE-Lite vocabulary and with the tiny
// SentencePiece model.
func BenchmarkTokenize(b *testing.B) {
	b.Run("use-lite", func(b *testing.B) { benchTokenize(b, useLite(b)) })
	b.Run("spm-800", func(b *testing.B) {
		tok, _ := spmTokenizer(b)
		benchTokenize(b, tok)
	})
}
