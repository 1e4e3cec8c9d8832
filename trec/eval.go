package trec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/as2/as2/metric"
)

// Options are trec_eval's evaluation options.
type Options struct {
	// AllQueries averages over every query in the qrels, a query missing
	// from the run scoring 0 (trec_eval -c). By default only the queries
	// with both results and qrels are evaluated.
	AllQueries bool
	// RelevanceLevel is the smallest rel counted as relevant (trec_eval
	// -l); 0 or less means trec_eval's default, 1.
	RelevanceLevel int
}

// Sort sorts results as trec_eval ranks them: by score, highest first, ties
// broken by docno in decreasing byte order (form_res_rels.c, comp_sim_docno,
// which returns strcmp(p2->docno, p1->docno)).
func Sort(results []Result) {
	slices.SortFunc(results, func(a, b Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(b.DocID, a.DocID)
	})
}

// Evaluate evaluates run against qrels with the measures ms (nil means
// metric.DefaultMeasures) following trec_eval's rules, described in the
// package documentation. PerQuery is in increasing qid order. It fails,
// as trec_eval does, when a query's results retrieve a docno twice or when
// no query is left to evaluate.
func Evaluate(run Run, qrels Qrels, ms []metric.Measure, opts Options) (metric.Result, error) {
	// trec_eval.c: loop over the queries with both results and qrels, or,
	// with -c, over all qrels queries; both files are sorted by qid.
	var qids []string
	if opts.AllQueries {
		qids = sortedKeys(qrels)
	} else {
		for _, qid := range run.Queries {
			if _, ok := qrels[qid]; ok {
				qids = append(qids, qid)
			}
		}
		slices.Sort(qids)
	}
	if len(qids) == 0 {
		return metric.Result{}, errors.New("trec: no queries with both results and relevance info")
	}
	qs := make([]metric.Query, len(qids))
	for i, qid := range qids {
		rs := slices.Clone(run.Results[qid])
		Sort(rs)
		judged := qrels[qid]
		q := metric.Query{ID: qid, Ranked: make([]int, len(rs)), Level: opts.RelevanceLevel}
		seen := make(map[string]bool, len(rs))
		for j, r := range rs {
			if seen[r.DocID] { // form_res_rels.c: "duplicate docs"
				return metric.Result{}, fmt.Errorf("trec: query %q retrieves docno %q twice", qid, r.DocID)
			}
			seen[r.DocID] = true
			q.Ranked[j] = judged[r.DocID] // docno not in qrels: 0, not relevant
		}
		for _, rel := range judged {
			q.Judged = append(q.Judged, rel)
		}
		qs[i] = q
	}
	return metric.Evaluate(qs, ms), nil
}
