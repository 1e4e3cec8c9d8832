// Package nn is as2's small neural-network engine: dense tensors, a
// define-by-run autograd tape, the layers answer sentence selection models
// need (embeddings, 1-D convolutions, pooling, recurrent layers, attention,
// layer norm), losses, Adam/AdamW and a slanted triangular schedule, sized
// for training on a couple of ordinary CPU cores.
//
// # Tensors and precision
//
// A Tensor is a dense row-major array, almost always a vector [n] or a
// matrix [rows, cols]; a sentence is a [T, D] matrix with one row per token.
// Everything is generic over Float (float32 | float64): models train in
// float32, while gradient checks run the very same code in float64, where
// central finite differences are accurate to ~1e-9 (see gradcheck_test.go:
// every differentiable op and layer is checked that way).
//
// # Autograd: the Tape
//
// Ops are methods of a Tape. Each computes its result immediately and, if
// any input needs a gradient, records a closure that pushes the output
// gradient back to the inputs (always accumulating, so Vars can be reused).
// Backward replays the closures in reverse order. Intermediate values and
// gradients are carved out of an arena that Tape.Reset recycles, so a loop
// that reuses its tape allocates little tensor memory. Variables come from
// tp.Const (inputs, frozen data: no gradient), tp.Param (trainable; the
// gradient goes to the tape's Grads) and tp.Leaf (a gradient wanted for
// inspection). A tape in evaluation mode (SetTrain(false)) records nothing
// for parameters and disables dropout, so inference runs forward only.
//
// The CNN and RNN layers process a sentence at its own length, never padded.
// The transformer layers also take batches of sequences packed as [B·T, D]
// and padded to a common T per length bucket; AttentionMask's key lengths
// keep padded keys out of every softmax, so a sequence's states do not
// depend on its batch. Conv1d is a GEMM over
// the unfolded input; its backward pass notices when the output gradient is
// sparse (after a global max pool only one step per filter gets gradient)
// and then builds the weight gradient from those rows only. A tip for
// models: ReLU after MaxPool equals MaxPool after ReLU and costs T times less.
//
// # Parameters, gradients, data parallelism
//
// Params is an ordered, named set of parameter tensors ("conv_q.weight"),
// iterated in creation order: the hook for model files (Param.Float32s,
// Param.SetFloat32s). Grads holds one gradient buffer per parameter. For
// data parallelism each worker goroutine owns a Tape bound to its own
// Grads, reads the shared parameters, and the buffers are summed with
// Grads.Add before the optimiser step; Workers packages that pattern with a
// static item-to-worker assignment and a fixed reduction order, so results
// do not depend on scheduling. No locks are taken on the hot path.
//
// # BLAS backends
//
// Matrix products go through one function (gemm in blas.go) backed by:
//
//   - default: pure Go, so that CGO_ENABLED=0 go build ./... works
//     anywhere. float32 products run on package kernel's micro-kernels in
//     Go assembly (AVX-512 12×32 tiles, or AVX2/FMA 6×16 tiles for A·B and
//     3×4 dot-product tiles for A·Bᵀ, picked at start-up from the CPU;
//     kernel.EnvVar forces a lower path), ~5× faster than gonum's SSE
//     loops, and fall back to gonum's BLAS for edges, tiny products and
//     other CPUs; float64 (gradient checks) always uses gonum;
//   - -tags openblas (cgo; Debian: apt-get install libopenblas-dev): OpenBLAS
//     sgemm/dgemm through a minimal cgo binding, several times faster.
//
// OpenBLAS chooses its kernels when the shared library loads, from
// OPENBLAS_CORETYPE if set; builds that do not recognise a newer CPU (such
// as Debian's 0.3.21 on some machines) silently fall back to slow generic
// kernels. Because the variable is read before any Go code runs, it cannot
// simply be set with os.Setenv: EnsureBLASEnv, called first thing in main
// (and in TestMain), sets it from /proc/cpuinfo (avx512f → SkylakeX, avx2 →
// Haswell) when unset, also sets OPENBLAS_NUM_THREADS=1 when unset, and
// re-executes the binary with syscall.Exec. The openblas build also limits
// OpenBLAS to one thread at start-up unless OPENBLAS_NUM_THREADS is set: we
// parallelise across questions ourselves, and OpenBLAS threads would only
// contend for the same cores. BLASName reports the backend and the kernel
// family actually in use ("pure Go, AVX-512 kernels", "openblas skylakex"). In the
// default build EnsureBLASEnv does nothing.
//
// # Training
//
// NewAdam / NewAdamW (Kingma & Ba 2015; Loshchilov & Hutter 2019) update
// parameters from a Grads with a learning rate per step, typically from
// SlantedTriangular (Howard & Ruder 2018), scaled per parameter by
// Adam.LRScale where set. Grads.ClipNorm clips the global
// norm; Grads.CheckFinite and Params.CheckFinite name the first NaN/Inf so
// a loop can stop with the step number. Initialisers (GlorotUniform,
// Orthogonal, Uniform, Normal) take a seeded math/rand/v2 PCG from NewRNG.
package nn
