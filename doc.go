// Package as2 selects the sentences that answer a question (answer
// sentence selection): it ranks candidate sentences for a question with a
// neural model, a rule-based ranker, or a cascade of them, says whether
// the best one answers at all, and serves all of that over HTTP. The as2
// command (cmd/as2) is a thin shell over this package.
//
// # The front door
//
// The few-line path ranks a paragraph's sentences with the built-in model,
// which is embedded in the binary and calibrated:
//
//	sel, err := as2.Select(ctx, "Who wrote Hamlet?", paragraph)
//	// sel.Sentences[0] is the best sentence, sel.Probability the
//	// probability that it answers, sel.Answer false means "no answer".
//
// OpenRanker turns a spec, the same one the command's --ranker, --model
// and --cascade read, into a rank.Ranker:
//
//	builtin                        the built-in model (CalibrationOf gives its calibration)
//	bm25, wo+rr, bm25-stem, ...    rule-based rankers (rank.NamesHelp)
//	m.as2, file:NAME               a model file (as2 train, as2 import)
//	blend.json                     a blend of rankers (as2 tune blend)
//	system.run                     a TREC run's scores
//	hf-folder/                     a Hugging Face cross-encoder checkpoint
//	cascade:bm25:100,x=m.as2:10    a cascade: each stage passes its best K on
//
// NewServer builds the server as2 serve runs (rankers, cascades,
// calibrations, answer indexes, hybrid retrieval) from a ServerConfig, so
// that a Go program serves as2 without a main of its own; OpenIndex opens
// an answer index file for search.
//
// # The packages, by layer
//
// Each layer imports only those below it (layers_test.go checks):
//
//   - kernel, safetensors: float32 and int8 vector kernels; the
//     safetensors format.
//   - text: tokens, sentences, stems; the subword tokenizers (WordPiece,
//     SentencePiece, byte-level BPE, Hugging Face tokenizer.json).
//   - dataset (and its benchmarks), metric, trec: questions and their
//     candidates; MAP, MRR, P@k as trec_eval computes them; TREC runs and
//     qrels.
//   - rank (rank/blend, rank/cascade), trigger: the Ranker interface and
//     the rule-based rankers, blends and cascades; answer triggering, the
//     calibration that says "no answer", and the selection both Select
//     and the service compute.
//   - embed, index, evaluation: sentence vectors; answer indexes (flat,
//     binary, HNSW, BM25); evaluating rankers and retrievers.
//   - nn, encoder, model: the neural engine; sentence encoders (BERT,
//     RoBERTa and XLM-R, USE-Lite); the trainable architectures and model
//     files, and model/builtin, the built-in model.
//   - train, serve, bench, regression: training recipes; the HTTP service;
//     benchmarks; the regression table.
package as2
