// Package wordpiece is BERT's tokenizer: the BasicTokenizer and
// WordpieceTokenizer of google-research/bert's tokenization.py, as Hugging
// Face's BertTokenizer runs them, in pure Go.
//
// # Algorithm
//
// For each input string:
//
//  1. Clean: drop U+0000, U+FFFD and control characters (every category
//     starting with "C", as Hugging Face does; Google's code drops only Cc and
//     Cf), turn tab, newline, carriage return and Zs into spaces.
//  2. Put spaces around CJK ideographs, so each is a word of its own.
//  3. Split on white space. For each word, when uncased: lowercase it the way
//     Python's str.lower does (İ → i̇, a word-final Σ → ς), then NFD and drop
//     nonspacing marks (Mn), leaving the rest decomposed (Hangul becomes jamo).
//  4. Split off every punctuation character: ASCII 33-47, 58-64, 91-96,
//     123-126 (so "$", "^", "`" count) and Unicode P*.
//  5. WordPiece: greedy longest-match-first against the vocabulary, pieces
//     after the first prefixed by "##"; a word with more than 100 runes, or
//     with a remainder no piece matches, is a single [UNK].
//
// Special-token strings in the input ("[CLS]") are tokenized as text, as in
// tokenization.py, not recognised as specials. Invalid UTF-8 decodes to
// U+FFFD, which step 1 drops.
//
// # Files
//
// [Load] and [Read] take a vocab.txt (one token a line, line number = id)
// or a Hugging Face tokenizer.json with a WordPiece model, a BertNormalizer
// (or null) normalizer and a BertPreTokenizer; anything else is an error that
// names the field. A vocab.txt carries no casing flag: it is treated as
// uncased unless the vocabulary has upper-case pieces ([LooksCased]).
// [Tokenizer.Identity] names the vocabulary (a SHA-256 prefix of the tokens
// in id order) and casing, for model files to record.
//
// # Agreement and speed
//
// scripts/reference/wordpiece-reference.py implements the published algorithm in
// Python (standard library only) and wrote testdata/bert-uncased-ids.json:
// 326 sentences (WikiQA, SQuAD questions and paragraphs, TrecQA, and 60 hard
// cases: accents, CJK, Hangul, emoji, controls, zero-width characters, long
// words, clitics, abbreviations, numbers, tabs and newlines). With
// bert-base-uncased's vocab.txt, all 326 agree in tokens and ids
// (TestBERTReference, which skips when shared/ is absent). Python 3.11 has
// Unicode 14 and Go 15, so characters assigned in Unicode 15 may differ.
//
// BenchmarkTokenize (IDs over those sentences, bert-base-uncased, one core
// of the 2-core AMD EPYC dev machine): about 1.4 million tokens/s,
// 14 µs and 24 allocations per sentence.
//
// # Libraries considered
//
// Pure-Go WordPiece implementations exist: github.com/sugarme/tokenizer (a
// port of Hugging Face tokenizers, with a large API and dependency set for
// one ~300-line algorithm) and the buckhx/gobert family (unmaintained, 200
// runes a word instead of BERT's 100). Neither was measured against the
// fixture here; this package is small enough to own, and its agreement is
// pinned by the fixture rather than by a dependency's release cycle.
//
// # Fuzzing
//
// FuzzTokenize, FuzzLoadVocab and FuzzLoadTokenizerJSON each ran 60 s
// (0.3 M, 10 k and 1.0 M executions) without a failure.
package wordpiece
