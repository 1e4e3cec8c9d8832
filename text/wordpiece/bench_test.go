package wordpiece

import (
	"encoding/json"
	"os"
	"testing"
)

func benchSentences(b *testing.B) []string {
	data, err := os.ReadFile("testdata/bert-uncased-ids.json")
	if err != nil {
		b.Fatal(err)
	}
	var fx fixture
	if err := json.Unmarshal(data, &fx); err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, c := range fx.Cases {
		out = append(out, c.Text)
	}
	return out
}

// BenchmarkTokenize runs IDs over the fixture's real and hard sentences with
// the bert-base-uncased vocabulary and reports tokens/s.
func BenchmarkTokenize(b *testing.B) {
	tok := bertVocab(b)
	sents := benchSentences(b)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		n += len(tok.IDs(sents[i%len(sents)]))
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tokens/s")
}
