package text

import "github.com/kljensen/snowball/english"

// Stem returns the Snowball English (Porter2) stem of a lowercase token:
// "invented", "inventing" and "invention" all become "invent", so that a
// lexical ranker matches a question's word in another form. It strips
// suffixes and does not lemmatise: "sold" and "sell" stay apart. Tokens of
// one or two letters come back unchanged, and so do numbers and
// punctuation; stopwords are stemmed like any word.
func Stem(tok string) string { return english.Stem(tok, true) }
