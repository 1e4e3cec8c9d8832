// Package metric computes ranking measures for answer sentence selection
// (AS2), per query and averaged over queries, with exactly the definitions of
// trec_eval (https://github.com/usnistgov/trec_eval, version 9; the file
// implementing each rule is cited next to its code).
//
// # Input
//
// A [Query] gives the relevance grade of each ranked item, in rank order, and
// the grades of every judged item of the query (the qrels), which fix the
// number of relevant items R and the ideal ranking for nDCG. The caller
// decides how score ties are broken by the order of Query.Ranked: the AS2
// evaluator keeps candidates in document order, while package trec re-sorts a
// run the way trec_eval does (score descending, then docno descending).
//
// An item is relevant when its grade is at least Query.Level (trec_eval's -l
// option, default 1). Negative grades and 0 mean not relevant; unjudged
// retrieved items have grade 0.
//
// # Measures
//
//	name        trec_eval   value for one query
//	map         map         sum of precision at each relevant rank / R (m_map.c)
//	mrr         recip_rank  1 / rank of the first relevant item (m_recip_rank.c)
//	p@k         P_k         relevant in top k / k, even if fewer than k are ranked (m_P.c)
//	recall@k    recall_k    relevant in top k / R (m_recall.c)
//	r@k         success_k   1 if a relevant item is in the top k, else 0 (m_success.c)
//	ndcg@k      ndcg_cut_k  DCG@k / ideal DCG@k, gain = grade, discount 1/log2(rank+1) (m_ndcg_cut.c)
//
// r@k is ReQA's "R@k" (Ahmad et al. 2019): their evaluation code
// (google/retrieval-qa-eval, squad_eval.py, recall_at_n) counts the fraction of
// questions whose best-ranked correct answer has rank <= k, which is the mean
// of trec_eval's success_k. It is not trec_eval's recall_k, which divides by R
// (the two agree when every query has exactly one relevant item). Note that
// squad_eval.py ranks ties by their average rank (scipy rankdata); here ties
// are ranked by the order of Query.Ranked.
//
// # Queries without relevant items
//
// As in trec_eval, a query with no relevant judged item scores 0 on every
// measure (m_map.c and m_recip_rank.c leave the value at 0, m_recall.c
// returns 0 when R = 0, m_ndcg_cut.c normalizes only when the ideal DCG is
// positive) and still counts in the mean: trec_eval averages over every
// query that has judgments and results, whatever the grades (trec_eval.c,
// meas_avg.c). [Evaluate] therefore averages over all the queries it is given;
// to follow the usual AS2 protocol of dropping questions without a correct
// answer (WikiQA's "-filtered.ref" files), leave them out before calling it.
package metric
