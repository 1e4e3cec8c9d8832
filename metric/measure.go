package metric

import (
	"fmt"
	"strconv"
	"strings"
)

type kind int

const (
	kindMAP kind = iota + 1
	kindMRR
	kindP
	kindRecall
	kindSuccess
	kindNDCG
)

// Measure is a named ranking measure. Make one with [ParseMeasure] or
// [DefaultMeasures]; the zero Measure is not usable.
type Measure struct {
	// Name is the canonical name: "map", "mrr", "p@K", "recall@K", "r@K"
	// or "ndcg@K".
	Name string
	kind kind
	k    int
}

// String returns m.Name.
func (m Measure) String() string { return m.Name }

// Cutoff returns the measure's cutoff k, or 0 for map and mrr.
func (m Measure) Cutoff() int { return m.k }

// Of returns the measure's value for one query.
func (m Measure) Of(q Query) float64 {
	switch m.kind {
	case kindMAP:
		return AveragePrecision(q)
	case kindMRR:
		return ReciprocalRank(q)
	case kindP:
		return PrecisionAt(q, m.k)
	case kindRecall:
		return RecallAt(q, m.k)
	case kindSuccess:
		return SuccessAt(q, m.k)
	case kindNDCG:
		return NDCGAt(q, m.k)
	}
	panic(fmt.Sprintf("metric: measure %q was not made by ParseMeasure", m.Name))
}

// Canonical prefixes of the measures with a cutoff.
var prefix = map[kind]string{kindP: "p@", kindRecall: "recall@", kindSuccess: "r@", kindNDCG: "ndcg@"}

// Names accepted before a cutoff's separator ('@', or trec_eval's '_' or
// '.'), in lower case.
var cutoffKinds = map[string]kind{
	"p": kindP, "recall": kindRecall, "r": kindSuccess, "success": kindSuccess,
	"ndcg": kindNDCG, "ndcg_cut": kindNDCG,
}

// ParseMeasure parses a measure name, ignoring case: "map", "mrr", "p@K",
// "recall@K" (trec_eval's recall_K), "r@K" (ReQA's R@K, trec_eval's
// success_K) and "ndcg@K", where K is a positive integer; trec_eval's names
// "recip_rank", "P_K", "recall_K", "success_K" and "ndcg_cut_K" (or with '.'
// for '_', as in trec_eval -m P.5) are accepted too.
func ParseMeasure(s string) (Measure, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	switch name {
	case "map":
		return Measure{Name: "map", kind: kindMAP}, nil
	case "mrr", "recip_rank":
		return Measure{Name: "mrr", kind: kindMRR}, nil
	}
	if i := strings.LastIndexAny(name, "@_."); i > 0 {
		if kd, ok := cutoffKinds[name[:i]]; ok {
			k, err := parseCutoff(name[i+1:])
			if err != nil {
				return Measure{}, fmt.Errorf("metric: measure %q: cutoff %v", s, err)
			}
			return Measure{Name: prefix[kd] + strconv.Itoa(k), kind: kd, k: k}, nil
		}
	}
	return Measure{}, fmt.Errorf("metric: unknown measure %q (want map, mrr, p@K, recall@K, r@K, ndcg@K, "+
		"or trec_eval's recip_rank, P_K, recall_K, success_K, ndcg_cut_K)", s)
}

func parseCutoff(s string) (int, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a positive integer", s)
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 { // trec_eval: "Cutoffs must be positive"
		return 0, fmt.Errorf("%q is not a positive integer", s)
	}
	return k, nil
}

// MustParseMeasure is like [ParseMeasure] but panics on error; for
// measure names fixed in the program.
func MustParseMeasure(s string) Measure {
	m, err := ParseMeasure(s)
	if err != nil {
		panic(err)
	}
	return m
}

// DefaultMeasures returns the measures usually reported for AS2: map, mrr
// and p@1 (the standard triple, e.g. WikiQA and TREC-QA papers), then r@5
// (ReQA's R@5) and ndcg@10.
func DefaultMeasures() []Measure {
	return []Measure{
		MustParseMeasure("map"), MustParseMeasure("mrr"), MustParseMeasure("p@1"),
		MustParseMeasure("r@5"), MustParseMeasure("ndcg@10"),
	}
}

// Result holds every measure for every query, and the means.
type Result struct {
	Measures []Measure
	PerQuery []QueryResult      // in input order
	Mean     map[string]float64 // keyed by Measure.Name
}

// QueryResult is one query's values, keyed by Measure.Name.
type QueryResult struct {
	ID     string
	Values map[string]float64
}

// Evaluate computes every measure for every query and their arithmetic
// means over all the queries (sum, then divide, as trec_eval's meas_avg.c).
// A nil ms means [DefaultMeasures]. With no queries, every mean is 0, as in
// trec_eval's te_calc_avg_meas_s.
func Evaluate(qs []Query, ms []Measure) Result {
	if ms == nil {
		ms = DefaultMeasures()
	}
	res := Result{
		Measures: ms,
		PerQuery: make([]QueryResult, len(qs)),
		Mean:     make(map[string]float64, len(ms)),
	}
	sums := make([]float64, len(ms))
	for i, q := range qs {
		vals := make(map[string]float64, len(ms))
		for j, m := range ms {
			v := m.Of(q)
			vals[m.Name] = v
			sums[j] += v
		}
		res.PerQuery[i] = QueryResult{ID: q.ID, Values: vals}
	}
	for j, m := range ms {
		res.Mean[m.Name] = 0
		if len(qs) > 0 {
			res.Mean[m.Name] = sums[j] / float64(len(qs))
		}
	}
	return res
}
