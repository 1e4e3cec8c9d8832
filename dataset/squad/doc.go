// Package squad turns SQuAD (Rajpurkar et al. 2016; v1.1 and v2.0 JSON)
// into sentence-level answer sentence selection, the "SQuAD-sent" of the
// Cosinet paper (Bonadiman & Moschitti 2020, section 5.1): every question
// becomes a question whose candidates are the sentences of its paragraph, in
// order, and a sentence is positive when it overlaps one of the question's
// reference answer spans, located by their character offsets.
//
// The paper split paragraphs with spaCy; as2 uses text.SplitSentences, so
// sentence counts differ slightly. An answer span that the splitter cuts in
// two marks both sentences positive. SQuAD 2.0 questions marked impossible
// have no answers and so no positive sentence.
//
// The zip of the official distribution (dev-v1.1.json.zip) is read directly,
// as are plain and gzip-compressed JSON files.
package squad
