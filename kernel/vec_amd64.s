//go:build amd64 && !purego

#include "textflag.h"

// Element-wise kernels over n floats, n a multiple of 8 (the callers in
// vec_amd64.go do the rest in Go): one 8-wide AVX instruction per 8 values.

// func addAVX(n int, dst, a, b *float32)
// dst[i] = a[i] + b[i]
TEXT ·addAVX(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	SHRQ $3, CX
	JZ addend
addloop:
	VMOVUPS (SI), Y0
	VADDPS (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ addloop
addend:
	VZEROUPPER
	RET

// func mulAVX(n int, dst, a, b *float32)
// dst[i] = a[i] * b[i]
TEXT ·mulAVX(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	SHRQ $3, CX
	JZ mulend
mulloop:
	VMOVUPS (SI), Y0
	VMULPS (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ mulloop
mulend:
	VZEROUPPER
	RET

// func maxAVX(n int, dst, src *float32)
// dst[i] = max(dst[i], src[i])
TEXT ·maxAVX(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	SHRQ $3, CX
	JZ maxend
maxloop:
	VMOVUPS (SI), Y0
	VMAXPS (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ maxloop
maxend:
	VZEROUPPER
	RET

// func axpyAVX(n int, alpha float32, x, y *float32)
// y[i] += alpha·x[i]
TEXT ·axpyAVX(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	VBROADCASTSS alpha+8(FP), Y1
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DI
	SHRQ $3, CX
	JZ axpyend
axpyloop:
	VMOVUPS (DI), Y0
	VFMADD231PS (SI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ axpyloop
axpyend:
	VZEROUPPER
	RET

// func dotAVX(n int, x, y *float32) float32
// Σ x[i]·y[i] with two 8-wide accumulators (n a multiple of 8).
TEXT ·dotAVX(SB), NOSPLIT, $0-28
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	SHRQ $3, CX
	JZ dotsum
	TESTQ $1, CX
	JZ dotpairs
	VMOVUPS (SI), Y2
	VFMADD231PS (DI), Y2, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JZ dotsum
dotpairs:
	SHRQ $1, CX
dotloop:
	VMOVUPS (SI), Y2
	VMOVUPS 32(SI), Y3
	VFMADD231PS (DI), Y2, Y0
	VFMADD231PS 32(DI), Y3, Y1
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ dotloop
dotsum:
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
