// Package wikiqa reads the WikiQA corpus (Yang, Yih & Meek, EMNLP 2015) in
// its official seven-column TSV form:
//
//	QuestionID  Question  DocumentID  DocumentTitle  SentenceID  Sentence  Label
//
// Each question's candidates are the sentences of the summary section of one
// Wikipedia article, in document order: SentenceID is "<DocumentID>-<k>" with
// k = 0, 1, 2, ... and that order is kept as Candidate.Position. The order is a
// real, strong signal (the first correct sentence is sentence 0 for about half
// of the answered questions), which the RR baseline and the BiRNN models use.
//
// Fields are split on tabs only: the official files use no quoting and
// sentences contain literal '"' characters.
package wikiqa
