// Package builtin is as2's built-in ranker: two neural models embedded in
// the binary (go:embed), so that as2 rank, as2 serve and Go programs rank
// well with no model file, data or download.
//
// Both models are USE-Lite, trained listwise on every training set as2
// has: WikiQA train, TrecQA TRAIN and the article-disjoint train half of
// SQuAD-sent, with negatives from other WikiQA questions
// (scripts/default-model.sh). default.as2 is a cross-encoder (package
// crossencoder), which reads the question and a candidate together;
// dual.as2 is a dual encoder (package dual), which reads each alone
// through USE-Lite's sentence head and scores by the cosine. Held out, the
// first ranks TrecQA better and the second WikiQA and SQuAD-sent. Neither
// sees a candidate's position, so neither can learn WikiQA's "the first
// sentence answers" habit. Their matrices are stored as int8 (as2
// quantize), which makes each embedded file a quarter of the float32
// model's size; docs/model-card.md gives the files' accuracy.
//
// Ranker blends the two models' scores with rule-based rankers of package
// rank (blend.json: word overlap; IDF-weighted overlap of stems; and
// answer-type, the answer's kind). The two models first get an equal say,
// each divided by the spread of its scores within a question on WikiQA
// dev and TrecQA dev (scripts/equal-say.py); then the weights are fitted
// listwise on the same dev sets with none below 0 by as2 tune blend. The
// blend and its form were chosen on the cross-dataset protocol: models
// trained with one benchmark held out ranked that benchmark's dev
// questions better blended (docs/model-card.md;
// notes/2026-11-23-builtin-model-studies.md has the forms that were not shipped).
//
// Int8Ranker is the same ranker with both models running int8 (package
// quant) on the int8 weights their files store, for the CPUs whose
// kernels have fast int8 products, and with no float32 copy of them. It
// is what as2 ranks with by default (as2.OpenRanker, as2.Select, as2
// serve): docs/model-card.md's accuracy table puts its MAP within 0.3 of
// Ranker's, float32, on WikiQA, TrecQA and SQuAD-sent test, at about
// three times the speed; as2.WithInt8(false) chooses Ranker.
//
// Calibration turns its scores into probabilities that the sentence
// answers (Platt scaling on the WikiQA dev questions, all of them, as2
// trigger), with the threshold at which a top sentence counts as an
// answer: below it for the best sentence, the document has no answer.
package builtin
