// Package dataset holds the one in-memory shape every as2 benchmark is read
// into: a question with its candidate sentences, in their original order
// (document order for WikiQA and SQuAD-sent, retrieval rank for search hits),
// each with an id, its text, its position and its label.
//
// The readers for the public benchmarks live in sub-packages (wikiqa, trecqa,
// squad); this package reads and writes as2's own generic formats, JSONL
// (one question per line) and TSV (one candidate per line), and provides
// what every experiment needs on top: evaluation subsets, seeded candidate
// shuffling, and the statistics of Table 2 of the Cosinet paper
// (Bonadiman & Moschitti 2020, section 2.1).
//
// Position is the candidate's place in the original list, counted from 0. It
// is a legitimate signal where the order is real (WikiQA, SQuAD-sent) and a
// leak where it is not: TrecQA stores each question's positives first, so its
// reader shuffles candidates with a fixed seed and renumbers positions (see
// Shuffle).
package dataset
