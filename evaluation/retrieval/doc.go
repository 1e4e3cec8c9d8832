// Package retrieval measures answer retrieval (package index) on a ReQA
// benchmark (package dataset/reqa): every question retrieves from the
// whole pool, and its ranking is scored against its gold answers.
//
// The measures are those of ReQA (Ahmad et al. 2019) as its code
// (google/retrieval-qa-eval, squad_eval.py) computes them, which the ENDX
// paper cites for its Table 2 (section 4.2):
//
//   - a question's rank is the rank of its best-ranked gold answer, where
//     answers with equal scores share the mean of their ranks (scipy's
//     rankdata, as ReQA's code ranks them);
//   - MRR is the mean of 1/rank (ENDX Eq. 14), 0 for a question with no
//     gold answer among the retrieved ones;
//   - R@N is success at N, ReQA's "recall at N": the fraction of questions
//     whose rank is at most N, that is with a gold answer in the top N.
//
// The ENDX paper writes R@N differently, as Eq. 15: the mean over questions
// of |top_N(A_i) ∩ A*_i| / |A*_i|, the fraction of a question's gold
// answers that are in its top N. The two agree when every question has one
// gold answer; ReQA SQuAD has 1.08 per question (ENDX Table 1), so
// Eq. 15 is a little lower. Both are reported, Eq. 15 named as such, and
// this package takes the paper's BM25 row (MRR 52.96, R@1 45.81, R@5 61.31)
// to be ReQA's measures, which its footnote points to.
//
// Retrieval goes to a fixed depth (Options.Depth, 100 by default): a gold
// answer ranked below it counts as not found, which changes MRR by less
// than 1/Depth per such question, and a tie group cut by the depth is
// ranked by the part that was retrieved.
package retrieval
