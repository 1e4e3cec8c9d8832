// Package kernel holds the numeric kernels that embed, index and nn compute
// with, below all three: float32 kernels in Go assembly with AVX2/FMA, a
// GEMM (6×16 tiles for A·B, 3×4 dot-product tiles for A·Bᵀ, dot products
// for a matrix times a vector) and the element-wise add, max, axpy and dot
// product. It is still a pure-Go build (no cgo); it lives in its own
// package because a package using cgo, as nn does with -tags openblas,
// cannot hold Go assembly, and outside nn because embed uses the dot
// product too.
//
// gonum's kernels are 4-wide SSE loops; these keep a whole C tile in
// registers and issue 8-wide FMAs, several times faster on the shapes that
// dominate our models (25×520 by 520×300 for a convolution). Callers fall
// back to gonum for everything the kernels do not cover (edges, tiny
// products, alpha ≠ 1, CPUs without AVX2, other architectures): the
// functions say when they did nothing.
package kernel
