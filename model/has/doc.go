// Package has is HAS, hashing-based answer selection (Xu & Li, "Hashing
// based Answer Selection", AAAI 2020; ../shared/papers/hashing-based-answer-
// selection.md), with its like-for-like baselines over one encoder.
//
// The network (the paper's Figure 1(b)):
//
//   - embedding and encoding layers: any as2 encoder's token states
//     (static GloVe vectors by default, the family of the paper's non-BERT
//     baselines) under a BiLSTM shared by question and answer, giving
//     U_q and V_a [L, D] with D = 2·--hidden (section "Embedding Layer and
//     Encoding Layer", where the paper uses BERT); or, as the paper does
//     with BERT, no BiLSTM (Hyper.Layer LayerNone): a transformer encoder's
//     own states, D its width, with its weights fine-tuned (Hyper.FineTune;
//     they are then the model's, saved as encoder.*);
//   - hashing layer (section "Hashing Layer", equation 1): B_a = tanh(β·V_a),
//     whose derivative is β(1 − B²); the binary constraint (equation 2)
//     J^c(a) = ‖B_a − 𝓑_a‖²_F pulls B_a towards a binary 𝓑_a ∈ {±1}^{L×D}
//     kept for every training answer and updated alternately with the
//     weights as 𝓑_a = sgn(B_a) (after Li, Wang & Kang 2016): in each step
//     the codes of the step's answers are set from the current weights,
//     then the weights move with the codes fixed;
//   - composition layer: the question is max-pooled, u_q = max_pool(U_q);
//     the answer is composed by additive attention,
//     v_a = Σ α_i b_i with α_i ∝ exp(mᵀ tanh(W₁b_i + W₂u_q)), W₁, W₂ [M, D];
//   - similarity layer: s(q, a) = cos(u_q, v_a).
//
// The loss (section "Similarity Layer and Loss Function") is the triplet
// hinge max(0, 0.1 − s(q,p) + s(q,n)) (model.TripletHinge, train with
// --objective triplet) plus δ·(J^c(p) + J^c(n)) per triplet. The paper
// draws n at random; by default every other candidate of the question is
// a negative, and train --negatives N draws N of them afresh each epoch. The model adds the
// constraint in its own Loss (model.Trainable), so training needs no hook.
//
// At test time B_a is replaced by 𝓑_a = sgn(V_a): answer word states are
// ±1, and an answer pool can be encoded once (Model.EncodeAnswers) into
// an index.Matrices of bit-packed rows (1 bit per element) that a
// question (Model.EncodeQuestion) is scored against without re-encoding
// the answers (the paper's Table 6 setting): Model is an index.Encoder.
//
// Hyper.Mode selects the variant, all over the same encoder, so that the
// paper's Table 5 comparison can be run like for like:
//
//   - "pooling": a dual encoder, cos(max_pool(U_q), max_pool(V_a))
//     (BERT-pooling in Table 5);
//   - "attention": the composition layer over the float states V_a
//     (BERT-attention);
//   - "hash": HAS, the composition layer over the hashed states.
package has
