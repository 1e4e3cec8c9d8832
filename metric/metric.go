package metric

import (
	"fmt"
	"math"
	"sort"
)

// Query is one query's ranked result.
type Query struct {
	ID string
	// Ranked holds the relevance grade of the item at rank 1, 2, ...
	// (0 = not relevant or unjudged).
	Ranked []int
	// Judged holds the grades of every judged item of the query, retrieved
	// or not; it gives R and the ideal ranking. It must include the grades
	// of the judged items in Ranked. When it is empty, Ranked is used
	// instead: the usual AS2 case, where every candidate is ranked.
	Judged []int
	// Level is the smallest grade that counts as relevant (trec_eval -l);
	// 0 or less means trec_eval's default, 1.
	Level int
}

func (q Query) level() int {
	if q.Level < 1 {
		return 1
	}
	return q.Level
}

func (q Query) judged() []int {
	if len(q.Judged) == 0 {
		return q.Ranked
	}
	return q.Judged
}

// relevantIn counts the relevant items among grades.
func (q Query) relevantIn(grades []int) int {
	n, lvl := 0, q.level()
	for _, g := range grades {
		if g >= lvl {
			n++
		}
	}
	return n
}

// numRel is R, the number of relevant judged items (form_res_rels.c:
// num_rel counts the qrels with rel >= relevance_level). It is never less
// than the number of relevant ranked items, so inconsistent input cannot
// give a value above 1 or a division by zero.
func (q Query) numRel() int {
	return max(q.relevantIn(q.judged()), q.relevantIn(q.Ranked))
}

// top returns the first k ranked grades, or all of them if fewer.
func (q Query) top(k int) []int {
	if k < 1 {
		panic(fmt.Sprintf("metric: cutoff %d is not positive", k))
	}
	return q.Ranked[:min(k, len(q.Ranked))]
}

// AveragePrecision is trec_eval's map for one query: the precision at the
// rank of each relevant ranked item, summed and divided by R (m_map.c).
// Relevant items never ranked therefore count as precision 0.
func AveragePrecision(q Query) float64 {
	lvl := q.level()
	sum, relSoFar := 0.0, 0
	for i, g := range q.Ranked {
		if g >= lvl {
			relSoFar++
			sum += float64(relSoFar) / float64(i+1)
		}
	}
	if relSoFar == 0 { // m_map.c leaves the value at 0
		return 0
	}
	return sum / float64(q.numRel())
}

// ReciprocalRank is trec_eval's recip_rank: 1 / the rank of the first
// relevant item, or 0 if none is ranked (m_recip_rank.c).
func ReciprocalRank(q Query) float64 {
	lvl := q.level()
	for i, g := range q.Ranked {
		if g >= lvl {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// PrecisionAt is trec_eval's P_k: relevant items in the top k divided by k,
// even when fewer than k items are ranked (m_P.c: "it is assumed nonrelevant
// docs fill in the rest"). It panics if k < 1.
func PrecisionAt(q Query, k int) float64 {
	return float64(q.relevantIn(q.top(k))) / float64(k)
}

// RecallAt is trec_eval's recall_k: relevant items in the top k divided by
// R, and 0 when R is 0 (m_recall.c). It panics if k < 1.
func RecallAt(q Query, k int) float64 {
	r := q.numRel()
	if r == 0 {
		return 0
	}
	return float64(q.relevantIn(q.top(k))) / float64(r)
}

// SuccessAt is 1 if a relevant item is in the top k and 0 otherwise:
// trec_eval's success_k (m_success.c), whose mean is ReQA's R@k. It panics
// if k < 1.
func SuccessAt(q Query, k int) float64 {
	if q.relevantIn(q.top(k)) > 0 {
		return 1
	}
	return 0
}

// NDCGAt is trec_eval's ndcg_cut_k (m_ndcg_cut.c): the DCG of the top k,
// where the item at rank r contributes grade/log2(r+1) if its grade is
// positive, divided by the DCG of the ideal ranking of the judged items
// (positive grades sorted in decreasing order) cut at k. Gains are the raw
// grades whatever Level is. It is 0 when no judged grade is positive. (Before
// version 9, trec_eval discounted rank 1 by 1 and rank r > 1 by log2(r).)
// It panics if k < 1.
func NDCGAt(q Query, k int) float64 {
	dcg := 0.0
	for i, g := range q.top(k) {
		if g > 0 { // unjudged (-1, -2 in trec_eval) and 0 add nothing
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	var gains []int
	for _, g := range q.judged() {
		if g > 0 {
			gains = append(gains, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(gains)))
	ideal := 0.0
	for i, g := range gains[:min(k, len(gains))] {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}
