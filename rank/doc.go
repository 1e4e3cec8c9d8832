// Package rank defines Ranker, the one small interface every as2 ranker
// implements, the way every HTTP handler implements http.Handler: the
// rule-based baselines here, the neural models, and cascades of rankers.
//
// A Ranker scores the candidates of a question, higher meaning more likely to
// answer it. Rankers never read candidate labels. Order turns scores into a
// ranking and breaks ties by the candidates' original position (document
// order), so a tie never favours a candidate for where a label-sorted file put
// it once that order is shuffled (see dataset.Shuffle).
//
// The rule-based rankers are the baselines of the Cosinet paper (Bonadiman &
// Moschitti 2020, section 2.1): RR (the original order), WO (unique words
// shared by question and candidate) and WO+RR (WO, ties broken by position),
// plus Jaccard, BM25, IDF-weighted overlap and bigram overlap (the
// question's word pairs that a candidate holds in order). Each
// word-matching one has a "-stem" form ("bm25-stem") that drops stopwords
// and matches Snowball stems (text.Stem), as Anserini's BM25 does by
// default; the plain forms match words as written, as the paper's WO
// does. A "-gated" form ("bm25-stem-gated", Gated) multiplies a
// word-matching ranker's scores by how much of the question its best
// candidate covers, a feature for blends. AnswerType matches no words: it
// checks that a candidate holds the kind of answer the question asks for (a
// number, a date, a name), a feature for blends too.
package rank
