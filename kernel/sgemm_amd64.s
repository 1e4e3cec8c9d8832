//go:build amd64 && !purego

#include "textflag.h"

// func kernNN6x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
//
// C[0:6, 0:16] += A[0:6, 0:k] · B[0:k, 0:16], row-major, strides in
// elements. Twelve YMM accumulators hold the 6×16 tile; each step broadcasts
// one element of each A row and multiplies it with one 16-wide row of B.
TEXT ·kernNN6x16(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $2, R8
	MOVQ b+24(FP), BX
	MOVQ ldb+32(FP), R10
	SHLQ $2, R10
	LEAQ (SI)(R8*2), R9
	ADDQ R8, R9              // R9 = row 3 of A
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ CX, CX
	JE nnstore

nnloop:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (SI)(R8*1), Y14
	VFMADD231PS Y12, Y14, Y2
	VFMADD231PS Y13, Y14, Y3
	VBROADCASTSS (SI)(R8*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (R9), Y14
	VFMADD231PS Y12, Y14, Y6
	VFMADD231PS Y13, Y14, Y7
	VBROADCASTSS (R9)(R8*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (R9)(R8*2), Y14
	VFMADD231PS Y12, Y14, Y10
	VFMADD231PS Y13, Y14, Y11
	ADDQ $4, SI
	ADDQ $4, R9
	ADDQ R10, BX
	DECQ CX
	JNE nnloop

nnstore:
	MOVQ c+40(FP), DI
	MOVQ ldc+48(FP), R11
	SHLQ $2, R11
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ R11, DI
	VADDPS (DI), Y2, Y2
	VADDPS 32(DI), Y3, Y3
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, 32(DI)
	ADDQ R11, DI
	VADDPS (DI), Y4, Y4
	VADDPS 32(DI), Y5, Y5
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ R11, DI
	VADDPS (DI), Y6, Y6
	VADDPS 32(DI), Y7, Y7
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	ADDQ R11, DI
	VADDPS (DI), Y8, Y8
	VADDPS 32(DI), Y9, Y9
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	ADDQ R11, DI
	VADDPS (DI), Y10, Y10
	VADDPS 32(DI), Y11, Y11
	VMOVUPS Y10, (DI)
	VMOVUPS Y11, 32(DI)
	VZEROUPPER
	RET

// func kernNT3x4(k8 int, a *float32, lda int, b *float32, ldb int, out *[12]float32)
//
// out[4i+j] = A[i, 0:k8] · B[j, 0:k8] for i < 3, j < 4, k8 a positive
// multiple of 8: dot products of rows, for C = A·Bᵀ with both operands
// contiguous along k. Twelve accumulators, three A vectors and one B vector
// use all sixteen YMM registers.
TEXT ·kernNT3x4(SB), NOSPLIT, $0-48
	MOVQ k8+0(FP), CX
	SHRQ $3, CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $2, R8
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R10
	SHLQ $2, R10
	LEAQ (DI)(R10*2), R11
	ADDQ R10, R11            // R11 = row 3 of B
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

ntloop:
	VMOVUPS (SI), Y12
	VMOVUPS (SI)(R8*1), Y13
	VMOVUPS (SI)(R8*2), Y14
	VMOVUPS (DI), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y8
	VMOVUPS (DI)(R10*1), Y15
	VFMADD231PS Y12, Y15, Y1
	VFMADD231PS Y13, Y15, Y5
	VFMADD231PS Y14, Y15, Y9
	VMOVUPS (DI)(R10*2), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y6
	VFMADD231PS Y14, Y15, Y10
	VMOVUPS (R11), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y11
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R11
	DECQ CX
	JNE ntloop

	// Horizontal sums: three rounds of VHADDPS and a fold of the two
	// 128-bit lanes turn four accumulators into four dot products.
	MOVQ out+40(FP), DX
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVUPS X0, (DX)
	VHADDPS Y5, Y4, Y4
	VHADDPS Y7, Y6, Y6
	VHADDPS Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS X5, X4, X4
	VMOVUPS X4, 16(DX)
	VHADDPS Y9, Y8, Y8
	VHADDPS Y11, Y10, Y10
	VHADDPS Y10, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPS X9, X8, X8
	VMOVUPS X8, 32(DX)
	VZEROUPPER
	RET

// func kernNN1x16(k int, a *float32, b *float32, ldb int, c *float32)
//
// c[0:16] += a[0:k] · B[0:k, 0:16]: one row of C, for row counts that are
// not a multiple of 6 (and the m = 1 products of recurrent steps). Two
// accumulator pairs (even and odd k) hide the FMA latency.
TEXT ·kernNN1x16(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	MOVQ ldb+24(FP), R10
	SHLQ $2, R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ CX, DX
	SHRQ $1, CX
	JE nn1tail

nn1loop:
	VBROADCASTSS (SI), Y4
	VFMADD231PS (BX), Y4, Y0
	VFMADD231PS 32(BX), Y4, Y1
	VBROADCASTSS 4(SI), Y5
	VFMADD231PS (BX)(R10*1), Y5, Y2
	VFMADD231PS 32(BX)(R10*1), Y5, Y3
	ADDQ $8, SI
	LEAQ (BX)(R10*2), BX
	DECQ CX
	JNE nn1loop

nn1tail:
	ANDQ $1, DX
	JE nn1store
	VBROADCASTSS (SI), Y4
	VFMADD231PS (BX), Y4, Y0
	VFMADD231PS 32(BX), Y4, Y1

nn1store:
	MOVQ c+32(FP), DI
	VADDPS Y2, Y0, Y0
	VADDPS Y3, Y1, Y1
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET

// func kernNT1x4(k8 int, a *float32, b *float32, ldb int, out *[4]float32)
//
// out[j] = a[0:k8] · B[j, 0:k8] for j < 4 (k8 a positive multiple of 8):
// the rows left over by kernNT3x4.
TEXT ·kernNT1x4(SB), NOSPLIT, $0-40
	MOVQ k8+0(FP), CX
	SHRQ $3, CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R10
	SHLQ $2, R10
	LEAQ (DI)(R10*2), R11
	ADDQ R10, R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

nt1loop:
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS (DI)(R10*1), Y4, Y1
	VFMADD231PS (DI)(R10*2), Y4, Y2
	VFMADD231PS (R11), Y4, Y3
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R11
	DECQ CX
	JNE nt1loop

	MOVQ out+32(FP), DX
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVUPS X0, (DX)
	VZEROUPPER
	RET

