// Package builtin is as2's built-in ranker: a neural model embedded in
// the binary (go:embed), so that as2 rank, as2 serve and Go programs rank
// well with no model file, data or download.
//
// The model is the USE-Lite cross-encoder (package crossencoder) trained
// listwise on every training set as2 has: WikiQA train, TrecQA TRAIN and
// the article-disjoint train half of SQuAD-sent, with negatives from other
// WikiQA questions (scripts/default-model.sh). It reads the question and a
// candidate together and sees no candidate's position, so it cannot learn
// WikiQA's "the first sentence answers" habit. Its matrices are stored as
// int8 (as2 quantize), which makes the embedded file a quarter of the
// float32 model's size; the README gives both files' accuracy.
//
// Ranker blends the model's score with rule-based rankers of package rank
// (blend.json: word overlap, plain and stemmed; IDF-weighted overlap of
// stems; and answer-type, the answer's kind), weights fitted listwise on
// WikiQA dev and TrecQA dev with none below 0 by as2 tune blend. The blend
// and its form were chosen on the cross-dataset protocol: models trained
// with one benchmark held out ranked that benchmark's dev questions better
// blended (README, "The built-in model"; docs/builtin-model.md has the
// forms that were not shipped).
//
// Calibration turns its scores into probabilities that the sentence
// answers (Platt scaling on the WikiQA dev questions, all of them, as2
// trigger), with the threshold at which a top sentence counts as an
// answer: below it for the best sentence, the document has no answer.
package builtin
