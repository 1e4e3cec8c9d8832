// Package text turns raw text into what the as2 rankers consume: lowercase
// tokens and sentences with byte offsets.
//
// # Tokens
//
// [Tokenize] is built on Unicode word segmentation (UAX #29, via
// github.com/rivo/uniseg), so it handles accented Latin (Zürich, naïve),
// CJK (one token per ideograph), emoji and mixed scripts without hand-written
// regular expressions. On top of UAX #29 it:
//
//   - lowercases the whole input with [strings.ToLower] (full Unicode rules);
//   - drops white space and invisible segments (controls, format characters
//     such as U+200B or a soft hyphen, lone combining marks);
//   - keeps numbers whole: "3.5", "1,000", "1990s";
//   - makes every punctuation mark its own token: `"`, "(", ",", ".", "-";
//   - maps typographic quotes to ASCII (‘ ’ to ', “ ” to ") because the
//     GloVe vocabulary only has the ASCII forms;
//   - splits English clitics the Penn Treebank way that GloVe 6B was
//     tokenized with: "don't" → "do" "n't", "can't" → "ca" "n't",
//     "John's" → "john" "'s", and likewise 're 'll 've 'd 'm;
//   - keeps dotted abbreviations and a few common ones with their period:
//     "U.S." → "u.s.", "e.g." → "e.g.", "Mr." → "mr." (GloVe has these).
//
// Hyphenated words are split, which is what UAX #29 does: "well-known" →
// "well" "-" "known". GloVe has entries for both forms, and the pieces make
// lexical rankers (word overlap, BM25) match "known" against "well-known".
//
// Invalid UTF-8 never panics: strings.ToLower replaces every invalid byte by
// U+FFFD, and each U+FFFD becomes a token of its own. Because the whole
// pipeline works on the lowercased string, Tokenize(strings.ToLower(s)) ==
// Tokenize(s) for every s.
//
// # Sentences
//
// [SplitSentences] starts from UAX #29 sentence boundaries and repairs the
// cases that matter for Wikipedia and SQuAD paragraphs: it does not split
// after titles ("Mr.", "Dr.", "Gen."), "e.g.", "i.e.", "vs.", initials
// ("J. R. R. Tolkien", "George W. Bush") and dotted abbreviations ("U.S.")
// unless the next word is a typical sentence opener ("The", "He", "In", …),
// nor after "No." / "c." / "pp." before a number. It does not split before a
// lowercase word (`"Why?" he asked`, "Yahoo! is"), and keeps Wikipedia
// references with their sentence ("in 1990.[1] He" splits after "[1]"). A
// sentence never ends in the middle of a UAX #29 word. Line breaks always end
// a sentence (UAX #29 treats them as paragraph separators); a period without
// a following space ("big.It") never does.
//
// Every [Sentence] carries the byte offsets of its text in the input, so
// that a SQuAD reader can map answer offsets to sentences:
// s[sent.Start:sent.End] == sent.Text, sentences are in order, do not
// overlap, and together cover every non-space character of s exactly once.
//
// # Stopwords
//
// [IsStopword], [Stopwords] and [RemoveStopwords] use the NLTK English list,
// extended with the clitic tokens that Tokenize produces ("n't", "'s", …).
//
// # Stems
//
// [Stem] reduces a token to its Snowball English (Porter2) stem, via
// github.com/kljensen/snowball: the lexical rankers' "-stem" forms match
// stems, as Anserini's default English analysis does with Porter's.
package text
