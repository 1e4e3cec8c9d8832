// Package kernel holds the numeric kernels that embed, index and nn compute
// with, below all three: float32 kernels in Go assembly, a GEMM (A·B,
// A·Bᵀ, a matrix times a vector), an int8 GEMM, the transformer's row
// operations (softmax's maximum and exponentials, GELU, LayerNorm) and the
// element-wise add, max, axpy and dot product. It is still a pure-Go build
// (no cgo); it lives in its own package because a package using cgo, as nn
// does with -tags openblas, cannot hold Go assembly, and outside nn
// because embed uses the dot product too.
//
// # Paths
//
// Three paths, picked once at start-up from the CPU's features
// (golang.org/x/sys/cpu): AVX512 (AVX-512 F/BW/DQ/VL; the int8 GEMM also
// uses VNNI's VPDPBUSD where present), AVX2 (AVX2 and FMA), and Generic
// (plain Go, and gonum for the float GEMM). The environment variable
// AS2_KERNEL (EnvVar) = generic, avx2 or avx512 forces a lower path, so
// that tests and CI run each on one machine; Describe says which runs and
// why, for `as2 bench` and reports. Every path is tested against the
// generic one (run the tests under each AS2_KERNEL value; the kernel
// package's own tests also switch paths in-process).
//
// # Float GEMM
//
// gonum's kernels are 4-wide SSE loops; these keep a whole C tile in
// registers: on AVX-512, 12×32 tiles (24 ZMM accumulators) with masked
// loads and stores for the last columns; on AVX2, 6×16 tiles for A·B and
// 3×4 dot-product tiles for A·Bᵀ. Callers fall back to gonum for
// everything the kernels do not cover (tiny products, alpha ≠ 1, the
// generic path): Gemm says when it did nothing. On Zen 4, which runs a
// 512-bit FMA as two 256-bit halves, the AVX-512 tiles gain 1.1–1.4× over
// the AVX2 ones (BenchmarkGemmMiniLM); attention's A·Bᵀ gains most.
//
// # Row kernels
//
// ExpScaled and GELU (8 wide on AVX2, 16 wide with masked tails on
// AVX-512), MaxOf, Scale and LayerNormRow (AVX-512; Go loops elsewhere)
// are the transformer's softmax, feed-forward activation and LayerNorm
// (BenchmarkRowKernels).
//
// # int8 GEMM
//
// GemmInt8 multiplies float32 activations by an Int8Matrix (int8 weights,
// a float32 scale per output, or per input for weights stored [in, out]),
// quantising each row of activations at run time and summing in int32:
// VPDPBUSD on AVX-512 VNNI, VPMADDUBSW/VPMADDWD on AVX2, Go otherwise.
// int8.go documents how each path avoids saturation; the int32 sums are
// equal on every path, and the error against float is bounded by the
// activations' rounding (a_i/2·Σ|W[j,:]| per output). On VNNI, an input
// with no negative value and mostly zero groups of four (a ReLU's output)
// runs a sparse kernel over its non-zero groups only: the same sums, and
// the same bits out.
package kernel
