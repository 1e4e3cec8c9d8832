package dataset

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Augment builds large candidate pools, like the ASNQ++ of the sequential
// reranking paper: every question of qs gets, after its own candidates,
// negatives drawn at random (seeded) from the candidates of the other
// questions of pool, until it has size candidates. The added candidates are
// labelled negative, get ids "aug-<n>" and positions after the original
// ones, so a document's own order stays first; sentences with the same text
// as one of the question's own are not drawn. The input is not modified.
func Augment(qs, pool []Question, size int, seed uint64) ([]Question, error) {
	type ref struct{ q, c int }
	var all []ref
	for i := range pool {
		for j := range pool[i].Candidates {
			all = append(all, ref{i, j})
		}
	}
	out := make([]Question, len(qs))
	rng := rand.New(rand.NewPCG(seed, 0xa09))
	for i := range qs {
		q := qs[i]
		own := map[string]bool{}
		for _, c := range q.Candidates {
			own[c.Text] = true
		}
		cands := append([]Candidate(nil), q.Candidates...)
		need := size - len(cands)
		if need > 0 && len(all) == 0 {
			return nil, fmt.Errorf("augment: the pool has no candidates")
		}
		// Rejection sampling; the attempt bound keeps a pool too small for
		// size from looping for ever.
		for tries := 0; need > 0 && tries < 50*size; tries++ {
			r := all[rng.IntN(len(all))]
			c := pool[r.q].Candidates[r.c]
			if pool[r.q].ID == q.ID || own[c.Text] {
				continue
			}
			own[c.Text] = true
			cands = append(cands, Candidate{ID: "aug-" + strconv.Itoa(len(cands)), Text: c.Text, Position: len(cands), Label: Negative})
			need--
		}
		if need > 0 {
			return nil, fmt.Errorf("augment: question %q: the pool has too few distinct sentences for %d candidates", q.ID, size)
		}
		q.Candidates = cands
		out[i] = q
	}
	return out, nil
}
