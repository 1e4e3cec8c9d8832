package index

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// failingRetriever fails every search.
type failingRetriever struct{}

func (failingRetriever) Retrieve(context.Context, string, int) ([]Hit, error) {
	return nil, errors.New("down")
}

// TestFused checks both fusions against sums worked by hand:
// an answer both lists hold beats one ranked first by one list alone, the
// depth cuts each list before fusion (but never under the k asked for),
// ties keep first appearance, and a
// failing retriever's error names it.
func TestFused(t *testing.T) {
	lexical := fixedRetriever{{"a", 30}, {"b", 20}, {"c", 10}, {"z", 1}}
	dense := fixedRetriever{{"c", 0.9}, {"d", 0.8}, {"b", 0.7}, {"y", 0.1}}
	f := Fused{Retrievers: []Retriever{lexical, dense}, Depth: 3, K: 1}
	got, err := f.Retrieve(context.Background(), "q?", 3)
	if err != nil {
		t.Fatal(err)
	}
	// K 1: a 1/2; b 1/3+1/4; c 1/4+1/2; d 1/3; z and y lie past depth 3.
	want := []Hit{{"c", 0.75}, {"b", 7.0 / 12}, {"a", 0.5}, {"d", 1.0 / 3}}
	if len(got) != 3 || got[2] != want[2] {
		t.Errorf("k 3: %v, want %v", got, want[:3])
	}
	// k 10 asks for more than depth 3: each list gives all 4 it has, so z
	// and y come in, 1/5 each, under d.
	got, err = f.Retrieve(context.Background(), "q?", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || got[4].Score != 0.2 || got[5].Score != 0.2 {
		t.Errorf("k 10 over depth 3: %v, want z and y at 1/5 after %v", got, want)
	}
	got = got[:4]
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
			t.Errorf("hit %d: %v, want %v", i, got[i], want[i])
		}
	}
	if got, _ := f.Retrieve(context.Background(), "q?", 2); len(got) != 2 || got[1].ID != "b" {
		t.Errorf("k 2: %v", got)
	}
	// Mirror images tie: the first list's answer comes first.
	tie := Fused{Retrievers: []Retriever{fixedRetriever{{"a", 1}, {"b", 0}}, fixedRetriever{{"b", 1}, {"a", 0}}}, Depth: 2}
	if got, _ := tie.Retrieve(context.Background(), "q?", 2); got[0].ID != "a" || got[0].Score != got[1].Score || math.Abs(got[0].Score-(1.0/61+1.0/62)) > 1e-15 {
		t.Errorf("ties: %v", got)
	}
	// Weighted: the lexical list counts 3 times (K 1): a 3/2, b 1+1/4,
	// c 3/4+1/2, d 1/3.
	f.Weights = []float64{3, 1}
	if got, _ := f.Retrieve(context.Background(), "q?", 4); got[0].ID != "a" || got[1].ID != "b" || got[2].ID != "c" || got[1].Score != 1.25 {
		t.Errorf("weighted: %v", got)
	}
	// Relative scores, min-max over each list of 3: lexical a 1, b 0.5,
	// c 0; dense c 1, d 0.5, b 0. With weights 3, 1: a 3, b 1.5, c 1
	// (and d 0.5, past k 3).
	f.Fusion = FusionRelative
	want = []Hit{{"a", 3}, {"b", 1.5}, {"c", 1}}
	got, _ = f.Retrieve(context.Background(), "q?", 3)
	if !slices.EqualFunc(got, want, func(a, b Hit) bool { return a.ID == b.ID && math.Abs(a.Score-b.Score) < 1e-12 }) {
		t.Errorf("relative: %v, want %v", got, want)
	}
	one := Fused{Retrievers: []Retriever{fixedRetriever{{"a", 2}, {"b", 2}}}, Depth: 2, Fusion: FusionRelative}
	if got, _ := one.Retrieve(context.Background(), "q?", 2); got[0] != (Hit{"a", 1}) || got[1] != (Hit{"b", 1}) {
		t.Errorf("equal scores: %v, want both 1", got)
	}
	f.Fusion = "sum"
	if _, err := f.Retrieve(context.Background(), "q?", 2); err == nil || !strings.Contains(err.Error(), `fusion "sum"`) {
		t.Errorf("an unknown fusion: %v", err)
	}
	f.Fusion = ""
	f.Weights = []float64{1}
	if _, err := f.Retrieve(context.Background(), "q?", 2); err == nil || !strings.Contains(err.Error(), "1 weights for 2 retrievers") {
		t.Errorf("a weight short: %v", err)
	}
	f.Weights = nil
	f.Retrievers = append(f.Retrievers, failingRetriever{})
	if _, err := f.Retrieve(context.Background(), "q?", 2); err == nil || !strings.Contains(err.Error(), "fused retriever 3: down") {
		t.Errorf("a failing retriever: %v", err)
	}
}
