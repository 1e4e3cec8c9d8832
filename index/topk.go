package index

import (
	"container/heap"
	"slices"
)

// scored is an answer's position in an index and its score.
type scored struct {
	i     int
	score float64
}

// worse orders scored answers: a lower score is worse, and between equal
// scores the later answer is, so rankings are deterministic.
func worse(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.i > b.i
}

// topK keeps the k best answers offered to it: a min-heap on worse.
type topK struct {
	k int
	h []scored
}

func newTopK(k int) *topK { return &topK{k: k, h: make([]scored, 0, min(k, 1<<16))} }

func (t *topK) Len() int           { return len(t.h) }
func (t *topK) Less(a, b int) bool { return worse(t.h[a], t.h[b]) }
func (t *topK) Swap(a, b int)      { t.h[a], t.h[b] = t.h[b], t.h[a] }
func (t *topK) Push(x any)         { t.h = append(t.h, x.(scored)) }
func (t *topK) Pop() any {
	x := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return x
}

// offer considers answer i with score s.
func (t *topK) offer(i int, s float64) {
	c := scored{i, s}
	if len(t.h) < t.k {
		heap.Push(t, c)
	} else if t.k > 0 && worse(t.h[0], c) {
		t.h[0] = c
		heap.Fix(t, 0)
	}
}

// sorted returns the answers kept, best first.
func (t *topK) sorted() []scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, bestFirstCmp)
	return out
}

// bestFirstCmp orders answers best first, for slices.SortFunc.
func bestFirstCmp(a, b scored) int {
	switch {
	case worse(b, a):
		return -1
	case worse(a, b):
		return 1
	}
	return 0
}

// merge returns the k best of several top-k lists, best first.
func merge(k int, parts ...*topK) []scored {
	all := newTopK(k)
	for _, p := range parts {
		for _, c := range p.h {
			all.offer(c.i, c.score)
		}
	}
	return all.sorted()
}
