package index

import (
	"context"
	"errors"
	"sync"
)

// SentenceEncoder adapts a sentence-vector model, one function for
// answers and questions alike (USE-Lite zero-shot, the USE-QA analogue
// of the ENDX paper's Table 2), to Encoder for Flat and Binary. Answers
// are encoded in chunks on Workers goroutines (Embed must then be safe for
// concurrent use).
type SentenceEncoder struct {
	Embed   func(texts []string) [][]float32
	Workers int // 0 or 1: one
	// Progress, if set, is called with the number of answers encoded
	// (from one goroutine at a time).
	Progress func(done int)
}

// EncodeAnswers implements Encoder.
func (e SentenceEncoder) EncodeAnswers(ctx context.Context, texts []string) ([][]float32, error) {
	const chunk = 64
	out := make([][]float32, len(texts))
	var (
		mu   sync.Mutex
		next int
		done int
		wg   sync.WaitGroup
		bad  error
	)
	for range max(e.Workers, 1) {
		wg.Go(func() {
			for ctx.Err() == nil {
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= len(texts) {
					return
				}
				hi := min(lo+chunk, len(texts))
				vecs := e.Embed(texts[lo:hi])
				mu.Lock()
				if len(vecs) != hi-lo && bad == nil {
					bad = errors.New("the sentence encoder returned the wrong number of vectors")
				}
				copy(out[lo:hi], vecs)
				done += hi - lo
				if e.Progress != nil {
					e.Progress(done)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, bad
}

// EncodeQuestion implements Encoder.
func (e SentenceEncoder) EncodeQuestion(_ context.Context, text string) ([]float32, error) {
	vs := e.Embed([]string{text})
	if len(vs) != 1 {
		return nil, errors.New("the sentence encoder returned no vector")
	}
	return vs[0], nil
}
