package nn

import (
	"math/rand/v2"
	"testing"
)

// TestArenaStaysNearItsPeak runs passes of varying shapes through one
// arena, as training does over questions of varying lengths, and checks
// that the memory it keeps stays within twice what the largest pass
// needs: a chunk is kept for reuse and replaced only where a larger
// first request lands, so chunk sizes ratchet up, but only so far.
func TestArenaStaysNearItsPeak(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var a arena[float32]
	peak := 0
	for pass := 0; pass < 2000; pass++ {
		// A pass: a transformer over a few buckets of P positions, whose
		// activations are P×512 or P×1536 values, among small tensors.
		need := 0
		for range 2 + rng.IntN(12) {
			p := 16 + rng.IntN(497)
			for k := range 40 {
				n := p * 512
				switch k % 4 {
				case 1:
					n = p * 1536
				case 3:
					n = 1 + rng.IntN(2048)
				}
				s := a.allocDirty(n)
				if len(s) != n {
					t.Fatalf("pass %d: asked for %d, got %d", pass, n, len(s))
				}
				need += n
			}
		}
		peak = max(peak, need)
		a.reset()
	}
	kept := 0
	for _, c := range a.chunks {
		kept += len(c)
	}
	t.Logf("kept %d, peak %d, ratio %.2f", kept, peak, float64(kept)/float64(peak))
	if limit := 2*peak + arenaChunk; kept > limit {
		t.Errorf("the arena keeps %d values after 2,000 passes that each needed at most %d (limit %d)", kept, peak, limit)
	}
}

// TestArenaSlicesDoNotOverlap checks that one pass's slices are disjoint
// and zeroed by alloc, across chunk boundaries and replaced chunks.
func TestArenaSlicesDoNotOverlap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var a arena[float64]
	for pass := 0; pass < 50; pass++ {
		var got [][]float64
		for i := range 50 + rng.IntN(50) {
			n := 1 + rng.IntN(3*arenaChunk/2)
			s := a.alloc(n)
			for j, v := range s {
				if v != 0 {
					t.Fatalf("pass %d, slice %d: value %d is %v, want 0", pass, i, j, v)
				}
			}
			for j := range s {
				s[j] = float64(i + 1)
			}
			got = append(got, s)
		}
		for i, s := range got {
			for j, v := range s {
				if v != float64(i+1) {
					t.Fatalf("pass %d: slice %d was overwritten at %d (%v)", pass, i, j, v)
				}
			}
		}
		a.reset()
	}
}
