package retrieval

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/index"
	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/rank"
)

// TestBM25ReQASQuAD keeps BM25 over ReQA SQuAD at what it measured (notes/2026-11-23-reqa-answer-retrieval.md,
// "Answer retrieval"), with floors just under: full pool MRR 70.18, R@1
// 62.43, R@5 79.40; test half 72.56, 64.99, 81.37; and stemmed, stopwords
// dropped: full pool 72.55, 64.35, 82.45; test half 74.59, 66.57, 84.18.
func TestBM25ReQASQuAD(t *testing.T) {
	shareddata.Tier(t, shareddata.Quick)
	if testing.Short() {
		t.Skip("-short: skipping BM25 over the whole ReQA SQuAD pool")
	}
	dir := filepath.Join(shareddata.Dir(t), "squad")
	stem := rank.DefaultOptions()
	stem.Stopwords, stem.Stem = true, true
	tests := []struct {
		split       string
		opts        rank.Options
		mrr, r1, r5 float64
		answers, qs int
	}{
		{"dev", rank.DefaultOptions(), 0.700, 0.622, 0.792, 10280, 10539},
		{"test", rank.DefaultOptions(), 0.724, 0.648, 0.812, 4783, 5267},
		{"dev", stem, 0.724, 0.642, 0.822, 10280, 10539},
		{"test", stem, 0.744, 0.664, 0.840, 4783, 5267},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/stem=%v", tc.split, tc.opts.Stem), func(t *testing.T) {
			pool, err := reqa.Load(dir, tc.split)
			if err != nil {
				t.Fatal(err)
			}
			if len(pool.Answers) != tc.answers || len(pool.Questions) != tc.qs {
				t.Errorf("%d answers, %d questions; want %d, %d", len(pool.Answers), len(pool.Questions), tc.answers, tc.qs)
			}
			r, _, err := index.NewBM25Retriever(context.Background(), tc.opts, pool.IDs(), pool.Texts())
			if err != nil {
				t.Fatal(err)
			}
			res, _, err := Evaluate(context.Background(), r, pool, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("MRR %.4f R@1 %.4f R@5 %.4f R@10 %.4f", res.MRR, res.Success[0], res.Success[1], res.Success[2])
			if res.MRR < tc.mrr || res.Success[0] < tc.r1 || res.Success[1] < tc.r5 {
				t.Errorf("MRR %.4f R@1 %.4f R@5 %.4f: below the floors %.3f %.3f %.3f", res.MRR, res.Success[0], res.Success[1], tc.mrr, tc.r1, tc.r5)
			}
		})
	}
}

// TestHybridReQASQuAD keeps hybrid retrieval on ReQA SQuAD's test half at
// what it measured (notes/2026-11-23-reqa-answer-retrieval.md, "Hybrid retrieval"): USE-Lite zero-shot and
// BM25 merged by relative score fusion, BM25's list weighted 2 (the
// weight chosen on the train half's pool), with floors just under MRR
// 75.56, R@1 67.80, R@5 85.17 (BM25 alone: 72.56, 64.99, 81.37).
func TestHybridReQASQuAD(t *testing.T) {
	shareddata.Tier(t, shareddata.Quick)
	if testing.Short() {
		t.Skip("-short: skipping USE-Lite and BM25 over ReQA SQuAD's test half")
	}
	enc, err := uselite.LoadEncoder(shareddata.File(t, "models/use-lite/"+uselite.PackageFile))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := reqa.Load(filepath.Join(shareddata.Dir(t), "squad"), "test")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lexical, _, err := index.NewBM25Retriever(ctx, rank.DefaultOptions(), pool.IDs(), pool.Texts())
	if err != nil {
		t.Fatal(err)
	}
	vecs := index.SentenceEncoder{Embed: enc.Embed, Workers: runtime.GOMAXPROCS(0)}
	flat, err := index.NewFlat(enc.Dim())
	if err != nil {
		t.Fatal(err)
	}
	if err := index.Build(ctx, vecs, flat, pool.IDs(), pool.Texts()); err != nil {
		t.Fatal(err)
	}
	dense := index.NewRetriever[[]float32, []float32](vecs, flat)
	fused := index.Fused{Retrievers: []index.Retriever{dense, lexical}, Weights: []float64{1, 2}, Fusion: index.FusionRelative, Depth: 100}
	res, _, err := Evaluate(ctx, fused, pool, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MRR %.4f R@1 %.4f R@5 %.4f R@10 %.4f", res.MRR, res.Success[0], res.Success[1], res.Success[2])
	if res.MRR < 0.753 || res.Success[0] < 0.675 || res.Success[1] < 0.849 {
		t.Errorf("MRR %.4f R@1 %.4f R@5 %.4f: below the floors", res.MRR, res.Success[0], res.Success[1])
	}
}
