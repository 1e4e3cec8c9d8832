// Package bench measures as2 on this machine: the throughput of training
// and scoring, the accuracy and latency of cascades, the service under
// concurrent load, what storing answers costs (the HAS paper's Table 6),
// and the answer indexes on pools of up to millions of vectors.
//
// It takes opened values (a rank.Ranker, a flat index and its encoder, a
// HAS model) and returns reports that print as a table or as JSON, so the
// as2 bench command only parses flags, opens what they name, and prints.
// Every report names the machine it ran on, with the numeric kernels (see
// Kernels), because figures from different machines or kernels do not
// compare.
//
// Speed is what this package measures, so its own tests check the logic
// (padding, recall@k, percentiles, the memory model), never a timing.
package bench
