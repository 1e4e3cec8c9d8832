// Package encoder is the seam between text and the rankers: an Encoder
// turns a sentence into token states, one row per token, that an
// architecture builds on. It owns its tokenizer and its tensors, so a model
// that uses it need not know whether the states are static word vectors
// (Static, over GloVe), or come from a pretrained transformer.
//
// Sentences are tokenised once, outside the forward pass (Tokenize), and
// encoded on a tape (Encode), so that training tokenises a dataset once and
// a request tokenises each sentence once.
//
// Model files record an encoder by its Spec (kind, tokenizer, identity of
// the weights, dimensions and, for static vectors, the vocabulary) and its
// Tensors; Decode rebuilds it through the decoder its kind registered.
package encoder
