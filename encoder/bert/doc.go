// Package bert is a BERT encoder (Devlin et al. 2019) on as2's nn engine
// that reads Hugging Face checkpoints: a directory with config.json
// (BertConfig) and model.safetensors (float32, float16 or bfloat16).
//
// Two architectures are supported: "BertModel" (an encoder: token states,
// pooled sentence vectors by [CLS], mean, max or as a sentence-transformers
// 1_Pooling/config.json says) and "BertForSequenceClassification" (a
// cross-encoder: logits from the pooled [CLS] state through the
// classifier). Tensor names may carry the "bert." prefix of task models or
// none; LayerNorm parameters may be named weight/bias or gamma/beta.
// PyTorch Linear weights [out, in] are transposed into nn's [in, out], and
// the query, key and value projections of each layer are fused into one
// [H, 3H] weight, so that one GEMM computes all three. Unknown
// architectures, missing tensors and mismatched shapes are errors naming
// the field or tensor; every tensor is checked before anything is
// allocated.
//
// The API takes token ids and token type ids (a tokenizer such as
// text/wordpiece makes them). Forward and ForwardBatch run on an nn.Tape,
// differentiably, for fine-tuning; States, Pool and Classify are batched
// inference: sequences are grouped into length buckets, each padded to
// its longest member and packed as one [B·T, H] matrix, with key-padding
// masks so that padding gets no attention (the states of real tokens equal
// those of the sequence run alone), and buckets run in parallel on
// evaluation tapes that record nothing.
//
// The Model also runs the BERT-shaped families that other packages map
// onto it at load time (Mapped, FromTensors, DecodeMapped): RoBERTa's,
// DistilBERT's without token-type embeddings (type_vocab_size 0), and
// ELECTRA's, whose embeddings may be narrower than its layers
// (embedding_size) and are projected to hidden_size after their
// LayerNorm (Clark et al. 2020, §3.2).
//
// The conformance test compares every output with a plain-PyTorch forward
// pass over tiny random checkpoints (scripts/reference/bert-reference.py writes
// testdata/).
package bert
