// Package trec reads and writes TREC qrels and run files and evaluates a run
// against qrels exactly as trec_eval does (https://github.com/usnistgov/trec_eval,
// version 9), with the measures of package metric.
//
// # Formats
//
// A qrels line is "qid iter docno rel" and a run line is
// "qid Q0 docno rank score tag", fields separated by white space (ASCII, as
// C's isspace). As in trec_eval (get_qrels.c, get_trec_results.c) the iter
// and Q0 columns are ignored, blank lines are skipped and a line whose first
// field starts with '#' is a comment. The rank column is read but ignored by
// [Evaluate]: trec_eval ranks by score. So the WikiQA system output line
// "1 0 0 0 0.0374061375409 0" is a valid run line (qid 1, docno 0, score
// 0.0374061375409, tag 0). Unlike trec_eval, which ignores what follows the
// tag and reads numbers with atol/atof, the column counts must be exact, the
// relevance and rank must be integers, the score must be a number other than
// NaN and a qid/docno pair may appear only once in a file; every such fault
// is reported as a [*dataset.ParseError] naming the file and line.
//
// # Evaluation rules (trec_eval's)
//
//   - Ranking: each query's results are sorted by score, highest first; ties
//     are broken by docno in decreasing strcmp order, so "b" comes before "a"
//     and "9" before "10" (form_res_rels.c, comp_sim_docno). The file order
//     and the rank column play no part.
//   - Duplicate docnos within a query's results are an error
//     (form_res_rels.c: "duplicate docs").
//   - Relevance: a retrieved docno not in the qrels is not relevant; a
//     judged one is relevant when rel >= Options.RelevanceLevel (default 1,
//     trec_eval -l).
//   - Queries: by default, the queries with both results and qrels; queries
//     only in the run or only in the qrels are ignored, and a query whose
//     judgments are all non-relevant is included and scores 0 (trec_eval.c).
//     With Options.AllQueries (trec_eval -c), every qrels query is evaluated
//     and one missing from the run scores 0 (trec_eval.c, meas_avg.c).
//   - Order and means: queries are evaluated in increasing qid (strcmp)
//     order, as trec_eval sorts both files by qid, and the means are sums
//     divided by the number of queries, in that order.
package trec
