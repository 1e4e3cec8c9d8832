// Package cosinet is the Cosinet ranker of Bonadiman & Moschitti (2020,
// "A Study on Efficiency, Accuracy and Document Structure for Answer
// Sentence Selection", section 4):
//
//   - word relatedness (4.1.1): every word of the question gets
//     r_i = max_j cos(w_i^q, w_j^c) over the candidate's words, and every
//     candidate word the symmetric value, appended to its static embedding;
//   - question-candidate encoder (4.1.2): one CNN per side (kernel 5, 300
//     filters), global max pooling, and the pair vector [q ⊙ c; q − c];
//   - global optimisation (4.2): optionally an RNN, BiRNN, LSTM, BiLSTM, GRU
//     or BiGRU over the pair vectors of all of a question's candidates in
//     document order, then one linear layer giving each candidate's score,
//     trained listwise (softmax over the candidates, KL divergence to the
//     normalised gold labels) or pointwise (binary cross-entropy).
//
// Beyond the paper, and off unless asked for: an exact-match channel (the
// word, not only its vector, occurs in the other sentence: GloVe has no
// vectors for numbers or single letters, which then still match), and two
// candidate-level features fed to the scorer, the share of question words
// the candidate contains and its reciprocal original rank.
//
// The word embeddings stay frozen, as in the paper, so the encoder's
// convolution needs no input gradient: it runs through embedConv (this
// package's own op, on nn's extension API), which projects each distinct word once and trains from the max-pooled positions
// only.
package cosinet
