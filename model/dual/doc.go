// Package dual is the dual encoder for answer retrieval, and ENDX, its
// training with a cross-encoder and the Geometry Alignment Mechanism
// (Wang et al., "Enhancing Dual-Encoders with Question and Answer
// Cross-Embeddings for Answer Retrieval", the ENDX paper).
//
// # Dual encoder (section 3.2)
//
// A question and an answer are encoded independently: the encoder's token
// states (static GloVe vectors, USE-Lite, ...) go through a sequence layer
// (an RNN, GRU or LSTM, one- or bidirectional, or a 2-layer transformer)
// and an aggregator, multi-hop self-attention (Lin et al. 2017: A =
// softmax(W_s2 tanh(W_s1 Hᵀ)), the embedding is the flattened A·H, with
// Lin's penalty ‖AAᵀ − I‖²_F optional) or mean pooling. The question and
// answer towers are one shared tower or two (Hyper.Shared). The score is
// the inner product f(q, a) = R_q^dual · R_a^dual, so answers can be
// encoded offline into an index (package index; Encoder is its
// index.Encoder). Training is the in-batch softmax of Eq. 1
// (model.InBatchSoftmax; train.InBatch), where the batch's other answers
// are each question's negatives. As a rank.Ranker the model scores a
// question's candidates by the same inner product.
//
// # Fine-tuning a pretrained encoder
//
// The paper fine-tunes BERT under its towers. Over a transformer encoder
// with a sentence head of its own (encoder.SentenceHead: USE-Lite's mean,
// tanh layer and l2 normalisation), Layer "none" with Pool "encoder" makes
// the towers that head, so an untrained model retrieves exactly as the
// zero-shot encoder does, and Hyper.FineTune adopts the encoder's weights
// as the model's (saved as encoder.*) so that training moves them. Unit
// vectors score in [-1, 1], too flat for the in-batch softmax:
// Hyper.Scale multiplies the training scores (20, as sentence-embedding
// training commonly uses).
//
// # ENDX (sections 3.3 to 3.5)
//
// With Hyper.ENDX, training adds a cross-encoder: its own sequence layer
// gives H_q and H_a, and multi-head cross-attention both ways refines each
// by its matched sentence (Eq. 2-3; the answer-attended question
// H'_q = MHA(queries H_a, keys and values H_q)), then
// H^cross = LayerNorm(H' + FFN(H')) (Eq. 4), aggregated like the dual
// side into R^cross, trained by its own in-batch softmax L_cross (Eq. 5).
// The Geometry Alignment Mechanism turns each side's in-batch inner
// products into neighbour distributions p(a_j|q_i), p(q_j|a_i),
// p(q_j|q_i) and p(a_j|a_i) (Eq. 6-8 with the inner-product kernel of
// Eq. 10), and L_x = (1/B) Σ_i KL(p_cross(·|i) ‖ p_dual(·|i)) (Eq. 11);
// L_ga = Σ α_x L_x (Eq. 12). The loss is
// α_dual·L_dual + α_cross·L_cross + α_ga·L_ga (Eq. 13; 0.25, 0.25, 0.5),
// with the four α_x ramped linearly from 0 over the first Hyper.Ramp
// epochs (section 4.4). Only the dual encoder is used at inference; the
// cross side is saved with the model but never runs outside training.
//
// The paper does not say whether GAM's gradient reaches the cross side;
// Hyper.StopGrad cuts it (the cross distributions are then targets). A
// zero α_x drops that term (the paper's Table 5 ablation).
//
// Hyper.GAMTemp, as2's addition, divides the cross side's inner products
// in GAM's target distributions, as distillation softens a teacher
// (Hinton et al. 2015). The cross-embeddings leave a LayerNorm, so their
// inner products run to hundreds where the dual side's run to tens: at the
// paper's plain kernel (Eq. 10) every target is nearly one-hot, a hard
// label that is sometimes wrong, and says nothing of which other answers
// are near. On a ReQA dev pool a temperature of 20 to 50 lifts ENDX-LSTM
// above its dual encoder, where the plain kernel leaves it under (notes/2026-11-23-reqa-answer-retrieval.md);
// 50 is the recipe's. Hyper.GAMDualTemp divides the dual side's inner
// products in GAM the same way (distillation's softened student). A
// transformer tower ends in LayerNorm, so its vectors cannot shrink to
// match soft targets and pull together instead; it needs both.
// Hyper.GAMStart, also as2's, holds GAM back for that many epochs, so that
// the cross side, trained from scratch, ranks the batch before it is a
// target; over a pretrained dual side (USE-Lite) the paper's schedule has
// GAM pull a good geometry towards an untrained one.
//
// Over --pool encoder the cross side ends in the same unit-vector head as
// the dual one, so Hyper.CrossScale must scale its inner products as
// Hyper.Scale does the dual side's: unscaled, L_cross cannot sharpen and
// GAM's targets are near uniform. Hyper.CrossDetach gives the cross side
// the shared encoder's token states as constants, as if Encoder_cross were
// its own (section 3.3), so that L_cross does not retrain the dual side's
// encoder. Hyper.CrossLRScale multiplies the learning rate of the cross
// side's own layers (model.LRScaler): they start random, and a fine-tuned
// encoder's rate of 2e-5 barely moves them in the epochs that fine-tuning
// takes. Hyper.CrossResidual makes each cross-embedding the dual one (a
// constant) plus a gated cross-attention vector, the gate starting at 0:
// the cross side then starts as the dual side's geometry, where GAM's KL is
// 0, and L_cross trains only what the cross-attention adds to it.
//
// Under model.SharedAnswerSoftmax (as2 train --objective
// shared-answer-softmax) a batch may hold an answer more than once: the
// training loop puts the questions that share an answer together, and
// each counts every copy of its answer correct, in L_dual and L_cross
// alike. Two questions of one answer then meet in a batch, where GAM's
// q|q term can pull them together; the paper finds ENDX's gain largest on
// such answers (section 4.5, Fig. 2).
//
// A trained ranker can be the teacher instead of a cross side trained
// alongside: model.InBatchDistilled, as2's variant of GAM's a|q term,
// scores each question's answer and its hardest in-batch answers with
// any rank.Ranker (as2 train --distill). With ENDX the loss is refused,
// since the cross side would learn from the teacher as well.
package dual
