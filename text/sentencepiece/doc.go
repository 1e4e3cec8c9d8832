// Package sentencepiece segments text with a SentencePiece unigram model:
// Viterbi over a vocabulary of pieces scored with log probabilities, "▁"
// (U+2581) marking the start of each word. It needs no protobuf: pieces come
// from a list ([New]), from USE-Lite's vocab.json ([ReadUSELite]) or from a
// Hugging Face tokenizer.json with a Unigram model ([ReadTokenizerJSON]);
// [Load] picks by content.
//
// # Algorithms
//
// Three implementations of the same idea differ in corner cases, and a model
// must be fed the ids it was trained with, so [Options.Algorithm] selects
// whose behaviour to reproduce exactly:
//
//   - SentencePiece (the C++ library): nmt_nfkc normalisation ([NMTNFKC]),
//     spaces trimmed and collapsed, a "▁" prefix, float32 scores, ties keep
//     the earlier candidate, an unknown character scores min(score) - 10 and
//     runs of unknowns become one unknown piece. Control pieces (<s>) never
//     match text; user-defined pieces get sentencepiece's bonus.
//   - HuggingFace (tokenizers' Unigram): the same in float64, with every
//     vocabulary entry matchable, and Metaspace's prefix: "▁" is put in
//     front only where the normalized text does not already start with a
//     space.
//   - USELiteJS: the tokenizer in USE-Lite's JavaScript runtime, documented
//     at [ReadUSELite]. It differs from SentencePiece a lot: NFKC only, no
//     trimming or collapsing (each ASCII space is its own "▁"; tabs and
//     newlines are kept as characters), unknown characters score 0 instead
//     of a penalty, null scores in vocab.json count as 0, a later candidate
//     wins ties, a best score of exactly 0 counts as "unset", and the
//     backtrack steps by UTF-16 length. Ids are vocabulary indices with no
//     offset; 0 is the unknown id and 1-5 are reserved.
//
// # Agreement and speed
//
// testdata/use-lite-ids.json holds 300 sentences (140 WikiQA test
// sentences, 100 SQuAD questions, 60 hard cases: accents, CJK, Hangul,
// emoji, digits and times, punctuation runs, runs of spaces, tabs, the empty
// string, unknown characters, the null-scored colon pieces) with the ids
// that the runtime itself gives (scripts/reference/use-lite/tokenize-reference.mjs,
// node 20). All 300 agree (TestUSELiteReference; it unpacks vocab.json from
// the npm tarball in shared/ and skips when shared/ is absent). Replacing
// the runtime's ">=" by ">" breaks one of them; the UTF-16 backtracking
// never matters for this vocabulary (no piece has an astral character).
//
// testdata/spm-unigram.json holds a unigram model of 800 pieces trained by
// scripts/reference/sentencepiece-reference.py with Debian's python3-sentencepiece
// 0.1.97 on WikiQA sentences, and spm's pieces and ids for 208 sentences
// (103 WikiQA, 70 SQuAD, 35 hard cases): all 208 agree
// (TestSentencePieceReference, which needs nothing from shared/).
//
// BenchmarkTokenize on the USE-Lite fixture sentences, one core of the
// 2-core AMD EPYC dev machine: about 0.7 million tokens/s for USE-Lite (38
// µs a sentence) and 0.75 million for the 800-piece spm model.
//
// Not supported: BPE models, n-best and sampling, and decoding ids back to
// text. A tokenizer.json "Precompiled" normalizer is taken to be nmt_nfkc
// (its compiled table is not decoded); Metaspace splitting is treated as
// equivalent to whole-text Viterbi, which holds while no piece has "▁"
// after its first character.
//
// Fuzzing: FuzzTokenize (both algorithms; pieces must spell the normalized
// input), FuzzLoadVocabJSON and FuzzLoadTokenizerJSON each ran 60 s (0.23 M,
// 0.43 M and 0.92 M executions) without a failure.
package sentencepiece
