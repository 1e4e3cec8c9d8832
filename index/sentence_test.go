package index

import (
	"context"
	"strconv"
	"testing"
)

func TestSentenceEncoder(t *testing.T) {
	// A fake model: the text's number as a one-dimensional vector.
	embed := func(texts []string) [][]float32 {
		out := make([][]float32, len(texts))
		for i, s := range texts {
			n, _ := strconv.Atoi(s)
			out[i] = []float32{float32(n)}
		}
		return out
	}
	var texts []string
	for i := range 300 {
		texts = append(texts, strconv.Itoa(i))
	}
	for _, workers := range []int{0, 1, 2, 5} {
		last := 0
		enc := SentenceEncoder{Embed: embed, Workers: workers, Progress: func(done int) { last = done }}
		vecs, err := enc.EncodeAnswers(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vecs {
			if v[0] != float32(i) {
				t.Fatalf("workers %d: answer %d got %v", workers, i, v)
			}
		}
		if last != 300 {
			t.Errorf("workers %d: progress ended at %d", workers, last)
		}
	}
	bad := SentenceEncoder{Embed: func([]string) [][]float32 { return nil }}
	if _, err := bad.EncodeAnswers(context.Background(), texts); err == nil {
		t.Error("a model returning no vectors was accepted")
	}
	if _, err := bad.EncodeQuestion(context.Background(), "q"); err == nil {
		t.Error("a model returning no vector was accepted")
	}
}
