// Package reqa builds ReQA SQuAD (Ahmad et al. 2019, "ReQA: An Evaluation
// for End-to-End Answer Retrieval Models"), the sentence-level answer
// retrieval benchmark of the ENDX paper (section 4.1, Table 1), from
// SQuAD v1.1 dev, and reads and writes it.
//
// # The recipe
//
// ReQA's own code (google/retrieval-qa-eval, squad_eval.py) is followed:
//
//   - every sentence of every paragraph goes into one open pool of
//     answers, deduplicated by (sentence, paragraph): a sentence repeated
//     inside a paragraph is one answer, the same sentence in two
//     paragraphs is two;
//   - a question's gold sentence, for each of its reference answers, is
//     the sentence that contains the answer's start (not every sentence the
//     answer span overlaps, as SQuAD-sent labels them); when the start
//     falls in the white space between two sentences, the next sentence;
//   - a question is gold for every answer of the pool whose text equals one
//     of its gold sentences, since ReQA's code looks gold sentences up by
//     their text (response_index), and no text-only retriever can tell
//     two identical sentences apart;
//   - questions with the same text are one question, their gold answers
//     joined, since ReQA's code keys its ranks by question text: SQuAD v1.1
//     dev's 10,570 questions are 10,539, the #Q of the ENDX paper's Table 1.
//
// The full pool has 10,280 answers and 10,539 questions, with 1.08 gold
// answers per question and 7,082 distinct gold answers (ENDX Table 1:
// 10,539 questions, 1.08, and 7,087 "#A", which counts gold answers).
//
// Paragraphs are split into sentences by text.SplitSentences, the splitter
// of as2's SQuAD reader (package squad): UAX #29 sentence boundaries
// (github.com/rivo/uniseg) with as2's abbreviation rules. ReQA used its
// own rule-based splitter (sb_sed.py), so pool sizes differ slightly: ReQA
// reports an index of 10,250 sentences for SQuAD v1.1 dev.
//
// The pool can be built for the whole dev set or for one of its
// article-disjoint halves (squad.Splits: train, test; dataset/squad's
// halves.tsv), so that a model trained on one half is tested on the other.
// Answer ids are squad's candidate ids, "p<paragraph>-<sentence>", with
// the paragraph counted over the whole dev file, so an answer has the same
// id in a half's pool as in the full one.
//
// # The file
//
// A pool is written as JSONL (Write, Read, ReadFile): a header line, then
// one line per answer, then one line per question:
//
//	{"type":"header","format":"as2-reqa","version":1,"source":"squad-v1.1-dev","split":"test","answers":4783,"questions":5267}
//	{"type":"answer","id":"p0-0","text":"Super Bowl 50 was …","paragraph":0,"article":"Super_Bowl_50"}
//	{"type":"question","id":"56be4db0acb8001400a502ec","text":"Which NFL team …","gold":["p0-2"]}
//
// Read checks the header (format and version), every line's fields, that
// ids are unique, that gold ids name answers of the file and that the
// counts match the header (so a truncated file is refused), and reports
// errors as file:line.
package reqa
