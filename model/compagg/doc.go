// Package compagg is the compare-aggregate family of rankers: CA, the
// Compare-Aggregate model of Wang & Jiang (2017) as the Cosinet paper uses
// it (static embeddings; Tables 4-6), and Comp-Clip (Bian et al. 2017) with
// the latent clustering of Yoon et al. (2019, "A Compare-Aggregate Model
// with Latent Clustering for Answer Selection"; the Comp-Clip paper here).
//
// Both read a question Q and a candidate A word by word:
//
//   - context representation (Comp-Clip paper, equation 1): every word
//     vector x becomes σ(Wⁱx + bⁱ) ⊙ tanh(Wᵘx + bᵘ), with the same weights
//     for both sentences;
//   - attention (equation 2): each candidate word attends over the question
//     words, softmax((Wᵍ Q̄ + bᵍ)ᵀ Ā), giving the question's soft alignment
//     Hᵠ to the candidate; Comp-Clip also attends the other way (Hᴬ) and
//     clips the attention (dynamic-clip attention: k-max or k-threshold,
//     nn.Tape.ClipSoftmax);
//   - comparison (equation 3): Ā ⊙ Hᵠ (and Q̄ ⊙ Hᴬ for Comp-Clip), or CA's
//     SUBMULT+NN, ReLU(W[(ā−h)⊙(ā−h); ā⊙h] + b);
//   - aggregation (equation 4): a CNN over the comparison vectors with
//     filters of widths 1 to 5, max pooling over time, and one linear layer
//     giving the score (over [Rᵠ; Rᴬ] for Comp-Clip).
//
// Latent clustering (equations 5-6) adds n latent memory vectors: a
// sentence's averaged context representation s is compared with each
// memory, p = sᵀWM, the k largest similarities are softmax-normalised
// and the memories' weighted sum is concatenated to every comparison
// vector of the side. As a constant column block before a convolution
// followed by max pooling only shifts each filter's maximum, it is applied
// as that shift, a linear map of the cluster vector added after pooling:
// the same function (with the block also present in the padding rows), at
// none of the convolution's cost.
//
// The scores are trained pointwise (binary cross-entropy, equation 8) or
// listwise (KL over a question's candidates, equation 7), and like Cosinet
// the models can end in an RNN over the candidates' aggregated vectors in
// document order (the Cosinet paper's CA_list + BiRNN).
//
// Word vectors come from an encoder.Encoder. The static one looks words up
// in frozen embeddings, as both papers' non-LM rows do. The Comp-Clip
// paper's best rows replace it with ELMo; no ELMo weights are available to
// as2, and a contextual encoder (USE-Lite's token states) plugs into the
// same seam.
package compagg
